/* Rundown at stop on a virtual clock: the passes and their keywords as
 * PerfView enables them (docs/perfview-collection.md §4.4: loader pass
 * 0x108, 500 ms, method pass 0x1080060111; minimal 0x1000000101), and the
 * wait until the file stops growing, bounded by /MinRundownTime and
 * /RundownTimeout (§7 step 4). */
#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/capture/rundown.h"
#include "tests/fakes/fake_controller.h"

#include <stdio.h>
#include <string.h>

/* The CLR rundown provider, Microsoft-Windows-DotNETRuntimeRundown. */
static const struct etw_guid clr_rundown = {
  0xa669021c, 0xc450, 0x4609, { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 }
};
/* The PerfView EventSource (its events mark the rundown in PerfView's traces). */
static const struct etw_guid perfview = {
  0xa8a71ac1, 0x040f, 0x54a2, { 0x07, 0xca, 0x00, 0xa8, 0x9b, 0x5a, 0xb7, 0x61 }
};

struct script {
  struct fake_controller fake;
  struct fake_clock clock;
  struct collection_env env;
  struct plan plan;
  const struct plan_session *rundown;
  /* file size: grows by `step` each second until `grow_until_ms`, from 0 */
  int64_t step;
  uint64_t grow_until_ms;
  int64_t stable_size; /* once growth ends (0 = keep the last) */
  uint64_t enable_at[16];
  size_t enables;
  unsigned cut_after_polls, polls;
};

static int scripted_size(void *ctx, const char *path, int64_t *size)
{
  struct script *s = ctx;
  uint64_t t = s->clock.now_ms < s->grow_until_ms ? s->clock.now_ms : s->grow_until_ms;
  (void)path;
  *size = s->step * (int64_t)(t / 1000);
  if (s->clock.now_ms >= s->grow_until_ms && s->stable_size)
    *size = s->stable_size;
  return 0;
}

static void note_enable(void *ctx, const char *op, const char *session)
{
  struct script *s = ctx;
  (void)session;
  if (!strcmp(op, "enable") && s->enables < 16)
    s->enable_at[s->enables++] = s->clock.now_ms;
}

static void setup_plan(struct script *s, int no_rundown, int in_memory, int64_t timeout,
                       int64_t min_sec)
{
  struct plan_options o;
  size_t i;
  plan_options_init(&o);
  o.data_file = "rd.etl";
  o.no_rundown = no_rundown;
  o.rundown_timeout_sec = timeout;
  o.min_rundown_sec = min_sec;
  if (in_memory) {
    o.in_memory = 1;
    o.circular_mb = 100;
  }
  assert_int_equal(plan_build(&o, &s->plan), 0);
  s->rundown = NULL;
  for (i = 0; i < s->plan.session_count; i++)
    if (s->plan.sessions[i].role == (in_memory ? PLAN_ROLE_KERNEL_RUNDOWN : PLAN_ROLE_RUNDOWN))
      s->rundown = &s->plan.sessions[i];
  assert_non_null(s->rundown);
}

static struct script *new_script(void)
{
  static struct script s;
  memset(&s, 0, sizeof(s));
  fake_controller_init(&s.fake);
  s.fake.write_files = 0;
  s.fake.before = note_enable;
  s.fake.before_ctx = &s;
  fake_env_init(&s.env, &s.fake.ctl, &s.clock);
  s.env.ctx = &s.clock; /* the clock functions read it */
  s.env.file_size = NULL;
  return &s;
}

/* file_size gets the script, the clock functions the clock: a wrapper env. */
static struct script *current;

static int size_of_current(void *ctx, const char *path, int64_t *size)
{
  (void)ctx;
  return scripted_size(current, path, size);
}

static void ready(struct script *s)
{
  current = s;
  s->env.file_size = size_of_current;
}

static int cut_after(void *ctx)
{
  struct script *s = ctx;
  return ++s->polls >= s->cut_after_polls;
}

