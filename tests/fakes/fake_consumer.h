/* A fake of the real-time consumer seam (etw/session/consumer.h) for the portable
 * collection tests: at open it reads a recorded trace (a real sample) in
 * time order and delivers every EVENT_HEADER event and classic kernel
 * process/thread/image event (see fake_record_fields) to the callback, each one first
 * taken apart into EVENT_RECORD fields and put together again by
 * etw_event_from_record, with its time from etw_record_filetime, the code
 * the Windows consumer runs.  The trace is moved in time so that its first
 * event falls on the collection's clock at open (`shift` says by how much).
 * Delivery is synchronous, on the caller's thread.
 *
 * Lifetime: everything lives in the caller's struct. */
#ifndef ETWCAP_FAKE_CONSUMER_H
#define ETWCAP_FAKE_CONSUMER_H

#include "etw/etl/etl_reader.h"
#include "etw/event/etw_event_record.h"
#include "etw/plan/plan.h"
#include "etw/session/consumer.h"
#include "src/capture/collection_env.h"

#include <stdint.h>

struct fake_consumer {
  struct consumer c;       /* hand &c (collection_env.consumer) */
  const char *sample;      /* the trace to deliver; NULL: nothing */
  const struct collection_env *env; /* the clock the trace is moved to */
  int fail_open;           /* ETWCAP_E_* to answer at open, or 0 */
  unsigned opens, closes, deliveries; /* deliveries: opens that delivered the trace */
  unsigned deliver_times;  /* deliver the trace only at the first N opens (0: every) */
  char session[PLAN_NAME_MAX]; /* the last session opened */
  int64_t shift;           /* added to the trace's times at the last open */
  uint64_t events;         /* delivered at the last open */
};

void fake_consumer_init(struct fake_consumer *f);

/* An etw_event of a trace as the fields of the EVENT_RECORD real-time ETW
 * would deliver for it (ext points to `ext`, which must hold
 * ETW_EVENT_MAX_EXT): EVENT_HEADER events as they are, classic kernel
 * process, thread and image events with CLASSIC_HEADER and their task
 * GUID.  0 for the others (other kernel groups, messages): skip them. */
int fake_record_fields(const struct etw_event *ev, struct etw_record_fields *f,
                       struct etw_record_ext *ext);

/* Calls fn for every event of `path` (every ETL of a zip) in time order
 * with the trace's clock; 0 or ETWCAP_E_*. */
typedef int (*fake_trace_fn)(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                             const struct etl_clock *clock);
int fake_trace_foreach(const char *path, fake_trace_fn fn, void *ctx);

#endif
