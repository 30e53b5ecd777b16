/* See trigger_evcounter.h. */
#include "triggers/trigger_evcounter.h"

#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

struct payload_ctx {
  struct trigger_counter_payload *p;
};

/* EventCounters payload fields live in a struct named "Payload"; their
 * order differs between runtime versions, so they are taken by name. */
static int payload_cb(void *ctx, const char *path, const struct tv_value *v)
{
  struct payload_ctx *c = ctx;
  const char *last = strrchr(path, '.');
  last = last ? last + 1 : path;
  if (str_caseeq(last, "Name") && v->type == TV_TEXT)
    tv_copy(c->p->name, sizeof(c->p->name), v->text);
  else if (str_caseeq(last, "Mean") && tv_as_double(v, &c->p->mean))
    c->p->has_mean = 1;
  else if (str_caseeq(last, "Increment") && tv_as_double(v, &c->p->increment))
    c->p->has_increment = 1;
  else if (str_caseeq(last, "CounterType") && v->type == TV_TEXT)
    tv_copy(c->p->counter_type, sizeof(c->p->counter_type), v->text);
  return 0;
}

int trigger_evcounter_decode(struct trigger_etw_ctx *cx, struct trigger_counter_payload *out)
{
  const struct etw_event *ev = cx->ev;
  struct payload_ctx c = { out };
  memset(out, 0, sizeof(*out));
  if (cx->tl_state == 0)
    cx->tl_state = tl_parse(ev, &cx->tl) == 1 ? 1 : -1;
  if (cx->tl_state != 1 || !str_caseeq(cx->tl.name, "EventCounters"))
    return 0;
  if (tl_walk(&cx->tl, ev->user_data, ev->user_len, ev->pointer_size, payload_cb, &c) < 0)
    return 0;
  return out->name[0] && (out->has_mean || out->has_increment);
}

int trigger_evcounter_event(const struct trigger_evcounter_spec *s, struct trigger_etw_ctx *cx,
                            struct trigger_hit *hit)
{
  struct trigger_counter_payload p;
  double value;
  int past;
  if (!(cx->ev->has & ETW_HAS_PROVIDER) || !guid_equal(&cx->ev->provider, &s->provider))
    return 0;
  if (!trigger_evcounter_decode(cx, &p) || !str_caseeq(p.name, s->counter))
    return 0;
  if (p.has_mean && !str_caseeq(p.counter_type, "Sum"))
    value = p.mean;
  else if (p.has_increment)
    value = p.increment;
  else
    value = p.mean;
  past = s->greater ? value > s->threshold : value < s->threshold;
  if (!past)
    return 0;
  hit->value = value;
  snprintf(hit->detail, sizeof(hit->detail), "%s:%s = %.15g %c %.15g pid=%lu", s->source,
           p.name, value, s->greater ? '>' : '<', s->threshold,
           (unsigned long)cx->ev->pid);
  return 1;
}
