/* Injecting image identity during a merge (see identity_inject.h). */
#include "etw/merge/identity_inject.h"

#include "etw/etl/etl_format.h"
#include "etw/image/image_identity.h"
#include "etw/image/pe_image.h"
#include "etw/merge/container_image.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define CACHE_SLOTS 8192 /* distinct image paths remembered (power of two) */
#define PATH_BYTES 4096

struct cache_entry {
  char *path;           /* the NT path as logged; NULL = empty slot */
  int read_rc;          /* 0 when pe holds the image */
  int in_container;     /* found on a container's volume: each event's headers checked */
  int mismatch;         /* there, but with other headers than the first event's */
  int noted;            /* listed among the images found nowhere */
  struct pe_image pe;
};

struct identity_injector {
  struct identity_options opt;
  /* Images whose FileVersion event went out: once per image identity (size,
   * stamp, name), as KernelTraceControl does, not once per path. */
  struct image_identity_seen *seen;
  /* The last ImageID/Info already in the input (a trace merged before): an
   * image event right after it on the same CPU and timestamp has identity. */
  int seen_info;
  uint16_t info_cpu;
  uint64_t info_timestamp;
  struct cache_entry *cache;
  size_t cached;
  struct identity_counts counts;
  struct identity_unread *unread;
  size_t unread_count;
  uint8_t record[65536];
};

int identity_injector_new(struct identity_injector **out, const struct identity_options *o)
{
  struct identity_injector *ij = etwcap_calloc(1, sizeof(*ij));
  *out = NULL;
  if (!ij)
    return ETWCAP_E_NOMEM;
  ij->cache = etwcap_calloc(CACHE_SLOTS, sizeof(*ij->cache));
  if (!ij->cache || image_identity_seen_new(&ij->seen) != 0) {
    etwcap_free(ij->cache);
    etwcap_free(ij);
    return ETWCAP_E_NOMEM;
  }
  if (o)
    ij->opt = *o;
  *out = ij;
  return 0;
}

void identity_injector_free(struct identity_injector *ij)
{
  size_t i;
  if (!ij)
    return;
  for (i = 0; i < CACHE_SLOTS; i++)
    if (ij->cache[i].path) {
      if (ij->cache[i].read_rc == 0)
        pe_image_release(&ij->cache[i].pe);
      etwcap_free(ij->cache[i].path);
    }
  etwcap_free(ij->cache);
  for (i = 0; i < ij->unread_count; i++)
    etwcap_free(ij->unread[i].path);
  etwcap_free(ij->unread);
  image_identity_seen_free(ij->seen);
  etwcap_free(ij);
}

void identity_injector_counts(const struct identity_injector *ij, struct identity_counts *c)
{
  *c = ij->counts;
}

size_t identity_injector_unread_count(const struct identity_injector *ij)
{
  return ij->unread_count;
}

const struct identity_unread *identity_injector_unread(const struct identity_injector *ij,
                                                       size_t i)
{
  return i < ij->unread_count ? &ij->unread[i] : NULL;
}

/* Remembers a container image found nowhere, once per path (the cache
 * reads each path once, so this runs once per path it holds). */
static void note_unread(struct identity_injector *ij, const char *path, uint32_t pid)
{
  struct identity_unread *u;
  if (ij->unread_count >= IDENTITY_UNREAD_MAX)
    return;
  if (!ij->unread && !(ij->unread = etwcap_calloc(IDENTITY_UNREAD_MAX, sizeof(*ij->unread))))
    return;
  u = &ij->unread[ij->unread_count];
  if (!(u->path = etwcap_strdup(path)))
    return;
  u->pid = pid;
  u->volume_listed = container_image_volume_listed(path, &ij->opt.places);
  ij->unread_count++;
}

int identity_parse_path_map(char *item, struct identity_path_map *map)
{
  char *eq = strchr(item, '=');
  if (!eq || eq == item)
    return ETWCAP_E_USAGE;
  *eq = '\0';
  map->from = item;
  map->to = eq + 1;
  return 0;
}

