/* The life of a capture against the fake controller and a virtual clock:
 * collect, start then stop, abort, listSessions, every way a capture ends,
 * and every scripted failure — each with its exit code, its message, and
 * proof that every session we started was stopped and another tool's never
 * touched.  Runs natively and under Wine. */
#define _POSIX_C_SOURCE 200809L /* fileno, dup, dup2: listSessions' output */
#include "tests/fakes/test_support.h"

#include "tests/fakes/plan_of.h"

#include "etw/plan/plan.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/collection.h"
#include "src/capture/session_record.h"
#include "src/os/console.h"
#include "src/report/report_model.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/fake_registry.h"
#include "tests/fakes/fake_session_events.h"
#include "tests/fakes/log_capture.h"
#include "tests/fakes/run_command.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* --- fixtures ---------------------------------------------------------- */

struct world {
  struct fake_controller fake;
  struct fake_clock clock;
  struct fake_registry registry;
  struct collection_env env;
  char data[512], zip[512], record[512], request[512];
  struct log_capture log;
  /* scripted events on the virtual clock */
  uint64_t at_ms;
  enum console_signal signal;
  int key;
  const char *request_text;
  int drop_sessions;
  uint64_t free_disk_after;
  int fired;
  /* Ctrl+C at the Nth call of an op */
  const char *ctrl_c_op;
  unsigned ctrl_c_nth, ctrl_c_seen;
  /* Registry values seen by the last enable in 'etwcap' and the first stop
   * (-1: none yet), and the walks of the registry before the first stop. */
  long values_at_enable, values_at_stop;
  long walks_at_stop;
  /* run's command: what was started, when (calls made to the controller
   * by then), when it exits on the virtual clock (0: never), how it ended */
  char child_line[256];
  size_t child_started_after;
  int child_start_rc, child_running, child_killed, child_code;
  uint64_t child_exit_ms;
};

static struct world *W;

static int logged(const struct world *w, const char *text)
{
  return log_capture_has(&w->log, text);
}

static void remove_capture_files(const char *data)
{
  static const char *const suffixes[] = { "", ".zip", ".zip.tmp", ".merged.tmp",
                                          SESSION_RECORD_SUFFIX, SESSION_REQUEST_SUFFIX, NULL };
  static const char *const siblings[] = { ".kernel.etl", ".clrRundown.etl",
                                          ".kernelRundown.etl", NULL };
  char path[600], base[512];
  size_t i, len = strlen(data);
  for (i = 0; suffixes[i]; i++) {
    snprintf(path, sizeof(path), "%s%s", data, suffixes[i]);
    os_remove(path);
  }
  snprintf(base, sizeof(base), "%.*s", (int)(len - 4), data);
  for (i = 0; siblings[i]; i++) {
    snprintf(path, sizeof(path), "%s%s", base, siblings[i]);
    os_remove(path);
  }
}

static void on_sleep(void *ctx, uint64_t now)
{
  struct world *w = ctx;
  if (w->at_ms && now >= w->at_ms && !w->fired) {
    w->fired = 1;
    if (w->signal)
      console_deliver(w->signal);
    if (w->key)
      console_push_key(w->key);
    if (w->request_text)
      session_request_write(w->request, w->request_text);
    if (w->free_disk_after)
      w->clock.free_disk = w->free_disk_after;
    if (w->drop_sessions) {
      size_t i;
      for (i = 0; i < w->fake.session_count; i++)
        w->fake.sessions[i].running = 0;
    }
  }
}

static void before_call(void *ctx, const char *op, const char *session)
{
  struct world *w = ctx;
  if (w->ctrl_c_op && !strcmp(op, w->ctrl_c_op) && ++w->ctrl_c_seen == w->ctrl_c_nth)
    console_deliver(CONSOLE_CTRL_C);
  if (!strcmp(op, "enable") && session && !strcmp(session, "etwcap"))
    w->values_at_enable = (long)w->registry.count;
  if (!strcmp(op, "stop") && w->values_at_stop < 0) {
    w->values_at_stop = (long)w->registry.count;
    w->walks_at_stop = (long)w->registry.subkey_walks;
  }
}

static int setup(void **state)
{
  static struct world world;
  struct world *w = &world;
  memset(w, 0, sizeof(*w));
  fake_controller_init(&w->fake);
  w->fake.before = before_call;
  w->fake.before_ctx = w;
  w->clock.on_sleep = on_sleep;
  w->clock.on_sleep_ctx = w;
  fake_env_init(&w->env, &w->fake.ctl, &w->clock);
  fake_registry_init(&w->registry);
  w->env.registry = &w->registry.reg;
  w->values_at_enable = w->values_at_stop = w->walks_at_stop = -1;
  test_tmp_path("coll.etl", w->data, sizeof(w->data));
  snprintf(w->zip, sizeof(w->zip), "%.480s.zip", w->data);
  snprintf(w->record, sizeof(w->record), "%.480s%s", w->data, SESSION_RECORD_SUFFIX);
  snprintf(w->request, sizeof(w->request), "%.480s%s", w->data, SESSION_REQUEST_SUFFIX);
  remove_capture_files(w->data);
  log_add_sink(log_capture_sink, &w->log, LOG_DEBUG);
  console_open();
  console_close(); /* forget signals of earlier tests; the command installs it again */
  W = w;
  *state = w;
  return 0;
}

static int teardown(void **state)
{
  struct world *w = *state;
  log_remove_sink(log_capture_sink, &w->log);
  remove_capture_files(w->data);
  console_close();
  return 0;
}

/* --- run's command, scripted on the virtual clock ------------------------- */

/* The env's ctx is the clock's: the world is W. */
static int child_start(void *ctx, const char *line, void **child, char *why, unsigned why_size)
{
  struct world *w = W;
  (void)ctx;
  snprintf(w->child_line, sizeof(w->child_line), "%s", line);
  w->child_started_after = w->fake.call_count;
  if (w->child_start_rc) {
    snprintf(why, why_size, "CreateProcessW: ERROR_FILE_NOT_FOUND (2)");
    return w->child_start_rc;
  }
  w->child_running = 1;
  *child = w;
  return 0;
}

static int child_exited(void *ctx, void *child, int *exit_code)
{
  struct world *w = W;
  (void)ctx;
  assert_ptr_equal(child, w);
  if (w->child_exit_ms && w->clock.now_ms >= w->child_exit_ms)
    w->child_running = 0;
  *exit_code = w->child_code;
  return !w->child_running;
}

static void child_close(void *ctx, void *child, int kill)
{
  struct world *w = W;
  (void)ctx;
  assert_ptr_equal(child, w);
  if (kill && w->child_running)
    w->child_killed = 1;
  w->child_running = 0;
}

