/* One /Providers (or /OnlyProviders) item, parsed with PerfView's grammar
 * (docs/perfview-collection.md §4.5):
 *   PROVIDER[:KEYWORDS[:LEVEL[:stack]]][:key=value;key=value...]
 * The first field that contains '=' starts the key=value part, which runs to
 * the end of the item (values may then contain ':').  Pure: the only outside
 * call is providers_resolve for the name. */
#ifndef ETWCAP_PROVIDERS_SPEC_H
#define ETWCAP_PROVIDERS_SPEC_H

#include "etw/event/providers.h"

#include <stddef.h>
#include <stdint.h>

#define PROVIDER_SPEC_MAX_PIDS 8      /* MAX_EVENT_FILTER_PID_COUNT */
#define PROVIDER_SPEC_MAX_EVENT_IDS 64 /* MAX_EVENT_FILTER_EVENT_ID_COUNT */

struct provider_kv {
  char *key;
  char *value;
};

/* An event-id list for EVENT_FILTER_TYPE_EVENT_ID or _STACKWALK. */
struct provider_id_filter {
  int present;
  int filter_in; /* 1: only these ids (…ToEnable); 0: all but these (…ToDisable) */
  uint16_t ids[PROVIDER_SPEC_MAX_EVENT_IDS];
  size_t count;
};

/* Lifetime: owned by the caller; provider_spec_release frees the strings. */
struct provider_spec {
  struct provider_ref provider;
  uint64_t keywords;      /* default: all (0xFFFFFFFFFFFFFFFF) */
  int keywords_given;
  uint8_t level;          /* default: Verbose */
  int level_given;
  int stacks;             /* ':stack' or @StacksEnabled=true */
  int stacks_given;       /* @StacksEnabled was given (true or false) */
  uint32_t pids[PROVIDER_SPEC_MAX_PIDS];
  size_t pid_count;       /* @ProcessIDFilter */
  char *exe_names;        /* @ProcessNameFilter, ';'-joined, or NULL */
  struct provider_id_filter events; /* @EventIDsToEnable / ToDisable */
  struct provider_id_filter stack_events; /* @EventIDStacksToEnable / ToDisable */
  struct provider_kv *args; /* other key=value pairs: filter data for the provider */
  size_t arg_count;
};

/* Parses `text` (one item, NUL-terminated).  Returns 0, ETWCAP_E_USAGE with
 * a message naming the bad token in err, or ETWCAP_E_NOMEM.  On failure
 * nothing needs releasing. */
int provider_spec_parse(const char *text, struct provider_spec *out, char *err,
                        size_t err_size);
void provider_spec_release(struct provider_spec *spec);

/* Level 0 with keywords 0: PerfView's way to turn a provider off. */
int provider_spec_is_disable(const struct provider_spec *spec);

#endif
