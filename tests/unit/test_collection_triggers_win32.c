/* collect /StopOnGen2GC end to end in the Windows build, under Wine, with
 * only advapi32 faked: the real controller_win32 (its StartTraceW,
 * EnableTraceEx2 and ControlTraceW calls recorded and contract-checked by
 * fake_advapi32) and the real consumer_win32 (its OpenTraceW/ProcessTrace
 * fed the gcevents sample by fake_consumer_win32, on its own thread), the
 * collection's clock virtual.  Proves the trigger session is started as a
 * real-time session with a 1 s flush timer and exactly the CLR GC keyword
 * at Informational, that the fire is at the recorded GC, and that the
 * trigger session is stopped with the others before the merge. */
#include "tests/fakes/test_support.h"

#include "etw/session/controller.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/capture_cmd.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/os/console.h"
#include "tests/fakes/fake_advapi32_win32.h"
#include "tests/fakes/fake_consumer.h"
#include "tests/fakes/fake_consumer_win32.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/log_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"
#define SEC INT64_C(10000000)
#define T0 INT64_C(133232283966946549) /* fake_env's clock at 0 ms */

static struct log_capture logged;

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct scan {
  int64_t first_ft, gen2_ft, base;
  uint64_t freq;
  int have_first, have_gen2;
};

static int scan(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                const struct etl_clock *clock)
{
  struct scan *s = ctx;
  struct etw_guid clr;
  int64_t ft = etl_clock_filetime(clock, ev->timestamp);
  guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &clr);
  if (!s->have_first) {
    s->have_first = 1;
    s->first_ft = ft;
    s->base = clock->base;
    s->freq = (uint64_t)lf->perf_freq;
  }
  if (!s->have_gen2 && (ev->has & ETW_HAS_DESCRIPTOR) && guid_equal(&ev->provider, &clr) &&
      ev->id == 1 && ev->version >= 1 && ev->user_len >= 16 && le32(ev->user_data + 4) >= 2 &&
      le32(ev->user_data + 12) != 1) {
    s->have_gen2 = 1;
    s->gen2_ft = ft;
  }
  return 0;
}

/* The virtual clock waits for the consumer's thread to deliver the trace,
 * so the number of wait-loop turns (and of recorded calls) does not depend
 * on how the threads are scheduled. */
static void wait_for_delivery(void *ctx, uint64_t now_ms)
{
  int i;
  (void)ctx, (void)now_ms;
  for (i = 0; i < 10000 && fake_rt.opens && !fake_rt.finished; i++)
    Sleep(1);
}

static void remove_outputs(const char *data)
{
  static const char *const suffixes[] = { "", ".zip", SESSION_RECORD_SUFFIX,
                                          SESSION_REQUEST_SUFFIX, NULL };
  char path[700];
  size_t i, len = strlen(data);
  for (i = 0; suffixes[i]; i++) {
    snprintf(path, sizeof(path), "%s%s", data, suffixes[i]);
    os_remove(path);
  }
  snprintf(path, sizeof(path), "%.*s.kernel.etl", (int)(len - 4), data);
  os_remove(path);
  snprintf(path, sizeof(path), "%.*s.clrRundown.etl", (int)(len - 4), data);
  os_remove(path);
}

static void gen2_collect_through_advapi32(void **state)
{
  static struct fake_clock clock;
  struct controller ctl;
  struct collection_env env;
  struct scan s;
  struct cli cli;
  char sample[1024], data[512], zip[600], tname[64];
  char *argv[] = { "etwcap", "collect", data, "/StopOnGen2GC", "/DelayAfterTriggerSec:1", NULL };
  unsigned long pid;
  int64_t created;
  size_t i, trigger_starts = 0, trigger_enables = 0, trigger_stops = 0;
  int rc;
  (void)state;
  if (!test_sample_path(GC_SAMPLE, sample, sizeof(sample)))
    skip();
  memset(&s, 0, sizeof(s));
  assert_int_equal(fake_trace_foreach(sample, scan, &s), 0);
  assert_true(s.have_gen2);

  test_tmp_path("trigwin.etl", data, sizeof(data));
  remove_outputs(data);
  fake_advapi32_install(NULL);
  fake_consumer_win32_install();
  /* The trace's first event one second after the collection starts. */
  fake_rt.sample = sample;
  fake_rt.perf_freq = s.freq;
  fake_rt.clock_ft = T0 + SEC - (s.first_ft - s.base);
  memset(&clock, 0, sizeof(clock));
  clock.on_sleep = wait_for_delivery;
  controller_system(&ctl);
  fake_env_init(&env, &ctl, &clock);
  session_record_self(&pid, &created);
  snprintf(tname, sizeof(tname), "etwcapTrigger_%lu", pid);
  memset(&logged, 0, sizeof(logged));
  log_add_sink(log_capture_sink, &logged, LOG_DEBUG);
  console_open();
  console_close();

  assert_int_equal(cli_parse(&cli, 5, argv), 0);
  rc = capture_cmd_collect(&cli, &env);
  cli_release(&cli);
  log_remove_sink(log_capture_sink, &logged);
  if (rc)
    fail_msg("collect failed (%d); log:\n%s", rc, logged.text);

  for (i = 0; i < fake_advapi32_violation_count(); i++)
    print_error("violation: %s\n", fake_advapi32_violation(i));
  assert_int_equal(fake_advapi32_violation_count(), 0);
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (strcmp(c->name, tname) != 0)
      continue;
    if (c->api == FAKE_START_TRACE) {
      trigger_starts++;
      assert_true(c->log_file_mode & EVENT_TRACE_REAL_TIME_MODE);
      assert_int_equal(c->log_file_name_offset, 0);
      assert_int_equal(c->flush_timer, 1);
    } else if (c->api == FAKE_CONTROL_TRACE && c->control_code == EVENT_TRACE_CONTROL_STOP) {
      trigger_stops++;
    }
  }
  /* EnableTraceEx2 names no session: the calls right after its start. */
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    static const GUID clr = { 0xe13c0d23, 0xccbc, 0x4e12,
                              { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
    if (c->api == FAKE_ENABLE_TRACE_EX2 && c->any == 0x1 && c->level == 4 &&
        !memcmp(&c->provider, &clr, sizeof(clr)))
      trigger_enables++;
  }
  assert_int_equal(trigger_starts, 1);
  assert_int_equal(trigger_stops, 1);
  assert_int_equal(trigger_enables, 1);
  assert_int_equal(fake_advapi32_running(), 0);
  /* The consumer: opened on the trigger session, on its own thread. */
  assert_true(fake_rt.callback_is_ours);
  assert_int_equal(fake_rt.opens, 1);
  assert_int_equal(fake_rt.closes, 1);
  assert_int_equal(fake_rt.violations, 0);
  assert_true(fake_rt.delivered > 0);
  assert_true(fake_rt.thread != GetCurrentThreadId());
  /* Fired at the GC, on the collection's clock, as the manifest says. */
  assert_non_null(strstr(logged.text, "trigger session: "));
  snprintf(zip, sizeof(zip), "%s.zip", data);
  assert_int_equal(os_file_size(zip, &created), 0);
  test_assert_fired_at(zip, "StopOnGen2GC", s.gen2_ft - s.base + fake_rt.clock_ft);
  fake_consumer_win32_uninstall();
  fake_advapi32_uninstall();
  remove_outputs(data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(gen2_collect_through_advapi32),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