/* Runs a command line (the words after "etwcap") through the command
 * table in the world's environment. */
static int run(struct world *w, const char *const *args)
{
  return test_run_command(&w->env, args);
}

static int exists(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

/* Every session we started was stopped after it, and nothing else was. */
static void every_start_stopped(const struct world *w)
{
  size_t i;
  assert_int_equal(fake_controller_running(&w->fake), 0);
  for (i = 0; i < w->fake.call_count; i++) {
    const struct fake_call *c = &w->fake.calls[i];
    if (!strcmp(c->op, "start") && c->rc == 0) {
      size_t stop = fake_controller_find(&w->fake, "stop", c->session, i + 1);
      if (stop == (size_t)-1)
        fail_msg("session '%s' was started (call %lu) and never stopped", c->session,
                 (unsigned long)i);
    }
  }
}

static void plan_of(const char *const *args, struct plan *plan)
{
  assert_int_equal(test_plan_of(NULL, args, plan), 0);
}

static const struct plan_session *plan_role(const struct plan *plan, enum plan_role role)
{
  size_t i;
  for (i = 0; i < plan->session_count; i++)
    if (plan->sessions[i].role == role)
      return &plan->sessions[i];
  return NULL;
}

/* --- the full paths ------------------------------------------------------ */

static void collect_runs_to_a_zip_and_stops_everything(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:3", NULL };
  struct plan plan;
  const struct plan_session *k, *u, *rd;
  size_t ks, us, ue, rs;
  plan_of(args, &plan);
  k = plan_role(&plan, PLAN_ROLE_KERNEL);
  u = plan_role(&plan, PLAN_ROLE_USER);
  rd = plan_role(&plan, PLAN_ROLE_RUNDOWN);
  assert_non_null(k);
  assert_non_null(u);
  assert_non_null(rd);

  assert_int_equal(run(w, args), 0);
  assert_true(exists(w->zip));
  assert_false(exists(w->data));   /* merged into the zip, then deleted */
  assert_false(exists(w->record)); /* the record has served */
  every_start_stopped(w);
  /* Kernel first, then user with every provider, then rundown after both
   * stopped. */
  ks = fake_controller_find(&w->fake, "start", k->name, 0);
  us = fake_controller_find(&w->fake, "start", u->name, 0);
  assert_true(ks < us);
  assert_int_equal(fake_controller_count(&w->fake, "enable", u->name), u->provider_count);
  ue = fake_controller_find(&w->fake, "stop", u->name, 0);
  rs = fake_controller_find(&w->fake, "start", rd->name, 0);
  assert_true(fake_controller_find(&w->fake, "stop", k->name, 0) < rs);
  assert_true(ue < rs);
  assert_int_equal(fake_controller_count(&w->fake, "enable", rd->name), rd->provider_count);
  /* /MaxCollectSec on the virtual clock: at least 3 s passed. */
  assert_true(w->clock.now_ms >= 3000);
  assert_true(logged(w, "trigger /MaxCollectSec fired"));
  plan_release(&plan);
}

static void start_then_stop_through_the_record(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, NULL };
  const char *stop[] = { "stop", w->data, NULL };
  struct session_record r;
  char why[256];
  assert_int_equal(run(w, start), 0);
  assert_int_equal(fake_controller_running(&w->fake), 2);
  assert_int_equal(session_record_read(w->record, &r, why, sizeof(why)), 0);
  assert_string_equal(r.mode, "start");
  assert_int_equal(r.session_count, 2);
  assert_true(fake_controller_is_running(&w->fake, r.sessions[0].name));
  assert_true(fake_controller_is_running(&w->fake, r.sessions[1].name));
  assert_non_null(strstr(r.start_log, "started session"));
  session_record_release(&r);

  assert_int_equal(run(w, stop), 0);
  every_start_stopped(w);
  assert_true(exists(w->zip));
  assert_false(exists(w->record));
  /* The start's log is in the stop's LogFile.txt: the stop logged it. */
  assert_true(logged(w, "stopping the capture started start"));
}

static void stop_without_a_capture_says_so(void **state)
{
  struct world *w = *state;
  const char *stop[] = { "stop", w->data, NULL };
  int rc = run(w, stop);
  assert_int_equal(rc, ETWCAP_E_NO_SESSION);
  assert_int_equal(etwcap_exit_code(rc), 7);
  assert_true(logged(w, "there is no capture to stop"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

static void stop_without_record_finds_sessions_by_name(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, NULL };
  const char *stop[] = { "stop", w->data, NULL };
  assert_int_equal(run(w, start), 0);
  assert_int_equal(os_remove(w->record), 0);
  assert_int_equal(run(w, stop), 0);
  every_start_stopped(w);
  assert_true(logged(w, "no session record"));
  assert_true(exists(w->zip));
}

/* --- refusals before anything starts --------------------------------------- */

static void a_session_of_ours_already_running_is_refused(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  int rc;
  fake_controller_add_foreign(&w->fake, "etwcap"); /* left by an earlier start */
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_SESSION_EXISTS);
  assert_int_equal(etwcap_exit_code(rc), 7);
  assert_true(logged(w, "etwcap abort"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
  assert_int_equal(fake_controller_count(&w->fake, "stop", NULL), 0);
  assert_true(fake_controller_is_running(&w->fake, "etwcap"));
}

static void not_enough_disk_refuses_to_start(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/CircularMB:2048", NULL };
  int rc;
  w->clock.free_disk = 1000ull * 1024 * 1024; /* 1000 MB for 2048 + 2348 MB of circular files */
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_NOSPC);
  assert_int_equal(etwcap_exit_code(rc), 6);
  assert_true(logged(w, "not enough free disk"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

/* --- scripted failures ------------------------------------------------------ */

static void access_denied(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  int rc;
  fake_controller_fail(&w->fake, "start", NULL, ETWCAP_E_ACCES);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_ACCES);
  assert_int_equal(etwcap_exit_code(rc), 3);
  assert_true(logged(w, "elevated prompt"));
  every_start_stopped(w);
}

static void user_session_failure_stops_the_kernel_session(void **state)
{
  struct world *w = *state;
  const char *args[] = { "start", w->data, NULL };
  struct plan plan;
  const struct plan_session *k, *u;
  int rc;
  plan_of(args, &plan);
  k = plan_role(&plan, PLAN_ROLE_KERNEL);
  u = plan_role(&plan, PLAN_ROLE_USER);
  fake_controller_fail(&w->fake, "start", u->name, ETWCAP_E_SESSION_LIMIT);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_SESSION_LIMIT);
  assert_int_equal(etwcap_exit_code(rc), 7);
  /* StartTraceW's ERROR_NO_SYSTEM_RESOURCES: no logger slot, or no memory
   * for the buffers; both are said (docs/win32-contract.md §2.7). */
  assert_true(logged(w, "no trace session slot is free"));
  assert_true(logged(w, "not enough memory for its buffers"));
  assert_int_equal(fake_controller_count(&w->fake, "start", k->name), 1);
  every_start_stopped(w);
  assert_false(exists(w->record));
  plan_release(&plan);
}

static void disk_full_when_starting(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  int rc;
  fake_controller_fail(&w->fake, "start", NULL, ETWCAP_E_NOSPC);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_NOSPC);
  assert_int_equal(etwcap_exit_code(rc), 6);
  assert_true(logged(w, "the disk is full"));
  every_start_stopped(w);
}

/* A default provider that cannot be enabled (docs/win32-contract.md §5.8) —
 * EnableTraceEx2's ERROR_NO_SYSTEM_RESOURCES, "Exceeded the number of trace
 * sessions that can enable the provider" — is a warning naming it, and the
 * capture goes on. */
static void a_default_provider_that_cannot_be_enabled_is_a_warning(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  struct fake_fail *f;
  f = fake_controller_fail(&w->fake, "enable", "etwcap", ETWCAP_E_SESSION_LIMIT);
  f->times = 1;
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "is left out of"));
  assert_true(logged(w, "already enabled by as many trace sessions"));
  every_start_stopped(w);
  assert_true(exists(w->zip));
}

