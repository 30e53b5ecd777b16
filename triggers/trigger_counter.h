/* The performance-counter threshold trigger (/StopOnPerfCounter,
 * /StartOnPerfCounter): PerfView's PerformanceCounterTrigger state machine
 * on etwcap's poll interval (docs/perfview-collection.md §6.1).
 *
 * A sample is taken every /TriggerPollMSec.  The counter must first be on
 * the non-triggering side for MinSecForTrigger seconds (arming; a counter
 * that starts past the threshold logs a warning and waits), then past the
 * threshold for MinSecForTrigger seconds; an opposite sample while armed
 * starts the count again.  "For N seconds" means N*1000/poll + 1 consecutive
 * samples (rounded up), which is PerfView's MinSecForTrigger+1 one-second
 * samples at the default poll.  The threshold decays linearly to zero over
 * DecayToZeroHours since the trigger was created.  Pure: time is passed in. */
#ifndef ETWCAP_TRIGGER_COUNTER_H
#define ETWCAP_TRIGGER_COUNTER_H

#include "triggers/trigger_spec.h"

#include <stdint.h>

struct trigger_counter {
  struct trigger_counter_spec spec;
  int64_t created;    /* FILETIME when the trigger started watching */
  double decay_hours;
  unsigned need;      /* consecutive samples for arming and for firing */
  unsigned count;
  int armed;
  int warned;         /* "already past the threshold" was logged */
  double value;       /* last sample */
};

/* Samples needed for min_sec at poll_ms (>= 1). */
unsigned trigger_counter_samples_needed(int64_t min_sec, int64_t poll_ms);

void trigger_counter_init(struct trigger_counter *c, const struct trigger_counter_spec *spec,
                          int64_t min_sec, int64_t poll_ms, double decay_hours, int64_t now);
/* The threshold at `now` after decay. */
double trigger_counter_threshold(const struct trigger_counter *c, int64_t now);
/* Feeds one poll's value; returns 1 when the trigger fires on it. */
int trigger_counter_sample(struct trigger_counter *c, double value, int64_t now);
/* "Processor:% Processor Time:_Total" into buf. */
char *trigger_counter_path(const struct trigger_counter_spec *s, char *buf, size_t cap);

#endif
