/* See counter_monitor.h. */
#include "triggers/counter_monitor.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

int counter_monitors_parse(struct counter_monitors *m, char *const *specs, size_t count,
                           char *err, size_t cap)
{
  size_t i;
  int rc;
  memset(m, 0, sizeof(*m));
  if (!count)
    return 0;
  if (!(m->items = etwcap_calloc(count, sizeof(*m->items))))
    return ETWCAP_E_NOMEM;
  m->count = count;
  for (i = 0; i < count; i++) {
    struct counter_monitor *c = &m->items[i];
    if ((rc = trigger_parse_monitor_spec(specs[i], &c->spec, err, cap)) != 0) {
      char why[600];
      snprintf(why, sizeof(why), "%s", err);
      snprintf(err, cap, "/MonitorPerfCounter:%s", why);
      counter_monitors_release(m);
      return rc;
    }
    snprintf(c->text, sizeof(c->text), "%s:%s:%s", c->spec.counter.category,
             c->spec.counter.counter, c->spec.counter.instance);
    c->interval = (int64_t)(c->spec.interval_sec * (double)TRIGGER_TICKS_PER_SEC);
  }
  return 0;
}

int counter_monitors_open(struct counter_monitors *m, const struct trigger_counter_source *src,
                          int64_t now, char *err, size_t cap)
{
  size_t i;
  int rc;
  m->src = src;
  for (i = 0; i < m->count; i++) {
    struct counter_monitor *c = &m->items[i];
    if ((rc = src->open(src->ctx, &c->spec.counter, &c->handle, err, cap)) != 0) {
      c->handle = NULL;
      return rc;
    }
    c->next = now;
  }
  return 0;
}

void counter_monitors_restart(struct counter_monitors *m, int64_t now)
{
  size_t i;
  for (i = 0; i < m->count; i++)
    m->items[i].next = now;
}

void counter_monitors_poll(struct counter_monitors *m, int64_t now, counter_monitor_fn fn,
                           void *ctx)
{
  size_t i;
  for (i = 0; i < m->count; i++) {
    struct counter_monitor *c = &m->items[i];
    double value;
    if (!c->handle || now < c->next)
      continue;
    /* Keep the cadence of the first poll; a turn that came late does not
     * owe the polls it missed. */
    c->next += c->interval;
    if (c->next <= now)
      c->next = now + c->interval;
    if (m->src->read(m->src->ctx, c->handle, now, &value) == 1)
      fn(ctx, c, value);
  }
}

void counter_monitors_release(struct counter_monitors *m)
{
  size_t i;
  for (i = 0; m->items && i < m->count; i++)
    if (m->items[i].handle)
      m->src->close(m->src->ctx, m->items[i].handle);
  etwcap_free(m->items);
  memset(m, 0, sizeof(*m));
}