/* What the user named is essential: its failure ends the start, with the
 * provider in the message. */
static void a_named_provider_that_cannot_be_enabled_stops_what_started(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/Providers:*MyCompany-MySource", NULL };
  int rc;
  fake_controller_fail(&w->fake, "enable", "etwcap", ETWCAP_E_SESSION_LIMIT);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_SESSION_LIMIT);
  assert_true(logged(w, "cannot enable provider MyCompany-MySource"));
  every_start_stopped(w);
}

/* ERROR_INVALID_PARAMETER is a parameter error, reported with the provider
 * and the filter that went with it — never read as "older Windows", so
 * /FocusProcess is never silently widened to every process
 * (docs/win32-contract.md §5.8). */
static void invalid_parameter_never_widens_the_focus(void **state)
{
  struct world *w = *state;
  const char *args[] = { "/FocusProcess:1234", "collect", w->data, "/MaxCollectSec:1", NULL };
  struct fake_fail *f;
  size_t i;
  f = fake_controller_fail(&w->fake, "enable", NULL, ETWCAP_E_RANGE);
  f->filters = 1;
  f->times = 1;
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "Windows rejected a parameter of this enable"));
  assert_true(logged(w, "process ids (4 bytes)"));
  assert_false(logged(w, "come from every process"));
  /* No enable went out without the filter it was planned with. */
  for (i = 0; i < w->fake.call_count; i++)
    if (!strcmp(w->fake.calls[i].op, "enable") && !strcmp(w->fake.calls[i].session, "etwcap"))
      assert_true(w->fake.calls[i].filter_count >= 1);
  every_start_stopped(w);
}

/* A refused system logger on Windows 8+ is an error, never a silent move to
 * the shared "NT Kernel Logger" (docs/win32-contract.md §2.4). */
static void system_logger_refused_is_an_error_not_a_fallback(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  struct plan plan;
  const struct plan_session *k;
  int rc;
  plan_of(args, &plan);
  k = plan_role(&plan, PLAN_ROLE_KERNEL);
  assert_true(k->log_file_mode & PLAN_SYSTEM_LOGGER_MODE);
  fake_controller_fail(&w->fake, "start", k->name, ETWCAP_E_RANGE);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_RANGE);
  assert_int_equal(fake_controller_count(&w->fake, "start", "NT Kernel Logger"), 0);
  assert_true(logged(w, "Windows rejected a parameter of the session"));
  every_start_stopped(w);
  plan_release(&plan);
}

/* With stack caching (collect's default /StackCompression), the kernel
 * logs a sample's stack as a StackKeyKernel reference and the key's frames
 * at the stop as KeyRundown (the fake's rule, tests/fakes/README.md): the
 * report of the capture joins them, so the sample has its stack, the two
 * frames the definition gives. */
static void a_capture_with_stack_caching_has_its_stacks_in_the_report(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  const struct stack_fragment *part[2];
  struct report r;
  char err[512];
  unsigned parts;
  size_t i;
  assert_int_equal(run(w, args), 0);
  assert_true(fake_controller_find(&w->fake, "stack_caching", NULL, 0) != (size_t)-1);
  assert_int_equal(report_collect(&r, w->zip, err, sizeof(err)), 0);
  assert_true(r.cpu.count >= 1);
  assert_string_equal(r.cpu.list[0].name, "Idle");
  assert_true(r.cpu.list[0].samples >= 1);
  assert_int_equal(r.cpu.list[0].with_stack, r.cpu.list[0].samples);
  for (i = 0; i < r.stacks.sample_count; i++) {
    assert_true(stack_join_of(&r.stacks, &r.stacks.samples[i], part, &parts));
    assert_int_equal(parts, 1);
    assert_int_equal(part[0]->count, 2);
    assert_true(r.stacks.addresses[part[0]->first] == FAKE_STACK_IP);
    assert_true(r.stacks.addresses[part[0]->first + 1] == FAKE_STACK_CALLER);
  }
  report_release(&r);
}

static void stack_caching_refused_is_a_warning(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  struct plan plan;
  plan_of(args, &plan);
  assert_true(plan_role(&plan, PLAN_ROLE_KERNEL)->stack_caching);
  plan_release(&plan);
  fake_controller_fail(&w->fake, "stack_caching", NULL, ETWCAP_E_SYSTEM);
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "/StackCompression is dropped"));
  every_start_stopped(w);
}

/* /CpuCounters as TraceEventProfileSources.Set does it: each source's
 * interval machine-wide (handle 0), then the ids (the machine's, not the
 * names) machine-wide too, all before the kernel session starts. */
