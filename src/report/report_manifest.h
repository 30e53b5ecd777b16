/* The capture manifest (etwcap-capture.json, capture_manifest.h) read back
 * from an .etl.zip for `etwcap report`: the command line, the trigger
 * that fired and when, the host's containers (their HCS names and host
 * PIDs, at the start and at the stop) and the container images the merge
 * could not identify.  The zip's directory and member are read with
 * zip_directory.h, the JSON with json_tree.h; both bound every
 * size, and a manifest that is absent or malformed is simply not shown. */
#ifndef ETWCAP_REPORT_MANIFEST_H
#define ETWCAP_REPORT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_MANIFEST_TEXT_MAX 2048
#define REPORT_MANIFEST_SYSTEMS 32      /* compute systems kept */
#define REPORT_MANIFEST_SYSTEM_PIDS 128 /* host PIDs kept per system */
#define REPORT_MANIFEST_UNREAD 16       /* unidentified container images kept */

/* A process-isolated container of the inventory (atStart and atStop
 * joined by Id). */
struct report_manifest_system {
  char id[256], name[256];
  uint32_t pids[REPORT_MANIFEST_SYSTEM_PIDS];
  size_t pid_count;
};

struct report_manifest_unread {
  char path[512], reason[96];
  uint32_t pid;
};

struct report_manifest {
  int present;
  char command_line[REPORT_MANIFEST_TEXT_MAX];
  char machine[256];
  int has_trigger;
  char trigger_name[256];
  char trigger_detail[REPORT_MANIFEST_TEXT_MAX];
  int64_t trigger_filetime; /* 0 when the manifest gives no valid time */
  struct report_manifest_system systems[REPORT_MANIFEST_SYSTEMS];
  size_t system_count;
  struct report_manifest_unread unread[REPORT_MANIFEST_UNREAD];
  size_t unread_count, unread_total; /* kept, and listed in the manifest */
};

/* Fills *m from the JSON text of a manifest: 0, or ETWCAP_E_FORMAT with a
 * message in why (then *m says present = 0). */
int report_manifest_parse(const char *text, size_t len, struct report_manifest *m, char *why,
                          size_t why_size);
/* Reads the manifest of the zip at path, if it has one: 0 with m->present
 * set or not; < 0 only for a manifest member that cannot be read or parsed
 * (why says so; the report goes on without it). */
int report_manifest_read(const char *path, struct report_manifest *m, char *why,
                         size_t why_size);
/* "2024-01-02T03:04:05.1234567Z" (or fewer decimals) to a FILETIME: 1 and
 * *out, or 0 when the text is not such a time. */
int report_parse_utc(const char *text, int64_t *out);

#endif
