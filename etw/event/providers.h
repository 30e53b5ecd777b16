/* Provider names → GUIDs: a built-in table of the providers PerfView knows
 * and a PerfView collection uses (CLR, CLR rundown, kernel-mode manifest
 * providers, ASP.NET, TPL, well-known EventSources), then, on Windows only,
 * the OS's registered providers (providers_os.h); `*Name` is an EventSource
 * name hashed to its GUID.  Any other name is an error: a typo silently
 * hashed would enable a provider nobody writes to. */
#ifndef ETWCAP_PROVIDERS_H
#define ETWCAP_PROVIDERS_H

#include "etw/event/guid.h"
#include "etw/event/keywords.h"

#include <stddef.h>

struct provider_entry {
  const char *name;     /* the name PerfView and the manifest use */
  const char *guid;     /* registry form; NULL = the EventSource hash of name */
  const char *alias;    /* PerfView's short alias (Clr, ClrRundown, ...) or NULL */
  const struct keyword_set *keywords; /* names usable in /Providers, or NULL */
};

/* The whole table, for listing and tests. */
extern const struct provider_entry providers_known[];
extern const size_t providers_known_count;

/* The GUID of a table entry (hashing when the entry has none). */
void providers_guid_of(const struct provider_entry *p, struct etw_guid *out);

/* Looks a name or alias up in the table (ASCII case-insensitive). */
const struct provider_entry *providers_find_name(const char *name, size_t len);
/* The table entry with this GUID, or NULL. */
const struct provider_entry *providers_find_guid(const struct etw_guid *g);

enum provider_source {
  PROVIDER_FROM_GUID,        /* written as a GUID */
  PROVIDER_FROM_EVENTSOURCE, /* *Name, hashed */
  PROVIDER_FROM_TABLE,       /* built-in table */
  PROVIDER_FROM_OS           /* registered with this Windows */
};

struct provider_ref {
  struct etw_guid guid;
  char name[256];                     /* display name */
  enum provider_source source;
  const struct provider_entry *known;  /* table entry when known, else NULL */
};

/* Resolves a /Providers provider field (`len` bytes of text): GUID, *Name,
 * table name or alias, OS-registered name.  Returns 0, or ETWCAP_E_USAGE
 * with a message naming the text in err. */
int providers_resolve(const char *text, size_t len, struct provider_ref *out, char *err,
                      size_t err_size);

/* Kernel control GUID (SystemTraceControlGuid): kernel events come from
 * /KernelEvents, never from /Providers. */
extern const struct etw_guid providers_system_trace_guid;

#endif
