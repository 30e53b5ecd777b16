/* See fake_consumer.h. */
#include "tests/fakes/fake_consumer.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>


/* The task GUIDs real-time ETW puts in ProviderId for classic kernel events
 * of these groups (evntrace.h: ProcessGuid, ThreadGuid, ImageLoadGuid). */
static const struct {
  uint8_t group;
  struct etw_guid guid;
} kernel_tasks[] = {
  { 3, { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
  { 5, { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } } },
  { 20, { 0x2cb15d1d, 0x5fc1, 0x11d2, { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } } },
};

/* A classic kernel event as real time delivers it: an EVENT_RECORD with
 * CLASSIC_HEADER, the group's task GUID, Opcode = the event type, Version =
 * the header's version and the logger's pointer size in the flags. */
static int kernel_fields(const struct etw_event *ev, struct etw_record_fields *f)
{
  size_t i;
  for (i = 0; i < sizeof(kernel_tasks) / sizeof(kernel_tasks[0]); i++) {
    if (kernel_tasks[i].group != ev->group)
      continue;
    memset(f, 0, sizeof(*f));
    f->flags = ETW_RECORD_FLAG_CLASSIC_HEADER | (ev->pointer_size == 4
                                                     ? ETW_RECORD_FLAG_32_BIT_HEADER
                                                     : ETW_RECORD_FLAG_64_BIT_HEADER);
    f->tid = ev->tid;
    f->pid = ev->pid;
    f->timestamp = (int64_t)ev->timestamp;
    f->provider = kernel_tasks[i].guid;
    f->version = ev->version;
    f->opcode = ev->opcode;
    f->cpu = ev->cpu;
    f->user_len = (uint16_t)ev->user_len;
    f->user_data = ev->user_data;
    return 1;
  }
  return 0;
}

int fake_record_fields(const struct etw_event *ev, struct etw_record_fields *f,
                       struct etw_record_ext *ext)
{
  unsigned i;
  if (ev->is_kernel && (ev->has & ETW_HAS_TIMESTAMP))
    return kernel_fields(ev, f);
  if (!(ev->has & ETW_HAS_PROVIDER) || !(ev->has & ETW_HAS_DESCRIPTOR))
    return 0;
  memset(f, 0, sizeof(*f));
  f->flags = ev->flags;
  f->event_property = ev->event_property;
  f->tid = ev->tid;
  f->pid = ev->pid;
  f->timestamp = (int64_t)ev->timestamp;
  f->provider = ev->provider;
  f->id = ev->id;
  f->version = ev->version;
  f->channel = ev->channel;
  f->level = ev->level;
  f->opcode = ev->opcode;
  f->task = ev->task;
  f->keyword = ev->keyword;
  f->kernel_time = (uint32_t)ev->processor_time;
  f->user_time = (uint32_t)(ev->processor_time >> 32);
  f->activity_id = ev->activity_id;
  f->cpu = ev->cpu;
  for (i = 0; i < ev->ext_count && i < ETW_EVENT_MAX_EXT; i++) {
    ext[i].type = ev->ext[i].type;
    ext[i].size = ev->ext[i].size;
    ext[i].data = ev->ext[i].data;
  }
  f->ext_count = (uint16_t)i;
  f->ext = ext;
  f->user_len = (uint16_t)ev->user_len;
  f->user_data = ev->user_data;
  return 1;
}

struct each {
  fake_trace_fn fn;
  void *ctx;
};

static int each_etl(void *ctx, const char *display, struct etl_reader *r)
{
  struct each *e = ctx;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  int rc;
  (void)display;
  if ((rc = etl_timeorder_open(&t, r)) != 0)
    return rc;
  while ((rc = etl_timeorder_next(t, &ev)) == 1)
    if ((rc = e->fn(e->ctx, &ev, etl_reader_logfile(r), etl_reader_clock(r))) != 0)
      break;
  etl_timeorder_free(t);
  return rc < 0 ? rc : 0;
}

int fake_trace_foreach(const char *path, fake_trace_fn fn, void *ctx)
{
  struct each e = { fn, ctx };
  char err[512];
  return etl_source_foreach(path, each_etl, &e, err, sizeof(err));
}

struct deliver {
  struct fake_consumer *f;
  consumer_event_fn fn;
  void *ctx;
  int64_t now;
  int have_clock;
  struct etw_record_clock clock;
};

static int deliver_one(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                       const struct etl_clock *clock)
{
  struct deliver *d = ctx;
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT];
  struct etw_record_fields fields;
  struct etw_event out;
  if (!d->have_clock) {
    /* The first event lands on the collection's clock at open. */
    d->f->shift = d->now - etl_clock_filetime(clock, ev->timestamp);
    etw_record_clock_init(&d->clock, clock->base + d->f->shift, 0, (uint64_t)lf->perf_freq);
    d->have_clock = 1;
  }
  if (!fake_record_fields(ev, &fields, ext))
    return 0;
  etw_event_from_record(&out, &fields);
  d->f->events++;
  d->fn(d->ctx, &out, etw_record_filetime(&d->clock, fields.timestamp));
  return 0;
}

static int fake_open(struct consumer *c, const char *session, consumer_event_fn fn, void *ctx)
{
  struct fake_consumer *f = c->impl;
  struct deliver d;
  f->opens++;
  snprintf(f->session, sizeof(f->session), "%s", session);
  if (f->fail_open) {
    c->api = "OpenTraceW";
    c->os_code = 5;
    return f->fail_open;
  }
  f->events = 0;
  if (!f->sample || (f->deliver_times && f->deliveries >= f->deliver_times))
    return 0;
  f->deliveries++;
  memset(&d, 0, sizeof(d));
  d.f = f;
  d.fn = fn;
  d.ctx = ctx;
  d.now = f->env->utc_now(f->env->ctx);
  return fake_trace_foreach(f->sample, deliver_one, &d);
}

static void fake_close(struct consumer *c, struct consumer_stats *st)
{
  struct fake_consumer *f = c->impl;
  f->closes++;
  memset(st, 0, sizeof(*st));
  st->events = f->events;
}

static const struct consumer_ops fake_ops = { "fake", fake_open, fake_close };

void fake_consumer_init(struct fake_consumer *f)
{
  memset(f, 0, sizeof(*f));
  f->c.ops = &fake_ops;
  f->c.impl = f;
}
