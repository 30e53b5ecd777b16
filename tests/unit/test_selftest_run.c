/* `etwcap selftest` as a whole, against the fake controller, a fake
 * consumer that delivers nothing and a fake of the workload's OS side, on
 * virtual clocks: it must end with FAIL lines for what cannot hold and
 * its closing line, never claim success; its session names and `abort`'s
 * respect for a running selftest; and the workload's order of steps. */
#include "tests/fakes/test_support.h"

#include "etw/event/tracelogging.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/capture_cmd.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/selftest/selftest_checks.h"
#include "src/selftest/selftest_run.h"
#include "src/selftest/selftest_workload.h"
#include "tests/fakes/fake_consumer.h"
#include "tests/fakes/fake_controller.h"

#include <stdio.h>
#include <string.h>

/* --- a fake of the workload's OS side ------------------------------------------ */

struct fake_os {
  char steps[512];       /* "event:SelftestStep:1 child dll ..." */
  int child_rc, dll_rc;
  unsigned bad_meta;     /* events whose metadata etwcap's decoder refused */
};

static void step(struct fake_os *f, const char *text)
{
  size_t n = strlen(f->steps);
  snprintf(f->steps + n, sizeof(f->steps) - n, "%s%s", n ? " " : "", text);
}

static int os_child(void *ctx, uint32_t *pid, int *exit_code, char *why, size_t why_size)
{
  struct fake_os *f = ctx;
  step(f, "child");
  *pid = 777;
  *exit_code = 0;
  snprintf(why, why_size, "scripted");
  return f->child_rc;
}

static int os_dotnet(void *ctx, uint32_t *pid, char *what, size_t what_size, char *why,
                     size_t why_size)
{
  step(ctx, "dotnet");
  *pid = 778;
  snprintf(what, what_size, "Windows PowerShell");
  snprintf(why, why_size, "scripted");
  return 0;
}

static void os_stop_dotnet(void *ctx)
{
  step(ctx, "stop_dotnet");
}

static int os_dll(void *ctx, char *path, size_t path_size, char *why, size_t why_size)
{
  struct fake_os *f = ctx;
  step(f, "dll");
  snprintf(path, path_size, "C:\\Windows\\System32\\version.dll");
  snprintf(why, why_size, "scripted");
  return f->dll_rc;
}

static int os_threads(void *ctx, unsigned rounds, unsigned spin_ms,
                      struct selftest_spin *spin)
{
  (void)rounds;
  (void)spin_ms;
  spin->tid = 4243;
  spin->cpu_known = 1;
  spin->cpu_100ns = 3000000;
  step(ctx, "threads");
  return 0;
}

static int os_register(void *ctx, const struct etw_guid *provider)
{
  (void)provider;
  step(ctx, "register");
  return 0;
}

static int os_write(void *ctx, const struct selftest_tl_event *e)
{
  struct fake_os *f = ctx;
  struct tl_meta m;
  struct tv_value v;
  char text[64], buf[TV_SHORT_TEXT_MAX];
  if (tl_parse_bytes(e->meta, e->meta_len, &m) != 1 ||
      tl_find(&m, e->payload, e->payload_len, 8, "Seq", &v) != 1) {
    f->bad_meta++;
    return 0;
  }
  snprintf(text, sizeof(text), "%.30s:%.20s", m.name, tv_text(&v, buf));
  step(f, text);
  return 0;
}

static void os_unregister(void *ctx)
{
  step(ctx, "unregister");
}

static void fake_os_init(struct selftest_os *os, struct fake_os *f)
{
  memset(f, 0, sizeof(*f));
  os->ctx = f;
  os->run_child = os_child;
  os->start_dotnet = os_dotnet;
  os->stop_dotnet = os_stop_dotnet;
  os->load_dll = os_dll;
  os->switch_threads = os_threads;
  os->tl_register = os_register;
  os->tl_write = os_write;
  os->tl_unregister = os_unregister;
}

/* --- names ----------------------------------------------------------------------- */

static void selftest_sessions_are_named_for_their_process(void **state)
{
  unsigned long pid = 0;
  (void)state;
  assert_int_equal(selftest_session_owner("etwcapSelftest_4242Kernel", &pid), 1);
  assert_int_equal(pid, 4242);
  assert_int_equal(selftest_session_owner("ETWCAPSELFTEST_17", &pid), 1);
  assert_int_equal(pid, 17);
  assert_int_equal(selftest_session_owner("etwcapSelftest_Kernel", &pid), 0);
  assert_int_equal(selftest_session_owner("etwcapKernel", &pid), 0);
}

static void the_check_listing_has_one_line_per_check(void **state)
{
  char text[4096], line[256];
  FILE *f = tmpfile();
  size_t i, n;
  (void)state;
  assert_non_null(f);
  selftest_print_checks(f);
  rewind(f);
  n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = '\0';
  fclose(f);
  for (i = 0; i < selftest_check_count; i++) {
    snprintf(line, sizeof(line), "  %s  %s\n", selftest_checks[i].name, selftest_checks[i].what);
    assert_non_null(strstr(text, line));
  }
}

