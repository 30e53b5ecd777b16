/* Image identity while merging: for each kernel image event the merge meets,
 * find the image file (the event's NT path through /PathMap rules, else the
 * running system's drive table), read its PE headers and write
 * KernelTraceControl's ImageID events just before the image event
 * (image_identity.h says what and why).  This is how a trace names the exact
 * PDBs its modules need, so symbols resolve on another machine.
 *
 * PE results are cached per path, so an image loaded by many processes is
 * read once.  Images that cannot be read get no identity events and are
 * counted. */
#ifndef ETWCAP_IDENTITY_INJECT_H
#define ETWCAP_IDENTITY_INJECT_H

#include "etw/etl/etl_writer.h"
#include "etw/event/etw_event.h"
#include "etw/merge/container_image.h"
#include "src/base/byte_source.h"

#include <stddef.h>
#include <stdint.h>

/* A path prefix rule: a path starting with `from` (case-insensitive) has it
 * replaced by `to` ("\Device\HarddiskVolume3" -> "C:", or a folder holding a
 * copy of the images on another machine). */
struct identity_path_map {
  const char *from;
  const char *to;
};

struct identity_options {
  const struct identity_path_map *maps;
  size_t map_count;
  int use_os_mapping; /* also ask the running Windows' drive table */
  /* Images on volumes no drive letter names, a process-isolated
   * container's (container_image.h): tried through "\\?\GLOBALROOT", then
   * through the GUID path the volume map gives the device, then in the
   * image layers, and identified only when the file's headers are the load
   * event's. */
  int containers;
  struct container_places places;
  /* How those are opened: NULL is byte_source_open_file; tests fake it. */
  int (*open_file)(void *ctx, const char *path, struct byte_source *src);
  void *open_ctx;
};

struct identity_counts {
  uint64_t image_events; /* kernel image events seen */
  uint64_t identified;   /* of those, given identity events */
  uint64_t unreadable;   /* of those, whose file could not be read as a PE, or whose
                          * name is too long to be opened whole */
  uint64_t already;      /* of those, identified in the input already */
  /* Of the unreadable, those on a container's volume: found nowhere, or
   * found with other headers than the event's (another file now). */
  uint64_t container_unread, container_mismatch;
  uint64_t events_written;
};

/* A container's image that got no identity: found nowhere (its volume
 * gone with its container, and in no layer), or not readable there. */
struct identity_unread {
  char *path;        /* as logged */
  uint32_t pid;      /* of its first load */
  int volume_listed; /* its volume was still mounted: the file was not readable */
};
#define IDENTITY_UNREAD_MAX 1024 /* kept; the counts go on */

struct identity_injector;

int identity_injector_new(struct identity_injector **out, const struct identity_options *o);
/* An etl_merge_inject_fn: ctx is the injector. */
int identity_inject(void *ctx, const struct etw_event *ev, struct etl_writer *w);
void identity_injector_counts(const struct identity_injector *ij, struct identity_counts *c);
/* The container images found nowhere, in the order first met. */
size_t identity_injector_unread_count(const struct identity_injector *ij);
const struct identity_unread *identity_injector_unread(const struct identity_injector *ij,
                                                       size_t i);
void identity_injector_free(struct identity_injector *ij);

/* Parses "FROM=TO" (a /PathMap item) into *map, pointing into `item`, whose
 * '=' is replaced by a NUL.  ETWCAP_E_USAGE when there is no '=' or FROM is
 * empty. */
int identity_parse_path_map(char *item, struct identity_path_map *map);

#endif