static void cpu_counters_set_intervals_then_ids_on_the_kernel_session(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1",
                         "/CpuCounters:totalcycles:20000,BranchMispredictions:10000", NULL };
  static const struct plan_machine_source machine[] = {
    { "Timer", 0, 10000, 1221, 1000000 },
    { "BranchMispredictions", 11, 65536, 4096, 0x7FFFFFFF },
    { "TotalCycles", 19, 65536, 4096, 0x7FFFFFFF },
  };
  struct plan plan;
  const struct plan_session *k;
  size_t first, second, ids, start;
  plan_of(args, &plan);
  k = plan_role(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->profile_source_count, 2);
  memcpy(w->fake.sources, machine, sizeof(machine));
  w->fake.source_count = 3;
  assert_int_equal(run(w, args), 0);
  first = fake_controller_find(&w->fake, "source_interval", NULL, 0);
  second = fake_controller_find(&w->fake, "source_interval", NULL, first + 1);
  start = fake_controller_find(&w->fake, "start", k->name, 0);
  ids = fake_controller_find(&w->fake, "profile_sources", NULL, 0);
  assert_true(first < second && second < ids && ids < start);
  assert_int_equal(w->fake.calls[ids].handle, 0);
  assert_int_equal(w->fake.calls[first].source, 19);
  assert_int_equal(w->fake.calls[first].value, 20000);
  assert_int_equal(w->fake.calls[second].source, 11);
  assert_int_equal(w->fake.calls[second].value, 10000);
  assert_int_equal(w->fake.calls[ids].id_count, 2);
  assert_int_equal(w->fake.calls[ids].ids[0], 19);
  assert_int_equal(w->fake.calls[ids].ids[1], 11);
  assert_true(fake_controller_count(&w->fake, "privilege", NULL) >= 1);
  every_start_stopped(w);
  plan_release(&plan);
}

static void cpu_counter_missing_on_the_machine_stops_before_the_kernel(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", "/CpuCounters:LLCMisses:10000",
                         NULL };
  static const struct plan_machine_source machine[] = { { "Timer", 0, 10000, 1221, 1000000 } };
  struct plan plan;
  plan_of(args, &plan);
  assert_int_equal(plan_role(&plan, PLAN_ROLE_KERNEL)->profile_source_count, 1);
  plan_release(&plan);
  memcpy(w->fake.sources, machine, sizeof(machine));
  w->fake.source_count = 1;
  assert_int_equal(run(w, args), ETWCAP_E_USAGE);
  assert_true(logged(w, "no profile source 'LLCMisses'; it has: Timer"));
  assert_int_equal(fake_controller_count(&w->fake, "source_interval", NULL), 0);
  every_start_stopped(w);
}

/* /LbrSources, /LbrFilters: one call on the kernel session with the
 * filters and the event ids (TraceEvent's LbrSource.PmcInterrupt 0x0F2F;
 * LbrFilterFlags CallstackEnable 0x200 | FilterKernel 0x1). */
static void lbr_goes_to_the_kernel_session(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", "/LbrSources:PmcInterrupt",
                         "/LbrFilters:StackMode,Kernel", NULL };
  struct plan plan;
  size_t at;
  plan_of(args, &plan);
  assert_int_equal(plan_role(&plan, PLAN_ROLE_KERNEL)->lbr_source_count, 1);
  assert_int_equal(run(w, args), 0);
  at = fake_controller_find(&w->fake, "lbr", plan_role(&plan, PLAN_ROLE_KERNEL)->name, 0);
  assert_true(at != (size_t)-1);
  assert_int_equal(w->fake.calls[at].value, 0x201);
  assert_int_equal(w->fake.calls[at].id_count, 1);
  assert_int_equal(w->fake.calls[at].ids[0], 0x0F2F);
  every_start_stopped(w);
  plan_release(&plan);
}

static void custom_cpu_interval_refused_is_an_error(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/CpuSampleMSec:0.5", NULL };
  int rc;
  fake_controller_fail(&w->fake, "profile_interval", NULL, ETWCAP_E_UNSUPPORTED);
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_UNSUPPORTED);
  assert_true(logged(w, "cannot set the CPU sampling interval to 0.5000 ms"));
  every_start_stopped(w);
}

static void custom_cpu_interval_is_put_back_at_stop(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/CpuSampleMSec:0.5", "/MaxCollectSec:1", NULL };
  size_t first, second;
  assert_int_equal(run(w, args), 0);
  first = fake_controller_find(&w->fake, "profile_interval", NULL, 0);
  second = fake_controller_find(&w->fake, "profile_interval", NULL, first + 1);
  assert_true(first != (size_t)-1 && second != (size_t)-1);
  assert_int_equal(w->fake.calls[first].value, 5000);
  assert_int_equal(w->fake.calls[second].value, 10000);
}

/* --- Ctrl+C and the other ways a capture ends ------------------------------ */

static void ctrl_c_while_starting_cancels_and_stops(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  int rc;
  w->ctrl_c_op = "enable";
  w->ctrl_c_nth = 5;
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_CANCELLED);
  assert_int_equal(etwcap_exit_code(rc), 8);
  assert_true(logged(w, "Ctrl+C while starting"));
  every_start_stopped(w);
  assert_false(exists(w->zip));
  assert_false(exists(w->record));
}

static void end_with(struct world *w, enum console_signal sig, int key, const char *request)
{
  const char *args[] = { "collect", w->data, NULL };
  w->at_ms = 1500;
  w->signal = sig;
  w->key = key;
  w->request_text = request;
  assert_int_equal(run(w, args), 0);
  every_start_stopped(w);
  assert_true(exists(w->zip));
}

static void ctrl_c_while_collecting_takes_the_stop_path(void **state)
{
  end_with(*state, CONSOLE_CTRL_C, 0, NULL);
  assert_true(logged(W, "collection ends (Ctrl+C)"));
}

/* Windows ends the process seconds after a close or shutdown (HandlerRoutine;
 * docs/win32-contract.md §11.3), so the stop path starts no rundown
 * session it could not stop again. */
static void console_close_takes_the_stop_path(void **state)
{
  end_with(*state, CONSOLE_CLOSE, 0, NULL);
  assert_true(logged(W, "collection ends (console close)"));
  assert_int_equal(fake_controller_count(&W->fake, "start", "etwcapRundown"), 0);
  assert_true(logged(W, "'etwcapRundown' is not started"));
}

static void shutdown_takes_the_stop_path(void **state)
{
  end_with(*state, CONSOLE_SHUTDOWN, 0, NULL);
  assert_true(logged(W, "collection ends (shutdown)"));
  assert_int_equal(fake_controller_count(&W->fake, "start", "etwcapRundown"), 0);
}

/* Ctrl+C is no reason to skip the rundown: the process lives on. */
static void ctrl_c_keeps_the_rundown(void **state)
{
  end_with(*state, CONSOLE_CTRL_C, 0, NULL);
  assert_int_equal(fake_controller_count(&W->fake, "start", "etwcapRundown"), 1);
}

static void s_key_takes_the_stop_path(void **state)
{
  end_with(*state, CONSOLE_SIGNAL_NONE, 's', NULL);
  assert_true(logged(W, "collection ends (S pressed)"));
}

