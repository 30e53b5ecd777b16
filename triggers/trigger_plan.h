/* What the real-time trigger session of a capture must enable for the
 * given triggers: a pure function of the trigger options, for the plan and
 * the Windows collection (which turns it into EnableTraceEx2 calls and the
 * kernel flags of the trigger's system logger).  Providers are merged per
 * GUID: union of keywords, highest level, arguments kept. */
#ifndef ETWCAP_TRIGGER_PLAN_H
#define ETWCAP_TRIGGER_PLAN_H

#include "etw/plan/session_need.h"
#include "triggers/trigger_engine.h"

#include <stddef.h>
#include <stdint.h>

/* Fills out[0..*count) with what the triggers engine `e` parsed need.
 * Returns 0 or ETWCAP_E_RANGE (more than max providers).  Performance
 * counters and event-log messages need no ETW provider and add nothing. */
int trigger_session_providers(const struct trigger_engine *e, struct session_provider_need *out,
                              size_t max, size_t *count);

#endif
