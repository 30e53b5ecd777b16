/* /NetworkCapture and /NetMonCapture: netsh's command line against
 * PerfView's source strings (CommandProcessor.cs Start) and Microsoft's
 * "netsh trace" options, the plan's providers, table and JSON, and the
 * start / stop / abort flow against the fake controller and a model of
 * netsh (tests/fakes/fake_netsh.c) — including a capture killed before it
 * could stop netsh.  Wine has no 'netsh trace': the model is all this is
 * checked against. */
#include "tests/fakes/test_support.h"

#include "tests/fakes/plan_of.h"

#include "etw/plan/plan.h"
#include "etw/plan/plan_describe.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"
#include "src/capture/session_record.h"
#include "src/os/console.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/fake_netsh.h"
#include "tests/fakes/log_capture.h"
#include "tests/fakes/run_command.h"

#include <stdio.h>
#include <string.h>

/* PerfView's format string and values (CommandProcessor.cs, Start:
 * "netsh trace start scenario={0} capture=yes {1} {2} {3} {4} \"traceFile={5}\""
 * with scenario "InternetClient", correlation "correlation=no", report
 * "report=disabled", maxSize "maxSize=1", perfMerge "perfMerge=no"; all four
 * "" for /NetMonCapture or before Windows 8), with PerfView's doubled
 * spaces for the empty ones made single.  Microsoft's "netsh trace" page
 * names each of these options of 'trace start'. */
static void perfview_line(int netmon, const char *trace_file, char *out, size_t size)
{
  char raw[2048];
  size_t i, n = 0;
  snprintf(raw, sizeof(raw),
           "netsh trace start scenario=%s capture=yes %s %s %s %s \"traceFile=%s\"",
           "InternetClient", netmon ? "" : "correlation=no", netmon ? "" : "report=disabled",
           netmon ? "" : "maxSize=1", netmon ? "" : "perfMerge=no", trace_file);
  for (i = 0; raw[i] && n + 1 < size; i++)
    if (!(raw[i] == ' ' && n && out[n - 1] == ' '))
      out[n++] = raw[i];
  out[n] = '\0';
}

/* Windows 8 and later (PerfView's `osVer >= 62`); without /TargetOS the
 * plan is the running system's (Wine's may be older). */
#define SERVER "/TargetOS:10.0.20348"

static const struct plan_provider *user_provider(const struct plan *plan, const char *guid)
{
  struct etw_guid g;
  size_t i, j;
  assert_int_equal(guid_parse(guid, &g), 0);
  for (i = 0; i < plan->session_count; i++)
    for (j = 0; plan->sessions[i].role == PLAN_ROLE_USER && j < plan->sessions[i].provider_count;
         j++)
      if (guid_equal(&plan->sessions[i].providers[j].guid, &g))
        return &plan->sessions[i].providers[j];
  return NULL;
}

/* --- the plan --------------------------------------------------------------- */

static void network_capture_runs_perfviews_netsh_line(void **state)
{
  const char *args[] = { "collect", "/DataFile:C:\\t\\web.etl", "/NetworkCapture", SERVER, NULL };
  char want[2048], ours[2048];
  struct plan plan;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  assert_true(plan.packet_capture.on);
  assert_false(plan.packet_capture.netmon);
  assert_string_equal(plan.packet_capture.trace_file, "C:\\t\\web.netmon.etl");
  perfview_line(0, plan.packet_capture.trace_file, want, sizeof(want));
  snprintf(ours, sizeof(ours), "netsh %s", plan.packet_capture.start_args);
  assert_string_equal(ours, want);
  plan_release(&plan);
}