/* FNV-1a over the lower-cased path: Windows paths are case-insensitive. */
static size_t hash_path(const char *s)
{
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 'A' && c <= 'Z')
      c = (unsigned char)(c + 32);
    h = (h ^ c) * 16777619u;
  }
  return h & (CACHE_SLOTS - 1);
}

/* Where the image file is here: a /PathMap rule, the OS drive table (0), or
 * the logged path itself (1).  ETWCAP_E_NAMETOOLONG when a /PathMap rule
 * makes it longer than `size`: cut short, it would name another file, whose
 * identity would be written for this image.  (The drive table puts "C:"
 * where a device name was, so its path is never the longer.) */
static int locate(const struct identity_injector *ij, const char *logged, char *out, size_t size)
{
  size_t i;
  int w;
  for (i = 0; i < ij->opt.map_count; i++) {
    const struct identity_path_map *m = &ij->opt.maps[i];
    size_t n = strlen(m->from);
    if (str_ncaseeq(logged, m->from, n)) {
      w = snprintf(out, size, "%s%s", m->to, logged + n);
      if (w < 0 || (size_t)w >= size)
        return ETWCAP_E_NAMETOOLONG;
      os_native_path(out);
      return 0;
    }
  }
  if (ij->opt.use_os_mapping && os_nt_path_to_dos(logged, out, size) == 0)
    return 0;
  snprintf(out, size, "%s", logged); /* logged fits: it is a path of PATH_BYTES */
  os_native_path(out);
  return 1;
}

/* Opens `path` and reads it as a PE into e (0), through the caller's
 * opener for a container's file. */
