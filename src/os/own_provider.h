/* etwcap's own provider: a TraceLogging (self-describing) provider named
 * "etwcap" that the user session enables by default (etw/plan/plan_defaults.c),
 * so what etwcap writes lands in the capture beside everything else, the
 * way PerfView's PerfViewLogger does (docs/perfview-collection.md §4.7):
 * `mark`'s Mark events and /MonitorPerfCounter's counter values.  Its GUID
 * is the EventSource hash of the name (TraceEvent's
 * GetEventSourceGuidFromName), so `/Providers:*etwcap` names the same
 * provider and PerfView and TraceEvent decode its events from their own
 * metadata.
 *
 * The events are built portably (own_provider.c, tested natively by
 * decoding them); writing them is the OS seam (own_provider_win32.c:
 * EventRegister, EventEnabled, EventWriteTransfer; own_provider_posix.c
 * answers "needs Windows"). */
#ifndef ETWCAP_OWN_PROVIDER_H
#define ETWCAP_OWN_PROVIDER_H

#include "etw/event/guid.h"
#include "etw/event/tl_encode.h"

#include <stddef.h>

#define OWN_PROVIDER_NAME "etwcap"
/* Its events: "Mark" {Message}, and "PerformanceCounterUpdate"
 * {Category, Counter, Instance, Value} (PerfView's event of that name
 * carries the counter spec and the value). */
#define OWN_EVENT_MARK "Mark"
#define OWN_EVENT_COUNTER "PerformanceCounterUpdate"
/* Both are written at Informational (4) with no keyword: any session that
 * enables the provider at its default level records them. */
#define OWN_EVENT_LEVEL 4u

int own_provider_guid(struct etw_guid *out);

/* The events' bytes.  0, or ETWCAP_E_RANGE when the text does not fit in
 * one event (TL_ENCODE_DATA_MAX). */
int own_event_mark(struct tl_encoded *e, const char *message);
int own_event_counter(struct tl_encoded *e, const char *category, const char *counter,
                      const char *instance, double value);

/* The registered provider (one per process is plenty). */
struct own_provider;

/* EventRegister.  0, ETWCAP_E_NEEDS_WINDOWS off Windows, or an error with
 * `why` naming the call and its code. */
int own_provider_open(struct own_provider **out, char *why, size_t why_size);
/* 1 when a session records the provider's events now (EventEnabled: "FALSE
 * if ETW can quickly determine that no session is listening"), else 0. */
int own_provider_listened(const struct own_provider *p);
/* EventWriteTransfer of one event built above.  0 or an error with `why`. */
int own_provider_write(struct own_provider *p, const struct tl_encoded *e, char *why,
                       size_t why_size);
/* EventUnregister; safe on NULL. */
void own_provider_close(struct own_provider *p);

#endif
