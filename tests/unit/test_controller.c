/* The portable part of the controller seam: error texts, a failed enable
 * in words, and the kernel events switched on by their route. */
#include "tests/fakes/test_support.h"

#include "etw/session/controller.h"
#include "src/base/error.h"
#include "tests/fakes/fake_controller.h"

#include <stdio.h>
#include <string.h>

static void error_texts_name_the_api_and_the_code(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  char buf[160];
  (void)state;
  fake_controller_init(&f);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)), "no system call failed");
  assert_int_equal(controller_fail(&f.ctl, ETWCAP_E_ACCES, "StartTraceW", 5,
                                   "ERROR_ACCESS_DENIED"),
                   ETWCAP_E_ACCES);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)),
                      "StartTraceW: ERROR_ACCESS_DENIED (5)");
  controller_fail(&f.ctl, ETWCAP_E_SYSTEM, "ControlTraceW", 0x1069, NULL);
  assert_string_equal(controller_error_text(&f.ctl, buf, sizeof(buf)),
                      "ControlTraceW: error 4201 (0x1069)");
}

static uint8_t pid_bytes[4] = { 0xD2, 0x04, 0, 0 };
static uint8_t data_bytes[8] = "k\0v\0";

/* A provider as the plan makes it for /FocusProcess:1234 with EventSource
 * arguments. */
static void provider(struct plan_provider *p)
{
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Test");
  p->guid.data1 = 0x12345678;
  p->level = 5;
  p->match_any = 0xFF;
  p->control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  p->enable_property = PLAN_ENABLE_PROPERTY_STACK_TRACE;
  p->filters[0].type = PLAN_FILTER_PROVIDER_DATA;
  p->filters[0].data = data_bytes;
  p->filters[0].size = sizeof(data_bytes);
  p->filters[1].type = PLAN_FILTER_PID;
  p->filters[1].data = pid_bytes;
  p->filters[1].size = 4;
  p->filter_count = 2;
}

static uint64_t start_session(struct fake_controller *f, struct plan_session *s)
{
  uint64_t h = 0;
  snprintf(s->name, sizeof(s->name), "etwcapKernel");
  s->role = PLAN_ROLE_KERNEL;
  assert_int_equal(f->ctl.ops->start(&f->ctl, s, &h, NULL, 0), 0);
  return h;
}

/* A kernel system logger with Process|Thread|ImageLoad|CSwitch|Dispatcher|
 * Profile by the default (group-mask) route, started on a fresh fake. */
static uint64_t start_windows_10_kernel(struct fake_controller *f, struct plan_session *s)
{
  fake_controller_init(f);
  f->write_files = 0;
  memset(s, 0, sizeof(*s));
  s->log_file_mode = PLAN_SYSTEM_LOGGER_MODE | PLAN_BUFFERING_MODE;
  s->enable_flags = 0x01000817;
  plan_kernel_route(PLAN_ROUTE_NONE, s);
  return start_session(f, s);
}

/* A failed enable is reported for what it is, with the provider and its
 * filters (docs/win32-contract.md §5.8).  EnableTraceEx2's page:
 * "ERROR_NO_SYSTEM_RESOURCES: Exceeded the number of trace sessions that can
 * enable the provider"; ERROR_INVALID_PARAMETER: a parameter is wrong (the
 * filter limits are EVENT_FILTER_DESCRIPTOR's: MAX_EVENT_FILTER_PID_COUNT 8,
 * MAX_EVENT_FILTER_EVENT_ID_COUNT 64). */
static void enable_failures_say_what_they_mean(void **state)
{
  static struct fake_controller f; /* too big for a Windows stack */
  struct plan_provider p;
  char buf[1024];
  (void)state;
  fake_controller_init(&f);
  provider(&p);
  controller_fail(&f.ctl, ETWCAP_E_SESSION_LIMIT, "EnableTraceEx2", 1450,
                  "ERROR_NO_SYSTEM_RESOURCES");
  controller_enable_failure(&f.ctl, &p, ETWCAP_E_SESSION_LIMIT, buf, sizeof(buf));
  assert_non_null(strstr(buf, "Test {12345678-"));
  assert_non_null(strstr(buf, "ERROR_NO_SYSTEM_RESOURCES (1450)"));
  assert_non_null(strstr(buf, "already enabled by as many trace sessions"));
  assert_null(strstr(buf, "64 sessions"));
  controller_fail(&f.ctl, ETWCAP_E_RANGE, "EnableTraceEx2", 87, "ERROR_INVALID_PARAMETER");
  controller_enable_failure(&f.ctl, &p, ETWCAP_E_RANGE, buf, sizeof(buf));
  assert_non_null(strstr(buf, "ERROR_INVALID_PARAMETER (87)"));
  assert_non_null(strstr(buf, "process ids (4 bytes)"));
  assert_non_null(strstr(buf, "at most 8 process ids"));
}

/* Each route's calls (docs/win32-contract.md §3.1-§3.3).  GROUP_MASK: the
 * 8-word mask to TraceSystemTraceEnableFlagsInfo; SYSTEM_PROVIDERS: one
 * EnableTraceEx2 per System Provider with its SYSTEM_*_KW_* keywords (the
 * System Providers page); NT Kernel Logger: nothing after the start. */
