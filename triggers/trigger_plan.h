/* What the real-time trigger session of a capture must enable for the
 * given triggers: a pure function of the trigger options, for the plan and
 * the Windows collection (which turns it into EnableTraceEx2 calls and the
 * kernel flags of the trigger's system logger).  Providers are merged per
 * GUID: union of keywords, highest level, arguments kept. */
#ifndef ETWCAP_TRIGGER_PLAN_H
#define ETWCAP_TRIGGER_PLAN_H

#include "guid.h"
#include "trigger_options.h"

#include <stddef.h>
#include <stdint.h>

#define TRIGGER_PLAN_MAX 32

struct trigger_session_provider {
  struct etw_guid guid;
  char name[128];
  int kernel;        /* keywords are kernel flags (KW_KERNEL_*): a system logger */
  uint64_t keywords; /* MatchAnyKeyword; 0 = events without keywords (EventSource: all) */
  uint8_t level;
  char args[96];     /* EventSource arguments as KEY=VALUE, or "" */
  char why[160];     /* the qualifiers that need it, comma-separated */
};

/* Fills out[0..*count).  Returns 0, the parse error of a spec
 * (ETWCAP_E_USAGE, message in err), ETWCAP_E_RANGE (more than max
 * providers) or ETWCAP_E_NOMEM.  Performance counters and event-log
 * messages need no ETW provider and add nothing. */
int trigger_session_providers(const struct trigger_options *o,
                              struct trigger_session_provider *out, size_t max, size_t *count,
                              char *err, size_t cap);

#endif