static void stop_request_from_another_process_takes_the_stop_path(void **state)
{
  end_with(*state, CONSOLE_SIGNAL_NONE, 0, "stop");
  assert_true(logged(W, "'etwcap stop' from another process"));
  assert_false(exists(W->request));
}

static void a_key_aborts_without_merging(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  int rc;
  w->at_ms = 1000;
  w->key = 'A';
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_CANCELLED);
  assert_true(logged(w, "aborted"));
  every_start_stopped(w);
  assert_false(exists(w->zip));
  assert_true(exists(w->data)); /* the files are kept */
  assert_false(exists(w->record));
  /* No rundown, no merge. */
  assert_int_equal(fake_controller_count(&w->fake, "enable", "etwcapRundown"), 0);
}

static void abort_request_aborts_without_merging(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  w->at_ms = 1000;
  w->request_text = "abort";
  assert_int_equal(run(w, args), ETWCAP_E_CANCELLED);
  every_start_stopped(w);
  assert_false(exists(w->zip));
}

static void sessions_stopped_elsewhere_take_the_stop_path(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  w->at_ms = 2000;
  w->drop_sessions = 1;
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "another program stopped it"));
  assert_true(exists(w->zip));
  assert_int_equal(fake_controller_running(&w->fake), 0);
}

static void disk_filling_up_takes_the_stop_path(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  w->at_ms = 5000;
  w->free_disk_after = 100ull * 1024 * 1024;
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "stopping now to keep room for the merge"));
  every_start_stopped(w);
  assert_true(exists(w->zip));
}

static void use_child_fakes(struct world *w)
{
  w->env.child_start = child_start;
  w->env.child_exited = child_exited;
  w->env.child_close = child_close;
}

/* PerfView's Run (CommandProcessor.cs): start, 100 ms, the command, stop
 * when it exits; files that grow rather than wrap (no CircularMB
 * default). */
static void run_stops_when_the_command_exits(void **state)
{
  struct world *w = *state;
  char qualifier[600];
  const char *args[] = { qualifier, "run", "app.exe", "/fast", "two words", NULL };
  size_t start;
  char utc[64];
  snprintf(qualifier, sizeof(qualifier), "/DataFile:%s", w->data);
  use_child_fakes(w);
  w->child_exit_ms = 3000;
  assert_int_equal(run(w, args), 0);
  assert_string_equal(w->child_line, "app.exe /fast \"two words\"");
  /* Every session was started before the command, none stopped. */
  assert_true(fake_controller_find(&w->fake, "start", NULL, 0) < w->child_started_after);
  assert_true(fake_controller_find(&w->fake, "stop", NULL, 0) >= w->child_started_after);
  start = fake_controller_find(&w->fake, "start", "etwcap", 0);
  assert_true(start != (size_t)-1);
  assert_int_equal(w->fake.calls[start].value & PLAN_FILE_MODE_CIRCULAR, 0);
  assert_true(w->clock.now_ms >= 3000);
  assert_false(w->child_killed);
  every_start_stopped(w);
  assert_true(exists(w->zip));
  test_manifest_fire(w->zip, "run", utc, sizeof(utc));
  assert_true(logged(w, "trigger run fired: it exited with code 0"));
}

static void run_ends_a_command_still_running_at_max_collect_sec(void **state)
{
  struct world *w = *state;
  char qualifier[600];
  const char *args[] = { qualifier, "/MaxCollectSec:2", "run", "cmd", "/c", "server.cmd", NULL };
  snprintf(qualifier, sizeof(qualifier), "/DataFile:%s", w->data);
  use_child_fakes(w);
  assert_int_equal(run(w, args), 0);
  assert_string_equal(w->child_line, "cmd /c server.cmd");
  assert_true(w->child_killed);
  assert_true(logged(w, "is still running after the capture: ending it"));
  every_start_stopped(w);
  assert_true(exists(w->zip));
}

static void run_that_cannot_start_its_command_stops_the_sessions(void **state)
{
  struct world *w = *state;
  char qualifier[600];
  const char *args[] = { qualifier, "run", "nosuch.exe", NULL };
  snprintf(qualifier, sizeof(qualifier), "/DataFile:%s", w->data);
  use_child_fakes(w);
  w->child_start_rc = ETWCAP_E_NOENT;
  assert_int_equal(run(w, args), ETWCAP_E_NOENT);
  assert_true(logged(w, "cannot run 'nosuch.exe' (CreateProcessW: ERROR_FILE_NOT_FOUND (2))"));
  every_start_stopped(w);
  assert_false(exists(w->zip));
  assert_false(exists(w->record));
}

static void merge_false_leaves_the_session_files(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", "/Merge:false", NULL };
  assert_int_equal(run(w, args), 0);
  every_start_stopped(w);
  assert_false(exists(w->zip));
  assert_true(exists(w->data));
}

static void in_memory_buffers_are_flushed_to_files_at_stop(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:100",
                         "/MaxCollectSec:1", NULL };
  struct plan plan;
  const struct plan_session *k, *u, *kr;
  size_t flush_k, stop_k;
  plan_of(args, &plan);
  k = plan_role(&plan, PLAN_ROLE_KERNEL);
  u = plan_role(&plan, PLAN_ROLE_USER);
  kr = plan_role(&plan, PLAN_ROLE_KERNEL_RUNDOWN);
  assert_int_equal(run(w, args), 0);
  /* Each ring is written to its file (PerfView's names) before it stops. */
  flush_k = fake_controller_find(&w->fake, "flush", k->name, 0);
  stop_k = fake_controller_find(&w->fake, "stop", k->name, 0);
  assert_true(flush_k != (size_t)-1 && flush_k < stop_k);
  assert_true(fake_controller_find(&w->fake, "flush", u->name, 0) <
              fake_controller_find(&w->fake, "stop", u->name, 0));
  if (kr) /* the kernel rundown session: started and stopped at once */
    assert_int_equal(fake_controller_count(&w->fake, "start", kr->name), 1);
  every_start_stopped(w);
  assert_true(exists(w->zip));
  plan_release(&plan);
}