static void netmon_capture_keeps_netshs_defaults_and_its_file(void **state)
{
  const char *args[] = { "collect", "/DataFile:C:\\t\\web.etl", "/NetMonCapture", NULL };
  char want[2048], ours[2048];
  struct plan plan;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  assert_true(plan.packet_capture.on);
  assert_true(plan.packet_capture.netmon);
  /* PerfView: base name + "_netmon.etl" ("the _ to avoid conventions about
   * merging"); etwcap puts it beside the data file. */
  assert_string_equal(plan.packet_capture.trace_file, "C:\\t\\web_netmon.etl");
  perfview_line(1, plan.packet_capture.trace_file, want, sizeof(want));
  snprintf(ours, sizeof(ours), "netsh %s", plan.packet_capture.start_args);
  assert_string_equal(ours, want);
  plan_release(&plan);
}

/* PerfView: `osVer < 62` (before Windows 8) takes the NetMon form. */
static void before_windows_8_network_capture_is_the_netmon_form(void **state)
{
  const char *args[] = { "collect", "/DataFile:C:\\t\\web.etl", "/NetworkCapture",
                         "/TargetOS:6.1", NULL };
  const char *win8[] = { "collect", "/DataFile:C:\\t\\web.etl", "/NetworkCapture",
                         "/TargetOS:6.2", NULL };
  struct plan plan;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  assert_true(plan.packet_capture.netmon);
  assert_null(strstr(plan.packet_capture.start_args, "maxSize"));
  plan_release(&plan);
  assert_int_equal(test_plan_of("plan", win8, &plan), 0);
  assert_false(plan.packet_capture.netmon);
  assert_non_null(strstr(plan.packet_capture.start_args, "maxSize=1"));
  plan_release(&plan);
}

/* The packets: Microsoft-Windows-NDIS-PacketCapture
 * {2ED6006E-4729-4609-B423-3EE7BCD678EF} and Microsoft-Windows-TCPIP
 * {2F07E2EE-15DB-40F1-90EF-9D7BA282188A}, Informational, every keyword,
 * TCPIP with stacks (PerfView's EnableUserProvider calls). */
static void the_user_session_records_the_packets(void **state)
{
  const char *args[] = { "collect", "/NetworkCapture", "/ClrEvents:None", NULL };
  const char *none[] = { "collect", NULL };
  const struct plan_provider *ndis, *tcpip;
  struct plan plan;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  ndis = user_provider(&plan, "2ED6006E-4729-4609-B423-3EE7BCD678EF");
  tcpip = user_provider(&plan, "2F07E2EE-15DB-40F1-90EF-9D7BA282188A");
  assert_non_null(ndis);
  assert_non_null(tcpip);
  assert_int_equal(ndis->level, 4);
  assert_true(ndis->match_any == 0xFFFFFFFFFFFFFFFFull);
  assert_int_equal(ndis->enable_property & PLAN_ENABLE_PROPERTY_STACK_TRACE, 0);
  assert_int_equal(tcpip->level, 4);
  assert_true(tcpip->match_any == 0xFFFFFFFFFFFFFFFFull);
  assert_int_not_equal(tcpip->enable_property & PLAN_ENABLE_PROPERTY_STACK_TRACE, 0);
  assert_string_equal(ndis->origin, "NetworkCapture");
  plan_release(&plan);

  assert_int_equal(test_plan_of("plan", none, &plan), 0);
  assert_false(plan.packet_capture.on);
  assert_null(user_provider(&plan, "2ED6006E-4729-4609-B423-3EE7BCD678EF"));
  plan_release(&plan);
}

