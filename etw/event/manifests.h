/* EventSource manifests carried in the trace: an EventSource in manifest
 * mode sends its instrumentation manifest to every session as ManifestData
 * events (event id 0xFFFE; payload Format, MajorVersion, MinorVersion,
 * Magic 0x5B, UINT16 TotalChunks, UINT16 ChunkNumber, then that chunk of the
 * UTF-8 XML).  Assembled and read here just enough to name its events the
 * way TraceEvent does (Task/Opcode, Task for Info events, and the method
 * name, the manifest's symbol) and to lay out their fields from the
 * templates, so triggers can name manifest events and filter on fields.
 *
 * Lifetime: a registry owns everything it allocates until
 * manifests_free. */
#ifndef ETWCAP_MANIFESTS_H
#define ETWCAP_MANIFESTS_H

#include "etw/event/etw_event.h"
#include "etw/event/payload_layout.h"

#include <stddef.h>
#include <stdint.h>

#define MANIFEST_ID 0xFFFEu
#define MANIFEST_MAX_BYTES (16u * 1024u * 1024u)

struct man_event {
  uint16_t id;
  uint8_t version;
  char *symbol, *task, *opcode; /* whole; opcode: "Start", "Stop", a custom name, or NULL (Info) */
  /* Fields up to the first one of unknown size: its template's, owned by
   * the provider and shared by every event of that template. */
  struct tf_layout layout;
};

struct man_provider {
  struct etw_guid guid;
  uint8_t *xml;        /* chunks being assembled */
  size_t xml_len, xml_cap;
  unsigned chunks, next_chunk;
  struct man_event *events; /* sorted by id, then version */
  size_t count;
  struct tf_field *fields; /* every template's fields, end to end */
  size_t field_count;
  int parsed;
};

struct manifests {
  struct man_provider *p;
  size_t count, cap;
};

/* Feeds one event: a ManifestData event adds its chunk and, once the
 * manifest is whole, parses it (a later manifest of the same provider
 * replaces the earlier one).  Other events are ignored.  0 or NOMEM. */
int manifests_feed(struct manifests *m, const struct etw_event *ev);
/* Parses a whole manifest (tests).  0, FORMAT or NOMEM. */
int manifests_add_xml(struct manifests *m, const struct etw_guid *provider, const char *xml,
                      size_t len);
/* Has a manifest of this provider been read? */
int manifests_known(const struct manifests *m, const struct etw_guid *provider);
/* The event with this id and the highest version not above the event's
 * (else its lowest version): a binary search.  Of two events a manifest
 * gives the same id and version, either. */
const struct man_event *manifests_lookup(const struct manifests *m,
                                         const struct etw_guid *provider, uint16_t id,
                                         uint8_t version);
/* Does `name` (ASCII case-insensitive) name the event: its symbol,
 * "Task/Opcode", or "Task" when its opcode is Info? */
int manifests_event_named(const struct man_event *e, const char *name);
/* "Task/Opcode" (or "Task") into buf. */
char *manifests_event_name(const struct man_event *e, char *buf, size_t cap);
void manifests_free(struct manifests *m);

#endif