static int read_at(const struct identity_injector *ij, const char *path, int container,
                   struct cache_entry *e)
{
  struct byte_source src;
  int rc = container && ij->opt.open_file ? ij->opt.open_file(ij->opt.open_ctx, path, &src)
                                          : byte_source_open_file(&src, path);
  if (rc)
    return rc;
  rc = pe_image_read(&e->pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  return rc;
}

/* A container's image: the first candidate place whose file has the load
 * event's headers.  A file there with others is not this image (the volume
 * may be another container's by now): e->mismatch says so. */
static void read_in_container(const struct identity_injector *ij, struct cache_entry *e,
                              const struct image_event *img)
{
  char local[PATH_BYTES];
  unsigned i;
  int rc;
  e->in_container = 1;
  e->read_rc = ETWCAP_E_NOENT;
  for (i = 0; (rc = container_image_candidate(e->path, i, &ij->opt.places, local,
                                               sizeof(local))) != ETWCAP_E_NOENT;
       i++) {
    if (rc || read_at(ij, local, 1, e) != 0)
      continue;
    if (container_image_matches(&e->pe, img)) {
      e->read_rc = 0;
      e->mismatch = 0;
      return;
    }
    pe_image_release(&e->pe);
    e->mismatch = 1;
  }
}

static void read_pe(const struct identity_injector *ij, struct cache_entry *e,
                    const struct image_event *img)
{
  char local[PATH_BYTES];
  int as_logged = locate(ij, e->path, local, sizeof(local));
  if (as_logged < 0) {
    e->read_rc = as_logged;
    return;
  }
  /* No rule and no drive letter names it: a container's volume, perhaps. */
  if (as_logged && ij->opt.containers && container_image_device_len(e->path)) {
    read_in_container(ij, e, img);
    return;
  }
  /* The name comes from the trace: a share is not opened (a hostile trace
   * would make the merge connect to any server), and byte_source_open_file
   * opens only a regular file, so a FIFO or device cannot hang the merge. */
  if (os_path_is_remote(local)) {
    e->read_rc = ETWCAP_E_NOTFILE;
    return;
  }
  e->read_rc = read_at(ij, local, 0, e);
}

/* The cache entry of a path, reading the PE the first time.  NULL when the
 * table is full (then the caller reads without caching). */
static struct cache_entry *lookup(struct identity_injector *ij, const char *path,
                                  const struct image_event *img)
{
  size_t i = hash_path(path), probes;
  for (probes = 0; probes < CACHE_SLOTS; probes++, i = (i + 1) & (CACHE_SLOTS - 1)) {
    struct cache_entry *e = &ij->cache[i];
    if (!e->path) {
      if (ij->cached >= CACHE_SLOTS * 3 / 4)
        return NULL;
      e->path = etwcap_strdup(path);
      if (!e->path)
        return NULL;
      ij->cached++;
      read_pe(ij, e, img);
      return e;
    }
    if (str_caseeq(e->path, path))
      return e;
  }
  return NULL;
}

static int write_set(struct identity_injector *ij, struct image_identity_set *set,
                     struct etl_writer *w)
{
  size_t k;
  int rc = 0;
  for (k = 0; k < set->count && !rc; k++) {
    int size = image_identity_write_record(&set->ev[k], ij->record, sizeof(ij->record));
    if (size < 0)
      return size;
    rc = etl_writer_write(w, set->ev[k].cpu, set->ev[k].timestamp, ij->record, (uint32_t)size);
    if (!rc)
      ij->counts.events_written++;
  }
  return rc;
}

int identity_inject(void *ctx, const struct etw_event *ev, struct etl_writer *w)
{
  struct identity_injector *ij = ctx;
  struct image_event img;
  struct image_identity_set set;
  struct cache_entry *e, scratch;
  char path[PATH_BYTES];
  int rc;

  if (!ev->is_kernel && guid_equal(&ev->provider, &image_identity_guid) &&
      ev->opcode == IMAGE_ID_INFO) {
    ij->seen_info = 1;
    ij->info_cpu = ev->cpu;
    ij->info_timestamp = ev->timestamp;
    return 0;
  }
  if (!image_identity_is_image_event(ev))
    return 0;
  ij->counts.image_events++;
  if (ij->seen_info && ij->info_cpu == ev->cpu && ij->info_timestamp == ev->timestamp) {
    ij->counts.already++;
    return 0;
  }
  if (image_identity_parse_image_event(ev, &img) != 0 || img.file_name_bytes == 0) {
    ij->counts.unreadable++;
    return 0; /* an event we cannot decode is merged as it is */
  }
  /* A name cut to fit would name another file, whose identity would be
   * written for this image: it is left unidentified. */
  if (etl_utf16_to_utf8_whole(img.file_name, img.file_name_bytes, path, sizeof(path)) != 0) {
    ij->counts.unreadable++;
    return 0;
  }
  e = lookup(ij, path, &img);
  if (!e) {
    memset(&scratch, 0, sizeof(scratch));
    scratch.path = path;
    read_pe(ij, &scratch, &img);
    e = &scratch;
  }
  if (e->read_rc == 0 && e->in_container && !container_image_matches(&e->pe, &img)) {
    ij->counts.unreadable++;
    ij->counts.container_mismatch++;
    if (e == &scratch)
      pe_image_release(&scratch.pe);
    return 0;
  }
  if (e->read_rc != 0) {
    ij->counts.unreadable++;
    /* Another file where its container runs is not this image; with its
     * container gone, what the layers hold instead does not say more. */
    if (e->in_container && e->mismatch &&
        container_image_volume_listed(e->path, &ij->opt.places)) {
      ij->counts.container_mismatch++;
    } else if (e->in_container) {
      ij->counts.container_unread++;
      if (!e->noted)
        note_unread(ij, e->path, img.process_id);
      e->noted = 1;
    }
    return 0;
  }
  rc = image_identity_build_once(&set, &img, &e->pe, ij->seen);
  if (!rc) {
    rc = write_set(ij, &set, w);
    image_identity_release(&set);
    if (!rc)
      ij->counts.identified++;
  }
  if (e == &scratch)
    pe_image_release(&scratch.pe);
  return rc == ETWCAP_E_RANGE ? 0 : rc; /* a name too long for a record: no identity */
}
