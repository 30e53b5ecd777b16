/* See trigger_feed.h. */
#include "src/capture/trigger_feed.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"

#include <string.h>

/* An event or event-log message copied off the thread that delivered it. */
struct trigger_feed_item {
  struct trigger_feed_item *next;
  int64_t ft;
  int is_message;
  struct etw_event ev;      /* its user data and extended items follow */
  struct trigger_message m; /* its strings follow */
};

void trigger_feed_init(struct trigger_feed *f, struct trigger_engine *e, int64_t start)
{
  memset(f, 0, sizeof(*f));
  f->e = e;
  f->last = start;
  os_mutex_init(&f->lock);
}

static struct trigger_feed_item *take(struct trigger_feed *f)
{
  struct trigger_feed_item *q;
  os_mutex_lock(&f->lock);
  q = f->head;
  f->head = f->tail = NULL;
  f->queued = 0;
  os_mutex_unlock(&f->lock);
  return q;
}

static void release(struct trigger_feed_item *q)
{
  while (q) {
    struct trigger_feed_item *next = q->next;
    etwcap_free(q);
    q = next;
  }
}

void trigger_feed_destroy(struct trigger_feed *f)
{
  release(take(f));
  os_mutex_destroy(&f->lock);
}

static void dropped_one(struct trigger_feed *f)
{
  os_mutex_lock(&f->lock);
  f->dropped++;
  os_mutex_unlock(&f->lock);
}

static void enqueue(struct trigger_feed *f, struct trigger_feed_item *q)
{
  os_mutex_lock(&f->lock);
  if (f->queued >= TRIGGER_FEED_MAX) {
    f->dropped++;
    os_mutex_unlock(&f->lock);
    etwcap_free(q);
    return;
  }
  q->next = NULL;
  if (f->tail)
    f->tail->next = q;
  else
    f->head = q;
  f->tail = q;
  f->queued++;
  os_mutex_unlock(&f->lock);
}

/* The event is a view into ETW's buffer: copied whole for the main thread,
 * which feeds the engine at its next turn. */
void trigger_feed_event(void *ctx, const struct etw_event *ev, int64_t ft)
{
  struct trigger_feed *f = ctx;
  size_t size = sizeof(struct trigger_feed_item) + ev->user_len, i;
  struct trigger_feed_item *q;
  uint8_t *p;
  for (i = 0; i < ev->ext_count; i++)
    size += ev->ext[i].size;
  if (!(q = etwcap_malloc(size))) {
    dropped_one(f);
    return;
  }
  memset(q, 0, sizeof(*q));
  q->ft = ft;
  q->ev = *ev;
  p = (uint8_t *)(q + 1);
  if (ev->user_len) {
    memcpy(p, ev->user_data, ev->user_len);
    q->ev.user_data = p;
    p += ev->user_len;
  }
  for (i = 0; i < ev->ext_count; i++) {
    if (ev->ext[i].size)
      memcpy(p, ev->ext[i].data, ev->ext[i].size);
    q->ev.ext[i].data = p;
    p += ev->ext[i].size;
  }
  q->ev.raw = NULL;
  q->ev.raw_size = 0;
  enqueue(f, q);
}

void trigger_feed_message(void *ctx, const struct trigger_message *m)
{
  struct trigger_feed *f = ctx;
  const char *log = m->log ? m->log : "", *type = m->type ? m->type : "";
  const char *msg = m->message ? m->message : "";
  size_t nl = strlen(log) + 1, nt = strlen(type) + 1, nm = strlen(msg) + 1;
  struct trigger_feed_item *q = etwcap_malloc(sizeof(*q) + nl + nt + nm);
  char *p;
  if (!q) {
    dropped_one(f);
    return;
  }
  memset(q, 0, sizeof(*q));
  q->is_message = 1;
  q->ft = m->ft;
  q->m = *m;
  p = (char *)(q + 1);
  q->m.log = memcpy(p, log, nl);
  q->m.type = memcpy(p + nl, type, nt);
  q->m.message = memcpy(p + nl + nt, msg, nm);
  enqueue(f, q);
}

static void advance_to(struct trigger_feed *f, int64_t ft)
{
  int rc;
  if (ft <= f->last)
    return;
  f->last = ft;
  rc = trigger_engine_advance(f->e, ft);
  if (rc && !f->engine_failed) {
    f->engine_failed = 1;
    log_warn("the trigger engine cannot go on (%s): the capture goes on until S, "
             "/MaxCollectSec or 'etwcap stop'",
             etwcap_strerror(rc));
  }
}

void trigger_feed_run(struct trigger_feed *f, int64_t now)
{
  struct trigger_feed_item *q = take(f), *it;
  for (it = q; it; it = it->next) {
    if (f->engine_failed)
      break;
    advance_to(f, it->ft);
    if (it->is_message) {
      f->messages++;
      trigger_engine_message(f->e, &it->m);
    } else {
      f->events++;
      /* The event's own time, even when the clock has moved past it (the
       * session's flush timer delivers up to a second late): a fire is at
       * the event, and DelayAfterTriggerSec counts from there. */
      if (trigger_engine_event(f->e, &it->ev, it->ft) != 0)
        f->engine_failed = 1;
    }
  }
  release(q);
  advance_to(f, now);
}

uint64_t trigger_feed_discard(struct trigger_feed *f)
{
  uint64_t dropped;
  release(take(f));
  os_mutex_lock(&f->lock);
  dropped = f->dropped;
  f->dropped = 0;
  os_mutex_unlock(&f->lock);
  return dropped;
}
