/* Replay benchmark (the triggers issue): the same trace read twice in the
 * same run, first as plain time-order iteration (the reader's cost), then
 * replayed through the trigger engine with a GC trigger and an exception
 * trigger that never fire (so every event is looked at), and prints events/s,
 * MB/s and the ratio of the two (the goal: triggers cost at most 20% more),
 * the best of three alternating runs of each.
 *
 * Usage: bench_replay FILE.etl [GC_MSEC] [EXCEPTION_REGEX] */
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_replay.h"

#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

static double seconds_since(uint64_t t0)
{
  return (double)(os_time_monotonic_ns() - t0) / 1e9;
}

static int iterate(const char *path, uint64_t *events)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  uint64_t sum = 0;
  int rc;
  if (byte_source_open_file(&io, path) != 0)
    return -1;
  rc = etl_reader_open(&r, &io, path);
  if (!rc)
    rc = etl_timeorder_open(&t, r);
  *events = 0;
  while (!rc && (rc = etl_timeorder_next(t, &ev)) > 0) {
    (*events)++;
    sum += ev.timestamp ^ ev.user_len; /* use the decoded fields */
    rc = 0;
  }
  if (rc < 0)
    fprintf(stderr, "bench_replay: %s\n", etl_reader_error(r));
  etl_timeorder_free(t);
  etl_reader_free(r);
  byte_source_close(&io);
  if (sum == 42)
    fputc(' ', stderr);
  return rc < 0 ? rc : 0;
}

int main(int argc, char **argv)
{
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  struct trigger_replay_stats st;
  char err[1024];
  int64_t size = 0;
  uint64_t t0, plain_events = 0;
  int round;
  double plain_s, replay_s, mb;
  if (argc < 2) {
    fprintf(stderr, "usage: bench_replay FILE.etl [GC_MSEC] [EXCEPTION_REGEX]\n");
    return 2;
  }
  if (os_file_size(argv[1], &size) != 0) {
    fprintf(stderr, "bench_replay: cannot stat %s\n", argv[1]);
    return 1;
  }
  mb = (double)size / 1048576.0;

  trigger_options_init(&o);
  o.stop_on_gc_over_msec = argc > 2 ? atoi(argv[2]) : 100000;
  o.stop_on_exception = argc > 3 ? argv[3] : "NoSuchExceptionInThisTrace";
  /* Alternating runs, the best of each: the page cache and a shared
   * machine make single runs noisy. */
  plain_s = replay_s = 1e30;
  for (round = 0; round < ROUNDS; round++) {
    double s;
    t0 = os_time_monotonic_ns();
    if (iterate(argv[1], &plain_events) != 0)
      return 1;
    s = seconds_since(t0);
    if (s < plain_s)
      plain_s = s;
    trigger_engine_free(e);
    e = NULL;
    if (trigger_engine_create(&e, &o, err, sizeof(err)) != 0) {
      fprintf(stderr, "bench_replay: %s\n", err);
      return 1;
    }
    t0 = os_time_monotonic_ns();
    if (trigger_replay_run(argv[1], e, 0, NULL, NULL, &st, err, sizeof(err)) != 0) {
      fprintf(stderr, "bench_replay: %s\n", err);
      return 1;
    }
    s = seconds_since(t0);
    if (s < replay_s)
      replay_s = s;
  }

  printf("trace: %s, %.1f MB, %llu events\n", argv[1], mb, (unsigned long long)plain_events);
  printf("best of %d alternating runs each\n", ROUNDS);
  printf("plain time-order iteration: %.2f s, %.0f events/s, %.1f MB/s\n", plain_s,
         (double)plain_events / plain_s, mb / plain_s);
  printf("replay with /StopOnGCOverMsec:%lld /StopOnException:%s: %.2f s, %.0f events/s, "
         "%.1f MB/s, %lu fire(s)%s\n",
         (long long)o.stop_on_gc_over_msec, o.stop_on_exception, replay_s,
         (double)st.events / replay_s, mb / replay_s,
         (unsigned long)trigger_engine_fire_count(e),
         st.stopped_early ? " (stopped early)" : "");
  printf("ratio replay/plain: %.3f (triggers cost %+.1f%%)\n", replay_s / plain_s,
         (replay_s / plain_s - 1.0) * 100.0);
  trigger_engine_free(e);
  return 0;
}
