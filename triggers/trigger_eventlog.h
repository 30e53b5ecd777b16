/* Event-log messages (/StopOnEventLogMessage) from a message feed (the
 * Windows sampler, eventlog_win32.c, or a test): PerfView's text of an entry
 * and the match against a spec.  Pure. */
#ifndef ETWCAP_TRIGGER_EVENTLOG_H
#define ETWCAP_TRIGGER_EVENTLOG_H

#include "triggers/trigger_etw.h"
#include "triggers/trigger_spec.h"

#include <stdint.h>

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
/* 1 when the message is in the spec's log and its whole text matches (hit
 * filled), 0 when not, ETWCAP_E_NOMEM. */
int trigger_eventlog_message(const struct trigger_eventlog_spec *s, const struct trigger_message *m,
                             struct trigger_hit *hit);

#endif
