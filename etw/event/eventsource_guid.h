/* The GUID .NET derives from an EventSource name (TraceEvent
 * GetEventSourceGuidFromName, docs/perfview-collection.md §4.5), so `*Name` in
 * /Providers enables the same provider PerfView would. */
#ifndef ETWCAP_EVENTSOURCE_GUID_H
#define ETWCAP_EVENTSOURCE_GUID_H

#include "etw/event/guid.h"

/* name: UTF-8, with or without the leading '*'.  Returns 0, or
 * ETWCAP_E_USAGE when the name is empty or not valid UTF-8.  ASCII letters
 * are upper-cased as .NET's ToUpperInvariant does; other characters are
 * hashed as given (EventSource names are ASCII in practice). */
int eventsource_guid(const char *name, struct etw_guid *out);

/* PerfView's "may be an EventSource" test: a name-based (version 5) GUID,
 * i.e. the high nibble of byte 7 is 5. */
int eventsource_guid_maybe(const struct etw_guid *g);

#endif