static void kernel_on_follows_the_route(void **state)
{
  static struct fake_controller f;
  static struct plan_session s;
  uint64_t h;
  (void)state;
  h = start_windows_10_kernel(&f, &s);
  /* Without a query: the plan's whole mask, as before.  krabsetw
   * perfinfo_groupmask.hpp: Masks[1] PERF_PROFILE 0x2, PERF_CONTEXT_SWITCH
   * 0x4, PERF_DISPATCHER 0x200. */
  fake_controller_fail(&f, "query_mask", NULL, ETWCAP_E_UNSUPPORTED);
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  assert_int_equal(fake_controller_count(&f, "kernel_flags", NULL), 1);
  assert_int_equal(f.calls[f.call_count - 1].mask[0], 0x7);
  assert_int_equal(f.calls[f.call_count - 1].mask[1], 0x206);
  f.fail_count = 0;
  plan_kernel_route(PLAN_ROUTE_SYSTEM_PROVIDERS, &s);
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  /* Process, Scheduler, Profile: three enables, no group mask. */
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 3);
  assert_int_equal(fake_controller_count(&f, "kernel_flags", NULL), 1);
  s.log_file_mode = PLAN_FILE_MODE_SEQUENTIAL;
  plan_kernel_route(PLAN_ROUTE_NONE, &s);
  assert_int_equal(s.route, PLAN_ROUTE_NT_KERNEL_LOGGER);
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 1), 0);
  assert_int_equal(fake_controller_count(&f, "enable", NULL), 3);
  assert_int_equal(fake_controller_count(&f, "kernel_flags", NULL), 1);
}

/* TraceSetInformation(TraceSystemTraceEnableFlagsInfo) "Sets the Group Mask
 * state" (evntrace.h), replacing the mask Windows built from EnableFlags at
 * start (docs/win32-contract.md §3.2 rule 4).  So the mask is read first: all
 * groups there, no Set; a group missing, Set what Windows applied plus what
 * was asked (a group Windows coupled to the flags, PERF_DISK_IO 0x100 here,
 * survives).  Masks[1] bits: krabsetw perfinfo_groupmask.hpp. */
static void group_mask_is_read_before_it_is_set(void **state)
{
  static struct fake_controller f;
  static struct plan_session s;
  uint64_t h;
  (void)state;
  h = start_windows_10_kernel(&f, &s);
  /* Windows applied every group from EnableFlags at start: no Set. */
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  assert_int_equal(fake_controller_count(&f, "query_mask", NULL), 1);
  assert_int_equal(fake_controller_count(&f, "kernel_flags", NULL), 0);
  /* Windows's mask lacks PERF_CONTEXT_SWITCH and has PERF_DISK_IO besides. */
  f.sessions[0].group_mask[0] = 0x7 | 0x100;
  f.sessions[0].group_mask[1] = 0x202;
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  assert_int_equal(fake_controller_count(&f, "kernel_flags", NULL), 1);
  assert_int_equal(f.calls[f.call_count - 1].mask[0], 0x107);
  assert_int_equal(f.calls[f.call_count - 1].mask[1], 0x206);
}

/* A group with no classic flag (PERF_PMC_PROFILE, Masks[1] 0x400: krabsetw
 * perfinfo_groupmask.hpp; /CpuCounters' PMC samples) does not survive an
 * UPDATE, which carries only EnableFlags (ControlTraceW: the flags are "the
 * system providers that you want to enable or keep enabled"; the fake
 * keeps the groups of those flags); putting the events back after the
 * switch sets it again with the rest (docs/win32-contract.md §4.5). */
static void a_switch_loses_the_pmc_group_and_the_put_back_restores_it(void **state)
{
  static struct fake_controller f;
  static struct plan_session s;
  uint64_t h;
  (void)state;
  fake_controller_init(&f);
  f.write_files = 0;
  memset(&s, 0, sizeof(s));
  s.log_file_mode = PLAN_SYSTEM_LOGGER_MODE | PLAN_FILE_MODE_SEQUENTIAL;
  s.enable_flags = 0x01000007; /* Process|Thread|ImageLoad|Profile */
  s.pmc_profile = 1;
  plan_kernel_route(PLAN_ROUTE_NONE, &s);
  h = start_session(&f, &s);
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  assert_int_equal(f.sessions[0].group_mask[1], 0x2 | 0x400);
  assert_int_equal(f.ctl.ops->switch_file(&f.ctl, &s, "etwcapKernel", "next.kernel.etl"), 0);
  assert_int_equal(f.sessions[0].group_mask[1], 0x2);
  assert_int_equal(controller_kernel_on(&f.ctl, h, &s, 2), 0);
  assert_int_equal(f.calls[f.call_count - 1].mask[1], 0x2 | 0x400);
  assert_int_equal(f.sessions[0].group_mask[1], 0x2 | 0x400);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(error_texts_name_the_api_and_the_code),
    cmocka_unit_test(enable_failures_say_what_they_mean),
    cmocka_unit_test(kernel_on_follows_the_route),
    cmocka_unit_test(group_mask_is_read_before_it_is_set),
    cmocka_unit_test(a_switch_loses_the_pmc_group_and_the_put_back_restores_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
