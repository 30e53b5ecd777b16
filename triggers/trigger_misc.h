/* The two triggers that are neither counters nor ETW start/stop pairs:
 * .NET EventCounters (/StopOnEventCounter), read from the "EventCounters"
 * TraceLogging events an EventSource writes every EventCounterIntervalSec,
 * and event-log messages (/StopOnEventLogMessage) from a message feed (the
 * Windows sampler, or a test).  Pure. */
#ifndef ETWCAP_TRIGGER_MISC_H
#define ETWCAP_TRIGGER_MISC_H

#include "trigger_etw.h"
#include "trigger_spec.h"

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

/* An event-log entry as the sampler delivers it. */
struct trigger_message {
  int64_t ft;           /* TimeGenerated, UTC FILETIME */
  const char *log;      /* "Application", "System" ... */
  const char *type;     /* "Error", "Warning", "Information" ... */
  uint32_t event_id;
  const char *message;
};

/* PerfView's text "HH:MM: Type: T EventId: N Message: M" (the time in UTC,
 * 24-hour, where PerfView used local short time) into buf. */
char *trigger_eventlog_text(const struct trigger_message *m, char *buf, size_t cap);
/* 1 when the message is in the spec's log and its text matches (hit filled). */
int trigger_eventlog_message(const struct trigger_eventlog_spec *s, const struct trigger_message *m,
                             struct trigger_hit *hit);

#endif