static void the_status_line_shows_sizes_and_losses(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, NULL };
  struct collection_wait_options o;
  struct collection_wait_result r;
  struct collection c;
  struct plan plan;
  char text[4096];
  size_t n;
  uint64_t three_seconds = 3000;
  FILE *console = tmpfile();
  assert_non_null(console);
  plan_of(args, &plan);
  collection_init(&c, &w->env);
  assert_int_equal(collection_start(&c, &plan), 0);
  w->fake.sessions[0].events_lost = 7;
  memset(&o, 0, sizeof(o));
  o.should_stop = test_stop_after_ms;
  o.should_stop_ctx = &three_seconds;
  o.console = console;
  o.disk_path = w->data;
  collection_wait(&c, &o, &r);
  assert_int_equal(r.end, COLLECTION_END_TRIGGER);
  assert_int_equal(collection_stop(&c), 0);
  rewind(console);
  n = fread(text, 1, sizeof(text) - 1, console);
  text[n] = '\0';
  fclose(console);
  assert_non_null(strstr(text, "Press S to stop"));
  assert_non_null(strstr(text, "00:00:02"));
  assert_non_null(strstr(text, c.sessions[0].name));
  assert_non_null(strstr(text, "lost 7"));
  assert_non_null(strstr(text, "GB free"));
  assert_true(logged(w, "is losing events (7 so far)"));
  plan_release(&plan);
}

/* --- abort and listSessions ------------------------------------------------ */

static void abort_stops_ours_and_only_ours(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", w->data);
  assert_int_equal(run(w, start), 0);
  fake_controller_add_foreign(&w->fake, "PerfViewSession");
  fake_controller_add_foreign(&w->fake, "NT Kernel Logger"); /* ours is a system logger */
  fake_controller_add_foreign(&w->fake, "etwcapRundown"); /* left by a killed stop */
  assert_int_equal(run(w, abort_), 0);
  assert_int_equal(fake_controller_running(&w->fake), 0);
  assert_false(fake_controller_is_running(&w->fake, "etwcapRundown"));
  assert_true(fake_controller_is_running(&w->fake, "PerfViewSession"));
  assert_int_equal(fake_controller_count(&w->fake, "stop", "PerfViewSession"), 0);
  assert_true(fake_controller_is_running(&w->fake, "NT Kernel Logger"));
  assert_int_equal(fake_controller_count(&w->fake, "stop", "NT Kernel Logger"), 0);
  assert_false(exists(w->record));
  assert_true(exists(w->data)); /* kept, not merged */
  assert_false(exists(w->zip));
}

static void abort_with_nothing_running_succeeds(void **state)
{
  struct world *w = *state;
  const char *abort_[] = { "abort", NULL };
  assert_int_equal(run(w, abort_), 0);
}

/* Runs a command line with its standard output caught in `out`
 * (listSessions prints its table there). */
static int run_printing(struct world *w, const char *const *args, char *out, size_t size)
{
  char path[512], *text = NULL;
  size_t len = 0;
  FILE *f;
  int saved, rc;
  test_tmp_path("coll.stdout", path, sizeof(path));
  f = fopen(path, "w");
  assert_non_null(f);
  fflush(stdout);
  saved = dup(1);
  assert_true(saved >= 0);
  assert_true(dup2(fileno(f), 1) >= 0);
  rc = run(w, args);
  fflush(stdout);
  assert_true(dup2(saved, 1) >= 0);
  close(saved);
  fclose(f);
  assert_int_equal(file_read_small(path, size - 1, &text, &len), 0);
  snprintf(out, size, "%.*s", (int)len, text);
  etwcap_free(text);
  os_remove(path);
  return rc;
}

/* Another tool's session is listed, unmarked, and left running. */
static void list_sessions_runs(void **state)
{
  struct world *w = *state;
  const char *list[] = { "listSessions", NULL };
  char out[4096];
  fake_controller_add_foreign(&w->fake, "PerfViewSession");
  assert_int_equal(run_printing(w, list, out, sizeof(out)), 0);
  assert_non_null(strstr(out, "  PerfViewSession "));
  assert_null(strstr(out, "* PerfViewSession"));
  assert_non_null(strstr(out, "1 session (* = etwcap's"));
  assert_true(fake_controller_is_running(&w->fake, "PerfViewSession"));
  assert_int_equal(fake_controller_count(&w->fake, "stop", NULL), 0);
  fake_controller_fail(&w->fake, "list", NULL, ETWCAP_E_ACCES);
  assert_int_equal(run(w, list), ETWCAP_E_ACCES);
  assert_true(logged(w, "elevated prompt"));
}

/* EventSource arguments reach processes that start later through the value
 * TraceEvent writes (TraceEventSession.cs SetFilterDataForEtwSession:
 * Publishers\{guid}\ControllerData_Session_N; docs/win32-contract.md
 * §6.1-§6.2), present while the capture runs and gone after its stop. */