static void the_plan_shows_the_capture_and_its_file(void **state)
{
  const char *args[] = { "collect", "/DataFile:C:\\t\\web.etl", "/NetworkCapture", SERVER, NULL };
  const char *none[] = { "collect", NULL };
  struct plan plan;
  char *text = NULL, *json = NULL;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  assert_int_equal(plan_to_text(&plan, &text), 0);
  assert_int_equal(plan_to_json(&plan, &json), 0);
  assert_non_null(strstr(text, "netsh.exe trace start scenario=InternetClient capture=yes"));
  assert_non_null(strstr(text, "netsh.exe trace stop"));
  assert_non_null(strstr(text, "C:\\t\\web.netmon.etl"));
  assert_non_null(strstr(json, "\"packetCapture\": {\"tool\": \"netsh.exe\", \"startArguments\": "
                               "\"trace start scenario=InternetClient capture=yes"));
  assert_non_null(strstr(json, "\"stopArguments\": \"trace stop\", \"traceFile\": "
                               "\"C:\\\\t\\\\web.netmon.etl\", \"traceFileKept\": false"));
  etwcap_free(text);
  etwcap_free(json);
  plan_release(&plan);
  assert_int_equal(test_plan_of("plan", none, &plan), 0);
  assert_int_equal(plan_to_json(&plan, &json), 0);
  assert_non_null(strstr(json, "\"packetCapture\": null"));
  etwcap_free(json);
  plan_release(&plan);
}

/* A '"' would end netsh's quoted traceFile= early (Windows allows it in no
 * file name): refused, naming the file. */
static void a_quote_in_the_data_file_is_refused(void **state)
{
  const char *args[] = { "collect", "/DataFile:/tmp/a\"b.etl", "/NetworkCapture", NULL };
  struct plan plan;
  (void)state;
  assert_int_equal(test_plan_of("plan", args, &plan), ETWCAP_E_USAGE);
  assert_non_null(strstr(plan.error, "a\"b.etl"));
  plan_release(&plan);
}

/* --- the flow, against the fake controller and the model of netsh ------------- */

struct world {
  struct fake_controller fake;
  struct fake_clock clock;
  struct fake_netsh netsh;
  struct collection_env env;
  char data[512], zip[512], record[512], netmon_file[600];
  struct log_capture log;
  /* The controller's call count at each netsh run, and the record as it
   * was when 'trace stop' ran. */
  size_t calls_at[FAKE_NETSH_MAX_CALLS];
  int record_had_capture_at_stop;
};

static struct world *W;

static int logged(const struct world *w, const char *text)
{
  return log_capture_has(&w->log, text);
}