/* --- the workload ------------------------------------------------------------------ */

struct clocked {
  struct fake_controller fake;
  struct fake_clock clock;
  struct collection_env env;
};

static void the_workload_writes_each_step_between_its_actions(void **state)
{
  static struct clocked k;
  struct plan_session ps;
  struct selftest_workload w;
  struct selftest_workload_report r;
  struct selftest_os os;
  struct fake_os f;
  uint64_t handle;
  (void)state;
  memset(&k, 0, sizeof(k));
  fake_controller_init(&k.fake);
  fake_env_init(&k.env, &k.fake.ctl, &k.clock);
  memset(&ps, 0, sizeof(ps));
  snprintf(ps.name, sizeof(ps.name), "etwcapSelftest_1Trigger_1");
  ps.log_file_mode = PLAN_REAL_TIME_MODE;
  assert_int_equal(k.fake.ctl.ops->start(&k.fake.ctl, &ps, &handle, NULL, 0), 0);
  fake_os_init(&os, &f);
  selftest_workload_init(&w, &os, &k.env, "etwcapSelftest_1Trigger_1", 1);
  selftest_workload_run(&w);
  selftest_workload_join(&w, &r);
  assert_int_equal(f.bad_meta, 0);
  assert_string_equal(f.steps, "register SelftestStep:1 dotnet child SelftestStep:2 dll "
                               "SelftestStep:3 threads SelftestStep:4 SelftestStep:5 "
                               "SelftestStop:6 unregister");
  assert_int_equal(r.dotnet_pid, 778);
  assert_int_equal(r.dotnet_rc, 0);
  assert_int_equal(r.ran, 1);
  assert_int_equal(r.events_written, SELFTEST_TL_STEPS + 1);
  assert_int_equal(r.child_pid, 777);
  assert_int_equal(r.child_rc, 0);
}

static void a_workload_whose_session_never_runs_gives_up_and_says_why(void **state)
{
  static struct clocked k;
  struct selftest_workload w;
  struct selftest_workload_report r;
  struct selftest_os os;
  struct fake_os f;
  (void)state;
  memset(&k, 0, sizeof(k));
  fake_controller_init(&k.fake);
  fake_env_init(&k.env, &k.fake.ctl, &k.clock);
  fake_os_init(&os, &f);
  selftest_workload_init(&w, &os, &k.env, "etwcapSelftest_1Trigger_1", 1);
  selftest_workload_run(&w);
  selftest_workload_join(&w, &r);
  assert_int_equal(r.ran, 0);
  assert_string_equal(f.steps, "");
  assert_int_equal(r.child_rc, ETWCAP_E_NO_SESSION);
  assert_true(k.clock.now_ms >= SELFTEST_WORKLOAD_WAIT_MS);
  assert_non_null(strstr(r.why, "'etwcapSelftest_1Trigger_1' did not run within 30 s"));
}

/* --- abort and a running selftest -------------------------------------------------- */

static int run_abort(struct clocked *k, const char *session_name)
{
  char qualifier[PLAN_NAME_MAX + 16];
  char *argv[] = { (char *)"etwcap", (char *)"abort", qualifier, NULL };
  struct cli cli;
  int rc;
  snprintf(qualifier, sizeof(qualifier), "/SessionName:%s", session_name ? session_name : "");
  assert_int_equal(cli_parse(&cli, session_name ? 3 : 2, argv), 0);
  rc = capture_cmd_abort(&cli, &k->env);
  cli_release(&cli);
  return rc;
}

static void abort_leaves_a_running_selftest_alone_and_clears_a_dead_ones(void **state)
{
  static struct clocked k;
  unsigned long me;
  int64_t created;
  char mine[PLAN_NAME_MAX], dead[PLAN_NAME_MAX];
  (void)state;
  memset(&k, 0, sizeof(k));
  fake_controller_init(&k.fake);
  fake_env_init(&k.env, &k.fake.ctl, &k.clock);
  session_record_self(&me, &created);
  snprintf(mine, sizeof(mine), "etwcapSelftest_%luKernel", me);
  /* A pid no system hands out (Linux's pid_max is at most 2^22; Windows'
   * are multiples of 4). */
  snprintf(dead, sizeof(dead), "etwcapSelftest_%luKernel", 99999999ul);
  fake_controller_add_foreign(&k.fake, mine);
  fake_controller_add_foreign(&k.fake, dead);
  assert_int_equal(run_abort(&k, NULL), 0);
  assert_true(fake_controller_is_running(&k.fake, mine));
  assert_false(fake_controller_is_running(&k.fake, dead));
  /* Named outright, as /SessionName's prefix, it is still spared. */
  snprintf(mine, sizeof(mine), "etwcapSelftest_%lu", me);
  assert_int_equal(run_abort(&k, mine), 0);
  snprintf(mine, sizeof(mine), "etwcapSelftest_%luKernel", me);
  assert_true(fake_controller_is_running(&k.fake, mine));
}