static void eventsource_arguments_are_handed_off_and_removed(void **state)
{
  struct world *w = *state;
  const char *args[] = { "start", w->data, "/Providers:*MyCompany-MySource::EventCounterIntervalSec=1",
                         NULL };
  const char *stop_args[] = { "stop", w->data, NULL };
  size_t i, ours = 0;
  assert_int_equal(run(w, args), 0);
  for (i = 0; i < w->registry.count; i++) {
    const struct fake_registry_value *v = &w->registry.values[i];
    static const char head[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\00044\0";
    assert_true(strstr(v->key, "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\"
                               "Winevt\\Publishers\\{") == v->key);
    assert_true(!strncmp(v->name, "ControllerData_Session_", 23));
    if (v->size > sizeof(head) && !memcmp(v->data, head, sizeof(head) - 1))
      ours++;
  }
  assert_true(ours >= 1);
  assert_int_equal(run(w, stop_args), 0);
  assert_int_equal(w->registry.count, 0);
}

/* DiagnosticSource, a default provider with arguments (FilterAndPayloadSpecs). */
#define DIAGSOURCE "adb401e1-5296-51f8-c125-5fda75826144"

/* How many times 'etwcap' enabled `g`; *all is the last one's MatchAllKeyword. */
static size_t enables_of(const struct world *w, const struct etw_guid *g, uint64_t *all)
{
  size_t at, n = 0;
  for (at = 0; (at = fake_controller_find(&w->fake, "enable", "etwcap", at)) != (size_t)-1; at++)
    if (guid_equal(&w->fake.calls[at].guid, g)) {
      *all = w->fake.calls[at].all;
      n++;
    }
  return n;
}

/* The EventSource session keyword is the lowest of 44..47 that no session
 * enabling the provider holds (TraceEventSession.cs FindFreeSessionKeyword):
 * with 44 and 45 held by other tools, 46, in MatchAllKeyword, in the
 * provider data the registry keeps (EtwSessionKeyword) and in the record. */
static void eventsource_arguments_take_a_free_session_keyword(void **state)
{
  struct world *w = *state;
  const char *args[] = { "start", w->data, NULL };
  const char *stop_args[] = { "stop", w->data, NULL };
  static const char head[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\0" "46\0";
  struct etw_guid diag;
  char *text = NULL;
  uint64_t all = 0;
  size_t i, len, seen;
  assert_int_equal(guid_parse(DIAGSOURCE, &diag), 0);
  w->fake.foreign_keywords[0].guid = diag;
  w->fake.foreign_keywords[0].all = (1ull << 44) | (1ull << 0);
  w->fake.foreign_keywords[1].guid = diag;
  w->fake.foreign_keywords[1].all = 1ull << 45;
  w->fake.foreign_keyword_count = 2;
  assert_int_equal(run(w, args), 0);
  assert_true(fake_controller_count(&w->fake, "keywords", NULL) >= 1);
  assert_int_equal(enables_of(w, &diag, &all), 1);
  assert_int_equal(all, 1ull << 46);
  for (i = 0, seen = 0; i < w->registry.count; i++) {
    const struct fake_registry_value *v = &w->registry.values[i];
    if (v->size > sizeof(head) && !memcmp(v->data, head, sizeof(head) - 1))
      seen++;
  }
  assert_int_equal(seen, 1);
  assert_int_equal(file_read_small(w->record, 1u << 20, &text, &len), 0);
  assert_non_null(strstr(text, "\"sessionKeywordBit\": 46"));
  assert_null(strstr(text, "\"sessionKeywordBit\": 44"));
  etwcap_free(text);
  assert_int_equal(run(w, stop_args), 0);
}

/* With all four held, a default provider cannot take arguments for one
 * more session: it is left out with a warning, the capture goes on. */
static void eventsource_with_every_session_keyword_held_is_left_out(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:2", NULL };
  struct etw_guid diag;
  uint64_t all = 0;
  assert_int_equal(guid_parse(DIAGSOURCE, &diag), 0);
  w->fake.foreign_keywords[0].guid = diag;
  w->fake.foreign_keywords[0].all = 0xFull << 44;
  w->fake.foreign_keyword_count = 1;
  assert_int_equal(run(w, args), 0);
  assert_int_equal(enables_of(w, &diag, &all), 0);
  assert_true(logged(w, "four other sessions hold its session keywords"));
  every_start_stopped(w);
}

/* Where Windows cannot say which bits are held (the query is a stub), the
 * plan's bit 44 goes, and the capture goes on. */
static void eventsource_keyword_query_refused_uses_bit_44(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:2", NULL };
  struct etw_guid diag;
  uint64_t all = 0;
  assert_int_equal(guid_parse(DIAGSOURCE, &diag), 0);
  fake_controller_fail(&w->fake, "keywords", NULL, ETWCAP_E_UNSUPPORTED);
  assert_int_equal(run(w, args), 0);
  assert_int_equal(enables_of(w, &diag, &all), 1);
  assert_int_equal(all, 1ull << 44);
  every_start_stopped(w);
}

/* The hand-off is in the registry before the EnableTraceEx2 it goes with
 * (TraceEventSession.cs: SetFilterDataForEtwSession precedes
 * EnableTraceEx2; docs/win32-contract.md §6.4), so an EventSource that
 * registers in between finds it.  /Providers are enabled last in 'etwcap':
 * at that enable every value the start stores is already there, its own
 * included. */
static void eventsource_arguments_are_stored_before_the_enable(void **state)
{
  struct world *w = *state;
  const char *args[] = { "start", w->data, "/Providers:*MyCompany-MySource::EventCounterIntervalSec=1",
                         NULL };
  const char *stop_args[] = { "stop", w->data, NULL };
  assert_int_equal(run(w, args), 0);
  assert_true(w->registry.count >= 1);
  assert_int_equal(w->values_at_enable, (long)w->registry.count);
  assert_int_equal(run(w, stop_args), 0);
  assert_int_equal(w->registry.count, 0);
}

/* ... and an enable that fails takes its hand-off back at once, before any
 * stop (nothing may point at an enable that did not happen). */
static void a_failed_enable_takes_its_arguments_back(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:3",
                         "/Providers:*MyCompany-MySource::EventCounterIntervalSec=1", NULL };
  fake_controller_fail(&w->fake, "enable", "etwcap", ETWCAP_E_SESSION_LIMIT);
  assert_int_not_equal(run(w, args), 0);
  assert_int_equal(w->values_at_stop, 0);
  every_start_stopped(w);
}

/* The stored arguments go in one walk of the Publishers key after every
 * session has stopped, and a capture that stored none (no provider with
 * arguments: /OnlyProviders leaves out the defaults, DiagnosticSource's
 * FilterAndPayloadSpecs among them) does not walk it (docs/win32-contract.md
 * §6.5). */
static void the_stop_walks_the_registry_once_and_only_after_a_hand_off(void **state)
{
  struct world *w = *state;
  const char *plain[] = { "collect", w->data, "/MaxCollectSec:3", "/OnlyProviders:*Acme-App",
                          NULL };
  const char *with_args[] = { "collect", w->data, "/MaxCollectSec:3",
                              "/Providers:*MyCompany-MySource::EventCounterIntervalSec=1", NULL };
  assert_int_equal(run(w, plain), 0);
  assert_int_equal(w->registry.subkey_walks, 0);
  w->values_at_stop = w->walks_at_stop = -1;
  assert_int_equal(run(w, with_args), 0);
  assert_int_equal(w->walks_at_stop, 0); /* none before the first stop */
  assert_int_equal(w->registry.subkey_walks, 1);
  assert_int_equal(w->registry.count, 0);
}

/* Abort removes what a killed capture left (by the session name inside the
 * data), and nothing of another tool's. */
static void abort_removes_stored_arguments_a_killed_capture_left(void **state)
{
  struct world *w = *state;
  const char *args[] = { "abort", NULL };
  static const unsigned char ours[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\00044\0a\0b";
  static const unsigned char theirs[] = "EtwSessionName\0PerfViewSession\0EtwSessionKeyword\00045\0";
  const char *key = "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Winevt\\Publishers\\"
                    "{adb401e1-5296-51f8-c125-5fda75826144}";
  w->registry.reg.ops->set_binary(w->registry.reg.impl, key, "ControllerData_Session_5", ours,
                                  sizeof(ours));
  w->registry.reg.ops->set_binary(w->registry.reg.impl, key, "ControllerData_Session_6", theirs,
                                  sizeof(theirs));
  run(w, args);
  assert_null(fake_registry_find(&w->registry, key, "ControllerData_Session_5"));
  assert_non_null(fake_registry_find(&w->registry, key, "ControllerData_Session_6"));
}

/* --- OS heap tracing (/OSHeapProcess, /OSHeapExe) ---------------------------- */

#define IFEO_APP "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution " \
                 "Options\\heapy.exe"

/* TracingFlags of heapy.exe: -1 absent, else its value. */
static long heapy_flags(const struct world *w)
{
  const struct fake_registry_value *v = fake_registry_find(&w->registry, IFEO_APP, "TracingFlags");
  if (!v || v->size != 4)
    return -1;
  return (long)(v->data[0] | v->data[1] << 8 | v->data[2] << 16 | (unsigned long)v->data[3] << 24);
}

static void os_heap_process_session_starts_and_stops(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/OSHeapProcess:1234", "/MaxCollectSec:3", NULL };
  assert_int_equal(run(w, args), 0);
  assert_int_equal(fake_controller_count(&w->fake, "start", "etwcapHeap"), 1);
  assert_int_equal(fake_controller_count(&w->fake, "stop", "etwcapHeap"), 1);
  every_start_stopped(w);
  assert_true(logged(w, "tracing the OS heap of process 1234"));
  assert_int_equal(w->registry.count, 0); /* a process id needs no registry value */
}

/* start sets the value and records it; stop (another process) puts it back. */
static void os_heap_exe_flag_is_recorded_and_cleared_at_stop(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/OSHeapExe:heapy.exe", NULL };
  const char *stop[] = { "stop", w->data, NULL };
  struct session_record r;
  char why[256];
  assert_int_equal(run(w, start), 0);
  assert_int_equal(heapy_flags(w), 1);
  assert_int_equal(session_record_read(w->record, &r, why, sizeof(why)), 0);
  assert_string_equal(r.heap_flag.exe, "heapy.exe");
  assert_false(r.heap_flag.had_value);
  session_record_release(&r);
  assert_true(fake_controller_is_running(&w->fake, "etwcapHeap"));
  assert_int_equal(run(w, stop), 0);
  every_start_stopped(w);
  assert_int_equal(heapy_flags(w), -1);
  assert_false(fake_registry_has_key(&w->registry, IFEO_APP));
  assert_false(exists(w->record));
}

static void os_heap_exe_flag_is_cleared_at_the_end_of_collect(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/OSHeapExe:heapy", "/MaxCollectSec:3", NULL };
  fake_registry_put_dword(&w->registry, IFEO_APP, "TracingFlags", 2);
  assert_int_equal(run(w, args), 0);
  every_start_stopped(w);
  assert_true(logged(w, "set TracingFlags"));
  assert_int_equal(heapy_flags(w), 2); /* the value that was there before */
}

/* A capture killed after start: abort stops its sessions and puts the value
 * back from the record. */
static void abort_clears_the_flag_a_killed_capture_left(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/OSHeapExe:heapy.exe", NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", w->data);
  fake_registry_put_dword(&w->registry, IFEO_APP, "TracingFlags", 0);
  assert_int_equal(run(w, start), 0);
  assert_int_equal(heapy_flags(w), 1);
  assert_int_equal(run(w, abort_), 0);
  assert_int_equal(fake_controller_running(&w->fake), 0);
  assert_int_equal(heapy_flags(w), 0);
  assert_false(exists(w->record));
}

/* Not allowed to write HKLM: the kernel session already started is stopped
 * again and no heap session starts. */
static void os_heap_exe_refused_by_the_registry_stops_what_started(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/OSHeapExe:heapy.exe", "/MaxCollectSec:3", NULL };
  w->registry.fail_set = ETWCAP_E_ACCES;
  assert_int_equal(run(w, args), ETWCAP_E_ACCES);
  /* The value is set last, after every session (so the record that puts
   * it back follows at once): the refusal stops them all again. */
  assert_int_equal(fake_controller_count(&w->fake, "start", "etwcapHeap"), 1);
  every_start_stopped(w);
  assert_true(logged(w, "run from an elevated prompt"));
  assert_int_equal(heapy_flags(w), -1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(collect_runs_to_a_zip_and_stops_everything),
    T(eventsource_arguments_are_stored_before_the_enable),
    T(a_failed_enable_takes_its_arguments_back),
    T(the_stop_walks_the_registry_once_and_only_after_a_hand_off),
    T(start_then_stop_through_the_record),
    T(stop_without_a_capture_says_so),
    T(stop_without_record_finds_sessions_by_name),
    T(a_session_of_ours_already_running_is_refused),
    T(not_enough_disk_refuses_to_start),
    T(access_denied),
    T(user_session_failure_stops_the_kernel_session),
    T(disk_full_when_starting),
    T(a_default_provider_that_cannot_be_enabled_is_a_warning),
    T(a_named_provider_that_cannot_be_enabled_stops_what_started),
    T(invalid_parameter_never_widens_the_focus),
    T(system_logger_refused_is_an_error_not_a_fallback),
    T(a_capture_with_stack_caching_has_its_stacks_in_the_report),
    T(stack_caching_refused_is_a_warning),
    T(cpu_counters_set_intervals_then_ids_on_the_kernel_session),
    T(cpu_counter_missing_on_the_machine_stops_before_the_kernel),
    T(lbr_goes_to_the_kernel_session),
    T(custom_cpu_interval_refused_is_an_error),
    T(custom_cpu_interval_is_put_back_at_stop),
    T(ctrl_c_while_starting_cancels_and_stops),
    T(ctrl_c_while_collecting_takes_the_stop_path),
    T(console_close_takes_the_stop_path),
    T(shutdown_takes_the_stop_path),
    T(ctrl_c_keeps_the_rundown),
    T(eventsource_arguments_are_handed_off_and_removed),
    T(abort_removes_stored_arguments_a_killed_capture_left),
    T(s_key_takes_the_stop_path),
    T(stop_request_from_another_process_takes_the_stop_path),
    T(a_key_aborts_without_merging),
    T(abort_request_aborts_without_merging),
    T(sessions_stopped_elsewhere_take_the_stop_path),
    T(disk_filling_up_takes_the_stop_path),
    T(run_stops_when_the_command_exits),
    T(run_ends_a_command_still_running_at_max_collect_sec),
    T(run_that_cannot_start_its_command_stops_the_sessions),
    T(merge_false_leaves_the_session_files),
    T(in_memory_buffers_are_flushed_to_files_at_stop),
    T(the_status_line_shows_sizes_and_losses),
    T(abort_stops_ours_and_only_ours),
    T(abort_with_nothing_running_succeeds),
    T(list_sessions_runs),
    T(eventsource_arguments_take_a_free_session_keyword),
    T(eventsource_with_every_session_keyword_held_is_left_out),
    T(eventsource_keyword_query_refused_uses_bit_44),
    T(os_heap_process_session_starts_and_stops),
    T(os_heap_exe_flag_is_recorded_and_cleared_at_stop),
    T(os_heap_exe_flag_is_cleared_at_the_end_of_collect),
    T(abort_clears_the_flag_a_killed_capture_left),
    T(os_heap_exe_refused_by_the_registry_stops_what_started),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