static int exists(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

static void on_netsh(void *ctx, const char *args)
{
  struct world *w = ctx;
  struct session_record r;
  char why[256];
  w->calls_at[w->netsh.call_count - 1] = w->fake.call_count;
  if (!strcmp(args, "trace stop") && session_record_read(w->record, &r, why, sizeof(why)) == 0) {
    w->record_had_capture_at_stop = r.packet_capture_file[0] != '\0';
    session_record_release(&r);
  }
}

static int run_tool(void *ctx, const char *name, const char *args, unsigned timeout_ms,
                    int *exit_code, char *output, size_t output_size, char *why,
                    unsigned why_size)
{
  (void)ctx;
  return fake_netsh_run(&W->netsh, name, args, timeout_ms, exit_code, output, output_size, why,
                        why_size);
}

static void remove_files(const struct world *w)
{
  static const char *const suffixes[] = { "", ".zip", SESSION_RECORD_SUFFIX,
                                          SESSION_REQUEST_SUFFIX, NULL };
  static const char *const siblings[] = { ".kernel.etl", ".clrRundown.etl", ".netmon.etl",
                                          "_netmon.etl", NULL };
  char path[700];
  size_t i, len = strlen(w->data);
  for (i = 0; suffixes[i]; i++) {
    snprintf(path, sizeof(path), "%s%s", w->data, suffixes[i]);
    os_remove(path);
  }
  for (i = 0; siblings[i]; i++) {
    snprintf(path, sizeof(path), "%.*s%s", (int)(len - 4), w->data, siblings[i]);
    os_remove(path);
  }
}

static int setup(void **state)
{
  static struct world world;
  struct world *w = &world;
  size_t len;
  memset(w, 0, sizeof(*w));
  fake_controller_init(&w->fake);
  fake_env_init(&w->env, &w->fake.ctl, &w->clock);
  fake_netsh_init(&w->netsh);
  w->netsh.on_run = on_netsh;
  w->netsh.on_run_ctx = w;
  w->env.run_tool = run_tool;
  test_tmp_path("netcap.etl", w->data, sizeof(w->data));
  len = strlen(w->data);
  snprintf(w->zip, sizeof(w->zip), "%.480s.zip", w->data);
  snprintf(w->record, sizeof(w->record), "%.480s%s", w->data, SESSION_RECORD_SUFFIX);
  snprintf(w->netmon_file, sizeof(w->netmon_file), "%.*s_netmon.etl", (int)(len - 4), w->data);
  remove_files(w);
  log_add_sink(log_capture_sink, &w->log, LOG_DEBUG);
  console_open();
  console_close();
  W = w;
  *state = w;
  return 0;
}

static int teardown(void **state)
{
  struct world *w = *state;
  log_remove_sink(log_capture_sink, &w->log);
  remove_files(w);
  console_close();
  return 0;
}

static int run(struct world *w, const char *const *args)
{
  return test_run_command(&w->env, args);
}

/* netsh's file and whether it is kept (the NetMon form), as the plan for
 * the fake environment's Windows has them for `sw`. */
static int planned_file(const struct world *w, const char *sw, char *file, size_t size)
{
  char datafile_q[600];
  const char *args[] = { "collect", datafile_q, sw, NULL };
  struct plan plan;
  int netmon;
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", w->data);
  assert_int_equal(test_plan_of("plan", args, &plan), 0);
  snprintf(file, size, "%s", plan.packet_capture.trace_file);
  netmon = plan.packet_capture.netmon;
  plan_release(&plan);
  return netmon;
}

/* The last start or enable of the user session 'etwcap' before `limit`. */
static size_t last_user_call(const struct world *w, size_t limit)
{
  size_t i, last = (size_t)-1;
  for (i = 0; i < limit && i < w->fake.call_count; i++)
    if (!strcmp(w->fake.calls[i].session, "etwcap") &&
        (!strcmp(w->fake.calls[i].op, "start") || !strcmp(w->fake.calls[i].op, "enable")))
      last = i;
  return last;
}

static void collect_turns_capture_on_after_the_sessions_and_off_after_them(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/NetworkCapture", "/MaxCollectSec:2", NULL };
  char file[600];
  int kept = planned_file(w, "/NetworkCapture", file, sizeof(file));
  size_t user_stop;
  assert_int_equal(run(w, args), 0);
  assert_int_equal(w->netsh.call_count, 2);
  assert_non_null(strstr(w->netsh.calls[0], "trace start scenario=InternetClient capture=yes"));
  assert_string_equal(w->netsh.calls[1], "trace stop");
  assert_false(w->netsh.capturing);
  /* Started once every enable of the user session was made (nothing is
   * done to it between netsh's start and its stop) ... */
  user_stop = fake_controller_find(&w->fake, "stop", "etwcap", 0);
  assert_true(user_stop != (size_t)-1);
  assert_true(fake_controller_count(&w->fake, "enable", "etwcap") > 0);
  assert_true(last_user_call(w, user_stop) < w->calls_at[0]);
  /* ... and stopped after the user session stopped. */
  assert_true(user_stop < w->calls_at[1]);
  assert_true(w->record_had_capture_at_stop);
  assert_true(exists(w->zip));
  /* netsh's throwaway file (its 1 MB) is gone, a NetMon file kept. */
  assert_int_equal(exists(file), kept);
  if (!kept)
    assert_false(exists(w->netmon_file));
  assert_int_equal(fake_controller_running(&w->fake), 0);
}

static void netmon_capture_keeps_netshs_file(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/NetMonCapture", "/MaxCollectSec:2", NULL };
  assert_int_equal(run(w, args), 0);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_true(exists(w->netmon_file));
  assert_true(logged(w, "netsh's capture for Network Monitor"));
}

static void a_failing_netsh_start_is_an_error_and_stops_the_sessions(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/NetworkCapture", "/MaxCollectSec:2", NULL };
  int rc;
  w->netsh.capturing = 1; /* someone else's 'netsh trace' runs */
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_SYSTEM);
  assert_int_equal(etwcap_exit_code(rc), 1);
  assert_true(logged(w, "ERROR /NetworkCapture: 'netsh trace start"));
  assert_true(logged(w, "exit code 1: (fake netsh) a trace session is already in progress"));
  assert_int_equal(fake_controller_running(&w->fake), 0);
  /* Never stops a capture it did not start. */
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 0);
  assert_true(w->netsh.capturing);
  assert_false(exists(w->zip));
}

