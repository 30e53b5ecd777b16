/* Replay over traces whose logfile header gives a clock no real trace has:
 * a start time at the end of the int64 range, a QPC frequency of 1 Hz with
 * a huge timestamp.  Each must be refused with a message naming the file,
 * never overflow (the unit tests run under UBSan) nor replay at a garbage
 * time; a sane clock next to them still replays. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_writer.h"
#include "src/base/error.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_replay.h"

#include <stdio.h>
#include <string.h>

/* 2024-01-01T00:00:00Z as a FILETIME. */
#define FT_2024 INT64_C(133485408000000000)

/* Writes a 32-bit trace with the given clock and one classic event at raw
 * time `ts` (the record layout of test_etl_merge.c's x86 sessions). */
static void write_trace(const char *path, uint32_t clock, int64_t perf_freq, int64_t start_time,
                        uint64_t ts)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  uint8_t ev[0x38];
  memset(&cfg, 0, sizeof(cfg));
  cfg.header.pointer_size = 4;
  cfg.header.os_major = 6;
  cfg.header.os_minor = 1;
  cfg.header.build = 7601;
  cfg.header.perf_freq = perf_freq;
  cfg.header.clock_type = clock;
  cfg.header.start_time = start_time;
  cfg.header.end_time = start_time;
  cfg.header.header_timestamp = 0;
  cfg.header.cpus = 1;
  snprintf(cfg.header.logger_name, sizeof(cfg.header.logger_name), "clock");
  remove(path); /* the writer creates a new file only */
  assert_int_equal(etl_writer_open(&w, path, &cfg), 0);
  memset(ev, 0, sizeof(ev));
  ev[0] = sizeof(ev);
  ev[2] = 0x0A; /* FULL_HEADER32 */
  ev[3] = 0xC0;
  memcpy(ev + 0x10, &ts, 8);
  assert_int_equal(etl_writer_write(w, 0, ts, ev, sizeof(ev)), 0);
  assert_int_equal(etl_writer_finish(w), 0);
}

static int replay(const char *path, char *err, size_t cap, struct trigger_replay_stats *st)
{
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  int rc;
  trigger_options_init(&o);
  o.stop_on_exception = "never";
  assert_int_equal(trigger_engine_create(&e, &o, err, cap), 0);
  rc = trigger_replay_run(path, e, 0, NULL, NULL, st, err, cap);
  trigger_engine_free(e);
  return rc;
}

static void out_of_range_clocks_are_refused(void **state)
{
  static const struct {
    uint32_t clock;
    int64_t perf_freq, start_time;
    uint64_t ts;
    const char *words;
  } cases[] = {
    /* System time (10 MHz): the start time plus the timestamp passes INT64_MAX. */
    { ETL_CLOCK_SYSTEM_TIME, 0, INT64_MAX - 5, 1000, "after 9999" },
    /* QPC at 10 MHz, the same in the other branch of the sum. */
    { ETL_CLOCK_QPC, 10000000, INT64_MAX, UINT64_C(1) << 40, "after 9999" },
    /* QPC at 1 Hz: 10^7 ticks of 100 ns per tick, times 2^62 ticks. */
    { ETL_CLOCK_QPC, 1, FT_2024, UINT64_C(1) << 62, "after 9999" },
    /* A start time before 1601. */
    { ETL_CLOCK_SYSTEM_TIME, 0, INT64_MIN + 10, 1000, "before 1601" },
  };
  char path[512], err[1024];
  struct trigger_replay_stats st;
  size_t i;
  (void)state;
  test_tmp_path("replay-clock.etl", path, sizeof(path));
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int rc;
    write_trace(path, cases[i].clock, cases[i].perf_freq, cases[i].start_time, cases[i].ts);
    rc = replay(path, err, sizeof(err), &st);
    if (rc != ETWCAP_E_CORRUPT || !strstr(err, "replay-clock.etl") ||
        !strstr(err, cases[i].words) || !strstr(err, "logfile header"))
      fail_msg("case %lu: rc %d, '%s'", (unsigned long)i, rc, err);
  }
  remove(path);
}

static void a_sane_clock_replays(void **state)
{
  char path[512], err[1024];
  struct trigger_replay_stats st;
  (void)state;
  test_tmp_path("replay-clock-ok.etl", path, sizeof(path));
  write_trace(path, ETL_CLOCK_QPC, 1, FT_2024, 3); /* 1 Hz, 3 s in */
  if (replay(path, err, sizeof(err), &st) != 0)
    fail_msg("%s", err);
  assert_int_equal(st.events, 2); /* the logfile header's event at raw 0, then ours */
  assert_int_equal(st.first_ft, FT_2024);
  assert_int_equal(st.last_ft, FT_2024 + 30000000);
  remove(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(out_of_range_clocks_are_refused),
    cmocka_unit_test(a_sane_clock_replays),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