static void passes_and_keywords_are_perfviews(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  size_t i, clr = 0;
  (void)state;
  setup_plan(s, 0, 0, 120, 0);
  s->step = 65536;
  s->grow_until_ms = 3000;
  ready(s);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  /* PerfView's provider first, then the two CLR passes, 500 ms apart. */
  assert_int_equal(fake_controller_count(&s->fake, "enable", s->rundown->name), 3);
  assert_true(guid_equal(&s->fake.calls[fake_controller_find(&s->fake, "enable", NULL, 0)].guid,
                              &perfview));
  for (i = 0; i < s->fake.call_count; i++) {
    const struct fake_call *c = &s->fake.calls[i];
    if (strcmp(c->op, "enable") || !guid_equal(&c->guid, &clr_rundown))
      continue;
    assert_int_equal(c->level, 5); /* Verbose */
    if (clr++ == 0)
      assert_int_equal(c->any, 0x108); /* Loader | ForceEndRundown */
    else
      assert_int_equal(c->any, 0x1080060111ull); /* Default - NGen - Loader */
  }
  assert_int_equal(clr, 2);
  assert_int_equal(s->enable_at[2] - s->enable_at[1], 500);
  /* Stopped once the file kept its size for a poll: grows at 1, 2, 3 s,
   * unchanged at 4 s. */
  assert_int_equal(r.waited_ms, 4000);
  assert_false(r.timed_out);
  assert_int_equal(r.file_bytes, 3 * 65536);
  assert_int_equal(fake_controller_count(&s->fake, "stop", s->rundown->name), 1);
  assert_int_equal(fake_controller_running(&s->fake), 0);
  plan_release(&s->plan);
}

static void minimal_rundown_is_one_pass(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  size_t i, clr = 0;
  (void)state;
  setup_plan(s, 1, 0, 120, 0);
  s->step = 4096;
  s->grow_until_ms = 1000;
  ready(s);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  for (i = 0; i < s->fake.call_count; i++) {
    const struct fake_call *c = &s->fake.calls[i];
    if (!strcmp(c->op, "enable") && guid_equal(&c->guid, &clr_rundown)) {
      assert_int_equal(c->any, 0x1000000101ull);
      clr++;
    }
  }
  assert_int_equal(clr, 1);
  plan_release(&s->plan);
}

static void min_rundown_time_is_waited(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 120, 10);
  s->step = 4096;
  s->grow_until_ms = 1000; /* stable from 1 s */
  ready(s);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  assert_int_equal(r.waited_ms, 10000);
  assert_false(r.timed_out);
  plan_release(&s->plan);
}

static void a_file_that_keeps_growing_times_out(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 5, 0);
  s->step = 4096;
  s->grow_until_ms = UINT64_MAX;
  ready(s);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  assert_true(r.timed_out);
  assert_int_equal(r.waited_ms, 5000);
  assert_int_equal(fake_controller_count(&s->fake, "stop", s->rundown->name), 1);
  plan_release(&s->plan);
}

/* What the wait logged, as a user reads it on the console or in LogFile.txt. */
static char logged[8192];
static size_t logged_len;

static void keep_log(void *ctx, enum log_level level, const char *line)
{
  int n;
  (void)ctx;
  n = snprintf(logged + logged_len, sizeof(logged) - logged_len, "%s %s\n",
               log_level_name(level), line);
  if (n > 0 && logged_len + (size_t)n < sizeof(logged))
    logged_len += (size_t)n;
}

static void start_log(void)
{
  logged_len = 0;
  logged[0] = '\0';
  log_add_sink(keep_log, NULL, LOG_DEBUG);
}

static void an_empty_file_never_counts_as_done(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 3, 0);
  s->step = 0;
  ready(s);
  start_log();
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  log_remove_sink(keep_log, NULL);
  assert_true(r.timed_out);
  assert_true(r.never_appeared);
  assert_int_equal(r.waited_ms, 3000);
  /* Said plainly, not as "still growing". */
  assert_non_null(strstr(logged, "never appeared"));
  assert_null(strstr(logged, "still growing"));
  plan_release(&s->plan);
}

/* A long wait says every RUNDOWN_PROGRESS_MS how far the file has come:
 * 4 KiB a second for 12 s is 20 KiB at 5 s and 40 KiB at 10 s. */
static void a_long_wait_shows_progress(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 60, 0);
  s->step = 4096;
  s->grow_until_ms = 12000;
  ready(s);
  start_log();
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  log_remove_sink(keep_log, NULL);
  assert_false(r.timed_out);
  assert_false(r.never_appeared);
  assert_non_null(strstr(logged, "to stop growing: 0.0 MB after 5 s (at most 60 s"));
  assert_non_null(strstr(logged, "after 10 s (at most 60 s"));
  assert_non_null(strstr(logged, "stopped growing"));
  plan_release(&s->plan);
}

