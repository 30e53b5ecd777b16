/* EVENT_RECORD fields to etw_event and raw timestamps to UTC (see
 * etw_event_record.h).  No Windows types here: consumer_win32.c unpacks. */
#include "etw/event/etw_event_record.h"

#include <string.h>

void etw_event_from_record(struct etw_event *ev, const struct etw_record_fields *f)
{
  unsigned i;
  memset(ev, 0, sizeof(*ev));
  /* The record is an EVENT_HEADER whatever the on-disk form was; the
   * pointer size is the logging process's (the 32/64-bit flags). */
  ev->pointer_size = (f->flags & ETW_RECORD_FLAG_32_BIT_HEADER) ? 4 : 8;
  ev->header_type = ev->pointer_size == 4 ? ETW_HDR_EVENT_HEADER32 : ETW_HDR_EVENT_HEADER64;
  ev->has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  ev->cpu = f->cpu;
  ev->timestamp = (uint64_t)f->timestamp;
  ev->provider = f->provider;
  ev->id = f->id;
  ev->version = f->version;
  ev->channel = f->channel;
  ev->level = f->level;
  ev->opcode = f->opcode;
  ev->task = f->task;
  ev->keyword = f->keyword;
  ev->pid = f->pid;
  ev->tid = f->tid;
  ev->flags = f->flags;
  ev->event_property = f->event_property;
  ev->activity_id = f->activity_id;
  ev->processor_time = (f->flags & ETW_RECORD_FLAG_NO_CPUTIME)
                           ? 0
                           : ((uint64_t)f->user_time << 32) | f->kernel_time;
  for (i = 0; i < f->ext_count && ev->ext_count < ETW_EVENT_MAX_EXT; i++) {
    struct etw_ext_item *x = &ev->ext[ev->ext_count++];
    x->type = f->ext[i].type;
    x->size = f->ext[i].size;
    x->data = f->ext[i].data;
  }
  ev->user_data = f->user_data;
  ev->user_len = f->user_data ? f->user_len : 0;
  /* No on-disk record exists for a real-time event. */
  ev->raw = NULL;
  ev->raw_size = 0;
}

void etw_record_clock_init(struct etw_record_clock *c, int64_t ref_filetime, int64_t ref_raw,
                           uint64_t frequency)
{
  c->ref_filetime = ref_filetime;
  c->ref_raw = ref_raw;
  c->scale = frequency ? 1e7 / (double)frequency : 0.0;
}

int64_t etw_record_filetime(const struct etw_record_clock *c, int64_t raw)
{
  if (c->scale == 0.0)
    return raw;
  /* Truncation as etl_clock does it, so a fire lands on the same tick a
   * replay of the same events gives. */
  return c->ref_filetime + (int64_t)(c->scale * (double)(raw - c->ref_raw));
}
