/* .NET EventCounters (/StopOnEventCounter), read from the "EventCounters"
 * TraceLogging events an EventSource writes every EventCounterIntervalSec.
 * Pure. */
#ifndef ETWCAP_TRIGGER_EVCOUNTER_H
#define ETWCAP_TRIGGER_EVCOUNTER_H

#include "triggers/trigger_etw.h"
#include "triggers/trigger_spec.h"

#include <stdint.h>

/* One EventCounters sample of an EventSource, as decoded from the event's
 * "Payload" struct (EventCounter, PollingCounter: Mean; incrementing
 * counters: Increment). */
struct trigger_counter_payload {
  char name[TRIGGER_NAME_MAX];
  double mean, increment;
  int has_mean, has_increment;
  char counter_type[32]; /* "Mean" or "Sum" when given */
};

/* 1 when the event is an EventCounters event with a decodable payload. */
int trigger_evcounter_decode(struct trigger_etw_ctx *cx, struct trigger_counter_payload *out);

/* 1 when this EventCounters event of the spec's source crosses the
 * threshold (hit filled). */
int trigger_evcounter_event(const struct trigger_evcounter_spec *s, struct trigger_etw_ctx *cx,
                            struct trigger_hit *hit);

#endif