/* --- the whole selftest on fakes ----------------------------------------------------- */

static void a_selftest_that_captures_nothing_fails_and_says_where(void **state)
{
  static struct clocked capture, work;
  static struct fake_consumer consumer;
  struct selftest_config cfg;
  struct selftest_os os;
  struct fake_os f;
  char dir[512], path[600], out[16384], last[128];
  FILE *o = tmpfile();
  size_t n, i;
  int rc;
  (void)state;
  assert_non_null(o);
  memset(&capture, 0, sizeof(capture));
  memset(&work, 0, sizeof(work));
  fake_controller_init(&capture.fake);
  fake_env_init(&capture.env, &capture.fake.ctl, &capture.clock);
  fake_consumer_init(&consumer); /* delivers nothing: the trigger never fires */
  consumer.env = &capture.env;
  capture.env.consumer = &consumer.c;
  fake_controller_init(&work.fake); /* sees no session: the workload gives up */
  fake_env_init(&work.env, &work.fake.ctl, &work.clock);
  fake_os_init(&os, &f);
  test_tmp_path("selftest-x", dir, sizeof(dir));
  dir[strlen(dir) - strlen("selftest-x")] = '\0';
  memset(&cfg, 0, sizeof(cfg));
  cfg.env = &capture.env;
  cfg.work_env = &work.env;
  cfg.os = &os;
  cfg.pid = 4242;
  cfg.dir = dir;
  cfg.out = o;
  rc = selftest_run(&cfg);
  rewind(o);
  n = fread(out, 1, sizeof(out) - 1, o);
  out[n] = '\0';
  fclose(o);
  assert_int_equal(rc, ETWCAP_E_SYSTEM);
  /* Every check has its line, by name. */
  for (i = 0; i < selftest_check_count; i++) {
    char pass[64], fail[64], skip[64];
    snprintf(pass, sizeof(pass), "PASS %s ", selftest_checks[i].name);
    snprintf(fail, sizeof(fail), "FAIL %s ", selftest_checks[i].name);
    snprintf(skip, sizeof(skip), "SKIP %s ", selftest_checks[i].name);
    assert_true(strstr(out, pass) || strstr(out, fail) || strstr(out, skip));
  }
  assert_non_null(strstr(out, "FAIL TRIGGER "));
  assert_non_null(strstr(out, "FAIL PROCESS "));
  assert_non_null(strstr(out, "FAIL OWN_EVENTS "));
  assert_non_null(strstr(out, "PASS NO_SESSIONS_LEFT "));
  assert_non_null(strstr(out, "FAIL DOTNET_CHILD "));
  /* The phases ran on the virtual clock: the snapshot's helper never saw
   * its session (the workload's controller sees none), so no snapshot;
   * the segments rotated (their verdict is the fake's files'); the routes
   * found the selftest's budget spent by the 40 s the main capture waited
   * for a trigger that could not fire, and say so. */
  assert_non_null(strstr(out, "FAIL SNAPSHOT "));
  assert_non_null(strstr(out, " SEGMENTS "));
  assert_non_null(strstr(out, "FAIL ROUTES "));
  assert_non_null(strstr(out, "of the selftest's 110 s are left"));
  assert_non_null(strstr(out, "ROUTES census"));
  assert_true(strstr(out, "ROUTES census") < strstr(out, " CAPTURE "));
  assert_non_null(strstr(f.steps, "stop_dotnet")); /* whatever the workload did */
  /* The closing line is the last. */
  assert_true(n > 2);
  for (i = n - 1; i > 0 && out[i - 1] != '\n'; i--)
    ;
  snprintf(last, sizeof(last), "%.120s", out + i);
  assert_non_null(strstr(last, "selftest: "));
  assert_non_null(strstr(last, " failed"));
  assert_null(strstr(last, " 0 failed"));
  snprintf(path, sizeof(path), "%s%s", dir, SELFTEST_REPORT_FILE);
  {
    int64_t size = 0;
    assert_int_equal(os_file_size(path, &size), 0);
    assert_true(size > 0);
  }
  os_remove(path);
  snprintf(path, sizeof(path), "%s%s", dir, SELFTEST_ZIP_FILE);
  os_remove(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(selftest_sessions_are_named_for_their_process),
    cmocka_unit_test(the_check_listing_has_one_line_per_check),
    cmocka_unit_test(the_workload_writes_each_step_between_its_actions),
    cmocka_unit_test(a_workload_whose_session_never_runs_gives_up_and_says_why),
    cmocka_unit_test(abort_leaves_a_running_selftest_alone_and_clears_a_dead_ones),
    cmocka_unit_test(a_selftest_that_captures_nothing_fails_and_says_where),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
