/* The capture manifest: a JSON document in every .etl.zip etwcap writes,
 * named etwcap-capture.json, so a trace handed to someone else says how it
 * was made (what to attach to a trace: docs/perfview-collection.md §10).
 * Schema "etwcap-capture/1", documented in README.md.  The merge fills what
 * it knows; collection and triggers add their fields (sessions' losses, the
 * trigger that fired, each live session's health) through the same struct. */
#ifndef ETWCAP_CAPTURE_MANIFEST_H
#define ETWCAP_CAPTURE_MANIFEST_H

#include "src/capture/capture_health.h"
#include "src/containers/container_capture.h"

#include <stddef.h>
#include <stdint.h>

#define CAPTURE_MANIFEST_NAME "etwcap-capture.json"
/* The most a manifest read back from a zip may hold: a real one is a few
 * KiB, and this bounds what a damaged archive can make a reader allocate. */
#define CAPTURE_MANIFEST_MAX_BYTES (1u << 20)

struct manifest_session {
  const char *file;    /* file name as merged */
  const char *logger;  /* LoggerName of its header */
  uint64_t bytes;
  uint64_t events;
  uint32_t events_lost, buffers_lost;
};

struct manifest_trigger {
  const char *name;   /* e.g. "StopOnException" */
  const char *detail; /* what fired it */
  int64_t filetime;   /* when (UTC FILETIME) */
};

/* A fire kept past the strings it was given (a snapshot's, a segment's):
 * `t` points into the struct itself. */
struct manifest_trigger_copy {
  char name[64], detail[512];
  struct manifest_trigger t;
};
void manifest_trigger_keep(struct manifest_trigger_copy *dst, const struct manifest_trigger *src);

struct capture_manifest {
  const char *command_line;  /* as typed, arguments joined with spaces */
  const char *machine;       /* where the merge ran */
  const char *os;            /* where the merge ran */
  unsigned trace_os_major, trace_os_minor, trace_os_build; /* from the trace header */
  int64_t start_filetime, stop_filetime;                   /* the trace's time range */
  const struct manifest_session *sessions;
  size_t session_count;
  const struct manifest_trigger *trigger; /* NULL when none fired */
  const struct capture_health *health;    /* a live capture's self-check; NULL none */
  const struct container_capture *containers; /* the host's containers; NULL none */
  const char *merged_file;
  uint64_t merged_bytes, merged_events;
  uint64_t images_identified, images_unreadable;
  int64_t written_filetime;  /* when the zip was made */
};

/* Renders the manifest; *json is allocated (etwcap_free).  ETWCAP_E_NOMEM. */
int capture_manifest_json(const struct capture_manifest *m, char **json);

/* The volume map that the manifest of the zip at `zip_path` recorded, into
 * cc (container_capture_recall_volumes_json): the number of volumes; 0
 * when the zip has no manifest, or one without a map. */
size_t capture_manifest_recall_volumes(struct container_capture *cc, const char *zip_path);

#endif
