/* /MonitorPerfCounter: counters read every interval and handed to a
 * callback, which logs each value into the trace (PerfView logs
 * PerfView/PerformanceCounterUpdate from a timer; etwcap's capture writes
 * etwcap/PerformanceCounterUpdate, own_provider.h).  The counters come from
 * the same trigger_counter_source as the counter triggers (PDH, or a fake
 * in tests); the capture's wait loop calls counter_monitors_poll at each
 * turn with its clock, so polls run on the main thread and a virtual clock
 * drives them in tests. */
#ifndef ETWCAP_COUNTER_MONITOR_H
#define ETWCAP_COUNTER_MONITOR_H

#include "triggers/trigger_engine.h"
#include "triggers/trigger_spec.h"

#include <stddef.h>
#include <stdint.h>

struct counter_monitor {
  char text[TRIGGER_NAME_MAX * 3 + 2]; /* CATEGORY:COUNTER:INSTANCE, for the log */
  struct trigger_monitor_spec spec;
  int64_t interval;                    /* FILETIME ticks */
  int64_t next;                        /* the next poll is due at this FILETIME */
  void *handle;                        /* open: the source's counter */
};

struct counter_monitors {
  struct counter_monitor *items;
  size_t count;
  const struct trigger_counter_source *src;
};

/* One logged value: the monitor's counter and what it read. */
typedef void (*counter_monitor_fn)(void *ctx, const struct counter_monitor *m, double value);

/* Parses every spec.  0, or ETWCAP_E_USAGE with a message naming the spec
 * and where it went wrong, or ETWCAP_E_NOMEM. */
int counter_monitors_parse(struct counter_monitors *m, char *const *specs, size_t count,
                           char *err, size_t cap);
/* Opens each counter in `src` (a counter that does not exist is an error,
 * as in PerfView; an instance may appear later) and makes the first poll
 * due at `now`.  0 or an error with a message. */
int counter_monitors_open(struct counter_monitors *m, const struct trigger_counter_source *src,
                          int64_t now, char *err, size_t cap);
/* The next polls are due from `now` on (a new collection, after the merge
 * of the last one). */
void counter_monitors_restart(struct counter_monitors *m, int64_t now);
/* Reads every monitor due at or before `now` and passes each value read to
 * fn; a poll missed by more than an interval is not made up.  An instance
 * that does not exist (yet) and a rate's first sample log nothing, as in
 * PerfView. */
void counter_monitors_poll(struct counter_monitors *m, int64_t now, counter_monitor_fn fn,
                           void *ctx);
/* Closes the counters and frees the list; safe on an empty one. */
void counter_monitors_release(struct counter_monitors *m);

#endif
