/* See trigger_counter.h. */
#include "triggers/trigger_counter.h"

#include "src/base/log.h"

#include <stdio.h>

#define TICKS_PER_HOUR 36000000000.0

unsigned trigger_counter_samples_needed(int64_t min_sec, int64_t poll_ms)
{
  int64_t span_ms, n;
  if (min_sec < 0)
    min_sec = 0;
  if (poll_ms < 1)
    poll_ms = 1;
  span_ms = min_sec * 1000;
  n = (span_ms + poll_ms - 1) / poll_ms + 1;
  return n > 100000000 ? 100000000u : (unsigned)n;
}

void trigger_counter_init(struct trigger_counter *c, const struct trigger_counter_spec *spec,
                          int64_t min_sec, int64_t poll_ms, double decay_hours, int64_t now)
{
  c->spec = *spec;
  c->created = now;
  c->decay_hours = decay_hours;
  c->need = trigger_counter_samples_needed(min_sec, poll_ms);
  c->count = 0;
  c->armed = 0;
  c->warned = 0;
  c->value = 0;
}

double trigger_counter_threshold(const struct trigger_counter *c, int64_t now)
{
  double t = c->spec.threshold;
  if (c->decay_hours != 0)
    t *= 1.0 - (double)(now - c->created) / TICKS_PER_HOUR / c->decay_hours;
  return t;
}

char *trigger_counter_path(const struct trigger_counter_spec *s, char *buf, size_t cap)
{
  snprintf(buf, cap, "%s:%s:%s", s->category, s->counter, s->instance);
  return buf;
}

int trigger_counter_sample(struct trigger_counter *c, double value, int64_t now)
{
  double t = trigger_counter_threshold(c, now);
  int past = c->spec.greater ? value > t : value < t;
  char path[3 * TRIGGER_NAME_MAX + 4];
  c->value = value;
  if (!c->armed) {
    if (past) {
      if (!c->warned) {
        log_warn("counter %s is %g, already %s the trigger level %g: waiting for it to come "
                 "back before the trigger can fire",
                 trigger_counter_path(&c->spec, path, sizeof(path)), value,
                 c->spec.greater ? "above" : "below", t);
        c->warned = 1;
      }
      c->count = 0;
      return 0;
    }
    if (++c->count >= c->need) {
      c->count = 0;
      c->armed = 1;
      log_info("counter %s armed at %g: waiting for it to pass %g",
               trigger_counter_path(&c->spec, path, sizeof(path)), value, t);
    }
    return 0;
  }
  if (!past) {
    c->count = 0;
    return 0;
  }
  return ++c->count >= c->need;
}