/* A start still running at the time limit may turn capture on later:
 * 'netsh trace stop' runs with the sessions' stop, so it does not stay on
 * (PerfView stops whenever its marker says a start was tried). */
static void a_netsh_start_that_times_out_is_stopped_too(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/NetworkCapture", "/MaxCollectSec:2", NULL };
  w->netsh.start_times_out = 1;
  assert_int_equal(run(w, args), ETWCAP_E_TIMEOUT);
  assert_true(logged(w, "did not finish in time"));
  assert_true(logged(w, "'netsh trace stop' is run so that capture does not stay on"));
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_false(w->netsh.capturing);
  assert_int_equal(fake_controller_running(&w->fake), 0);
}

static void netsh_that_cannot_run_is_an_error(void **state)
{
  struct world *w = *state;
  const char *args[] = { "start", w->data, "/NetworkCapture", NULL };
  w->netsh.runner_rc = ETWCAP_E_NOENT;
  assert_int_equal(run(w, args), ETWCAP_E_NOENT);
  assert_true(logged(w, "it could not run (CreateProcessW: scripted failure)"));
  assert_int_equal(fake_controller_running(&w->fake), 0);
  assert_false(exists(w->record));
}

static void a_failing_netsh_stop_is_a_warning_naming_the_loss(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/NetworkCapture", "/MaxCollectSec:2", NULL };
  w->netsh.stop_exit = 5;
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "/NetworkCapture: 'netsh trace stop' failed (exit code 5: (fake netsh) "
                        "scripted failure)"));
  assert_true(logged(w, "Windows may still be capturing packets: run 'netsh trace stop'"));
  assert_true(exists(w->zip));
}

static void start_records_the_capture_and_stop_ends_it(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/NetworkCapture", NULL };
  const char *stop[] = { "stop", w->data, NULL };
  struct session_record r;
  char why[256], file[600];
  int kept = planned_file(w, "/NetworkCapture", file, sizeof(file));
  assert_int_equal(run(w, start), 0);
  assert_true(w->netsh.capturing);
  assert_int_equal(session_record_read(w->record, &r, why, sizeof(why)), 0);
  /* Absolute, for a stop run from another folder. */
  assert_true(str_ends_with_case(r.packet_capture_file, path_base_name(file)));
  assert_true(strlen(r.packet_capture_file) >= strlen(file));
  assert_int_equal(r.packet_capture_netmon, kept);
  session_record_release(&r);
  assert_int_equal(run(w, stop), 0);
  assert_false(w->netsh.capturing);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_false(exists(w->record));
  assert_int_equal(exists(file), kept);
}

/* A collect killed while capturing (its record says "collect", its process
 * is gone): abort stops its sessions and its packet capture. */
static void killed_capture_then_abort_stops_netsh(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/NetMonCapture", NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  struct session_record r;
  char why[256];
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", w->data);
  assert_int_equal(run(w, start), 0);
  assert_int_equal(session_record_read(w->record, &r, why, sizeof(why)), 0);
  snprintf(r.mode, sizeof(r.mode), "collect");
  r.pid = 0x7FFFFFF0ul; /* no such process */
  r.pid_created = 1;
  assert_int_equal(session_record_write(w->record, &r), 0);
  session_record_release(&r);

  assert_int_equal(run(w, abort_), 0);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_false(w->netsh.capturing);
  assert_int_equal(fake_controller_running(&w->fake), 0);
  assert_false(exists(w->record));
  assert_true(exists(w->netmon_file)); /* kept, as abort keeps every file */
}