static void a_second_ctrl_c_cuts_it_short(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 120, 0);
  s->step = 4096;
  s->grow_until_ms = UINT64_MAX;
  s->cut_after_polls = 2;
  ready(s);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, cut_after, s, &r), 0);
  assert_true(r.cut_short);
  assert_int_equal(r.waited_ms, 2000);
  assert_int_equal(fake_controller_running(&s->fake), 0);
  plan_release(&s->plan);
}

static void a_leftover_rundown_session_is_restarted(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 120, 0);
  s->step = 4096;
  s->grow_until_ms = 1000;
  ready(s);
  fake_controller_add_foreign(&s->fake, s->rundown->name);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  assert_int_equal(fake_controller_count(&s->fake, "start", s->rundown->name), 2);
  assert_int_equal(fake_controller_count(&s->fake, "stop", s->rundown->name), 2);
  assert_false(fake_controller_is_running(&s->fake, s->rundown->name));
  plan_release(&s->plan);
}

static void a_rundown_that_cannot_start_is_skipped(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  (void)state;
  setup_plan(s, 0, 0, 120, 0);
  ready(s);
  fake_controller_fail(&s->fake, "start", NULL, ETWCAP_E_ACCES);
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), ETWCAP_E_ACCES);
  assert_false(r.started);
  assert_int_equal(fake_controller_count(&s->fake, "enable", NULL), 0);
  assert_int_equal(s->clock.slept_ms, 0);
  plan_release(&s->plan);
}

static void a_refused_provider_is_skipped(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  struct fake_fail *f;
  (void)state;
  setup_plan(s, 0, 0, 120, 0);
  s->step = 4096;
  s->grow_until_ms = 1000;
  ready(s);
  f = fake_controller_fail(&s->fake, "enable", NULL, ETWCAP_E_SYSTEM);
  f->times = 1;
  assert_int_equal(rundown_run(&s->env, s->rundown, 2, NULL, NULL, &r), 0);
  assert_int_equal(r.providers_failed, 1);
  assert_int_equal(fake_controller_count(&s->fake, "enable", NULL), 3);
  assert_int_equal(fake_controller_running(&s->fake), 0);
  plan_release(&s->plan);
}

static void kernel_rundown_starts_and_stops_at_once(void **state)
{
  struct script *s = new_script();
  struct rundown_result r;
  size_t start, flags, stop;
  (void)state;
  setup_plan(s, 0, 1, 120, 0);
  ready(s);
  assert_int_equal(rundown_kernel(&s->env, s->rundown, &r), 0);
  start = fake_controller_find(&s->fake, "start", s->rundown->name, 0);
  /* The default (group-mask) route: EnableFlags at start, Process 0x1 |
   * Thread 0x2 | ImageLoad 0x4 (EVENT_TRACE_FLAG_*, evntrace.h; Thread as
   * TraceEvent always adds), their groups read back in Masks[0] and
   * nothing to add, so no Set and no System Provider. */
  assert_int_equal(s->fake.sessions[0].enable_flags, 0x7);
  flags = fake_controller_find(&s->fake, "query_mask", s->rundown->name, 0);
  stop = fake_controller_find(&s->fake, "stop", s->rundown->name, 0);
  assert_true(start < flags && flags < stop);
  assert_int_equal(fake_controller_count(&s->fake, "enable", NULL), 0);
  assert_int_equal(fake_controller_count(&s->fake, "kernel_flags", NULL), 0);
  assert_int_equal(s->clock.slept_ms, 0);
  plan_release(&s->plan);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(passes_and_keywords_are_perfviews),
    cmocka_unit_test(minimal_rundown_is_one_pass),
    cmocka_unit_test(min_rundown_time_is_waited),
    cmocka_unit_test(a_file_that_keeps_growing_times_out),
    cmocka_unit_test(an_empty_file_never_counts_as_done),
    cmocka_unit_test(a_long_wait_shows_progress),
    cmocka_unit_test(a_second_ctrl_c_cuts_it_short),
    cmocka_unit_test(a_leftover_rundown_session_is_restarted),
    cmocka_unit_test(a_rundown_that_cannot_start_is_skipped),
    cmocka_unit_test(a_refused_provider_is_skipped),
    cmocka_unit_test(kernel_rundown_starts_and_stops_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
