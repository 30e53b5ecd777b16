/* Replay: the trigger engine over a recorded trace on the trace's own
 * clock.  Every .etl of the path (the file, or each .etl member of a zip)
 * is read in global time order and the files are merged by UTC time, so an
 * unmerged capture (user + kernel + rundown files) replays like the merged
 * one.  The virtual time is each event's timestamp; after the last event
 * the clock runs on to the end of the counter log, if that is later, so
 * counter polls and delays after a fire complete.  Library code: it neither
 * prints nor exits; fires go to the callback and to the engine's record. */
#ifndef ETWCAP_TRIGGER_REPLAY_H
#define ETWCAP_TRIGGER_REPLAY_H

#include "etw/etl/etl_clock.h"
#include "triggers/trigger_engine.h"

#include <stddef.h>
#include <stdint.h>

struct trigger_replay_stats {
  uint64_t events;     /* events handed to the engine */
  uint64_t bytes;      /* size of the trace file */
  unsigned files;      /* ETLs merged */
  int64_t first_ft, last_ft;
  int stopped_early;   /* the engine was done before the trace ended */
};

/* Replays `path` into e (trigger_engine_start is called at the first
 * event).  Timer fires (counters, MaxCollectSec) get a raw timestamp
 * computed back from their UTC time on the first file's clock.
 * `run_until` extends the virtual clock past the last event (0: no).
 * Returns 0 or an error with a message naming the file. */
int trigger_replay_run(const char *path, struct trigger_engine *e, int64_t run_until,
                       trigger_fire_fn on_fire, void *ctx, struct trigger_replay_stats *stats,
                       char *err, size_t cap);

/* The smallest raw timestamp whose UTC time (on clock c) is at or after ft. */
uint64_t trigger_replay_raw_at(const struct etl_clock *c, int64_t ft);

#endif