static void killed_capture_then_stop_stops_netsh(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/NetworkCapture", NULL };
  const char *stop[] = { "stop", w->data, NULL };
  struct session_record r;
  char why[256];
  assert_int_equal(run(w, start), 0);
  assert_int_equal(session_record_read(w->record, &r, why, sizeof(why)), 0);
  snprintf(r.mode, sizeof(r.mode), "collect");
  r.pid = 0x7FFFFFF0ul;
  r.pid_created = 1;
  assert_int_equal(session_record_write(w->record, &r), 0);
  session_record_release(&r);
  assert_int_equal(run(w, stop), 0);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_false(w->netsh.capturing);
  assert_true(exists(w->zip));
}

/* Without a record, PerfView's stop is given the capture's switches again:
 * 'stop /NetworkCapture' ends netsh's capture, plain 'stop' leaves it. */
static void stop_without_record_ends_the_capture_it_is_told_of(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/NetworkCapture", NULL };
  const char *stop_plain[] = { "stop", w->data, NULL };
  const char *stop[] = { "stop", w->data, "/NetworkCapture", NULL };
  assert_int_equal(run(w, start), 0);
  assert_int_equal(os_remove(w->record), 0);
  assert_int_equal(run(w, stop_plain), 0);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 0);
  assert_true(w->netsh.capturing);
  w->netsh.capturing = 0; /* the user ran 'netsh trace stop' */

  assert_int_equal(run(w, start), 0);
  assert_int_equal(os_remove(w->record), 0);
  assert_int_equal(run(w, stop), 0);
  assert_int_equal(fake_netsh_count(&w->netsh, "trace stop"), 1);
  assert_false(w->netsh.capturing);
}

/* A failed 'netsh trace stop' in abort is abort's failure (exit 1). */
static void abort_says_when_netsh_stop_fails(void **state)
{
  struct world *w = *state;
  const char *start[] = { "start", w->data, "/NetworkCapture", NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", w->data);
  assert_int_equal(run(w, start), 0);
  w->netsh.stop_exit = 1;
  assert_int_equal(run(w, abort_), ETWCAP_E_SYSTEM);
  assert_int_equal(fake_controller_running(&w->fake), 0);
  assert_true(logged(w, "'netsh trace stop' failed"));
}

/* Without the switch netsh never runs, and abort leaves packet capture
 * alone (it may be someone else's). */
static void without_the_switch_netsh_never_runs(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MaxCollectSec:1", NULL };
  const char *abort_[] = { "abort", NULL };
  assert_int_equal(run(w, args), 0);
  w->netsh.capturing = 1;
  assert_int_equal(run(w, abort_), 0);
  assert_int_equal(w->netsh.call_count, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(network_capture_runs_perfviews_netsh_line),
    cmocka_unit_test(netmon_capture_keeps_netshs_defaults_and_its_file),
    cmocka_unit_test(before_windows_8_network_capture_is_the_netmon_form),
    cmocka_unit_test(the_user_session_records_the_packets),
    cmocka_unit_test(the_plan_shows_the_capture_and_its_file),
    cmocka_unit_test(a_quote_in_the_data_file_is_refused),
    T(collect_turns_capture_on_after_the_sessions_and_off_after_them),
    T(netmon_capture_keeps_netshs_file),
    T(a_failing_netsh_start_is_an_error_and_stops_the_sessions),
    T(a_netsh_start_that_times_out_is_stopped_too),
    T(netsh_that_cannot_run_is_an_error),
    T(a_failing_netsh_stop_is_a_warning_naming_the_loss),
    T(start_records_the_capture_and_stop_ends_it),
    T(killed_capture_then_abort_stops_netsh),
    T(killed_capture_then_stop_stops_netsh),
    T(stop_without_record_ends_the_capture_it_is_told_of),
    T(abort_says_when_netsh_stop_fails),
    T(without_the_switch_netsh_never_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
