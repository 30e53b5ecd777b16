/* /CpuCounters and /LbrSources, /LbrFilters in the plan (plan_kernel_extras.c).
 * Expected values come from PerfView and TraceEvent (CommandProcessor
 * SetCpuCounters, CommandLineArgs CommandLineLbrSources/Filters, TraceEvent
 * LbrSource.PmcInterrupt 0x0F2F and LbrFilterFlags), the group mask bit from
 * krabsetw (PERF_PMC_PROFILE 0x20000400) and the System Provider keyword from
 * evntrace.h (SYSTEM_PROFILE_KW_PMC_PROFILE 0x2).  The machine's sources are
 * given, as plan_cli gives those Windows lists. */
#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "src/base/error.h"

#include <string.h>

static const struct plan_machine_source machine[] = {
  { "Timer", 0, 10000, 1221, 1000000 },
  { "BranchMispredictions", 11, 65536, 4096, 0x7FFFFFFF },
  { "TotalCycles", 19, 65536, 4096, 0x7FFFFFFF },
};

static void options(struct plan_options *o, char **counters, size_t n, unsigned build)
{
  plan_options_init(o);
  o->os.build = build;
  o->cpu_counters = counters;
  o->cpu_counter_count = n;
  memcpy(o->machine_sources, machine, sizeof(machine));
  o->machine_source_count = 3;
  o->machine_sources_known = 1;
}

static const struct plan_session *kernel(const struct plan *p)
{
  size_t i;
  for (i = 0; i < p->session_count; i++)
    if (p->sessions[i].role == PLAN_ROLE_KERNEL)
      return &p->sessions[i];
  return NULL;
}

static int has_stack_id(const struct plan_session *s, uint8_t type)
{
  size_t i;
  for (i = 0; i < s->stack_id_count; i++)
    if (s->stack_ids[i].task.data1 == 0xce1dbfb4 && s->stack_ids[i].type == type)
      return 1;
  return 0;
}

static void counters_resolve_to_the_machines_ids(void **state)
{
  char *counters[] = { (char *)"branchmispredictions:10000", (char *)"TotalCycles:20000" };
  struct plan_options o;
  struct plan p;
  const struct plan_session *k;
  (void)state;
  options(&o, counters, 2, 17763); /* group mask route */
  assert_int_equal(plan_build(&o, &p), 0);
  k = kernel(&p);
  assert_non_null(k);
  assert_true(k->pmc_profile);
  assert_true(k->needs_profile_privilege);
  assert_int_equal(k->profile_source_count, 2);
  assert_string_equal(k->profile_sources[0].name, "BranchMispredictions");
  assert_int_equal(k->profile_sources[0].id, 11);
  assert_int_equal(k->profile_sources[0].interval, 10000);
  assert_int_equal(k->profile_sources[1].id, 19);
  assert_int_equal(k->profile_sources[1].interval, 20000);
  /* PMCProfile is the kernel keyword 0x80000000 (TraceEvent), never an
   * EnableFlags bit: PERF_PMC_PROFILE in Masks[1] instead. */
  assert_true(k->kernel_keywords & 0x80000000ull);
  assert_int_equal(k->enable_flags & 0x80000000u, 0);
  assert_int_equal(k->group_mask[1] & 0x400u, 0x400u);
  /* The PMC sample (PerfInfo 0x2F) gets a stack, as SetStackTraceIds. */
  assert_true(has_stack_id(k, 0x2F));
  plan_release(&p);
}

static void system_providers_route_gets_the_pmc_keyword(void **state)
{
  char *counters[] = { (char *)"TotalCycles:4096" };
  struct plan_options o;
  struct plan p;
  const struct plan_session *k;
  size_t i;
  int found = 0;
  (void)state;
  options(&o, counters, 1, 20348);
  o.kernel_route = "systemProviders";
  assert_int_equal(plan_build(&o, &p), 0);
  k = kernel(&p);
  assert_int_equal(k->route, PLAN_ROUTE_SYSTEM_PROVIDERS);
  for (i = 0; i < k->system_provider_count; i++)
    if (k->system_providers[i].guid.data1 == 0xbfeb0324) { /* SystemProfileProvider */
      assert_int_equal(k->system_providers[i].keywords & 0x2, 0x2);
      found = 1;
    }
  assert_true(found);
  plan_release(&p);
}

static void unknown_name_lists_the_machines_sources(void **state)
{
  char *counters[] = { (char *)"LLCMisses:10000" };
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, counters, 1, 20348);
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "'LLCMisses'"));
  assert_non_null(strstr(p.error, "Timer, BranchMispredictions, TotalCycles"));
  plan_release(&p);
}

static void interval_outside_min_max_is_an_error(void **state)
{
  char *counters[] = { (char *)"TotalCycles:4095" };
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, counters, 1, 20348);
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "4096 to 2147483647"));
  plan_release(&p);
}

static void malformed_spec_is_an_error(void **state)
{
  char *counters[] = { (char *)"TotalCycles" };
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, counters, 1, 20348);
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "NAME:COUNT"));
  plan_release(&p);
}

static void unknown_machine_keeps_names_unresolved_with_a_note(void **state)
{
  char *counters[] = { (char *)"Anything:5000" };
  struct plan_options o;
  struct plan p;
  const struct plan_session *k;
  (void)state;
  options(&o, counters, 1, 20348);
  o.machine_sources_known = 0;
  assert_int_equal(plan_build(&o, &p), 0);
  k = kernel(&p);
  assert_int_equal(k->profile_source_count, 1);
  assert_false(k->profile_sources[0].resolved);
  assert_string_equal(k->profile_sources[0].name, "Anything");
  assert_true(p.note_count > 0);
  plan_release(&p);
}

static void cpu_counters_alone_make_a_kernel_session(void **state)
{
  char *counters[] = { (char *)"TotalCycles:65536" };
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, counters, 1, 20348);
  o.kernel_events = "None";
  assert_int_equal(plan_build(&o, &p), 0);
  assert_non_null(kernel(&p));
  assert_true(kernel(&p)->pmc_profile);
  plan_release(&p);
}

static void pmc_profile_by_name_is_refused(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, NULL, 0, 20348);
  o.kernel_events = "Default+PMCProfile";
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "PMCProfile"));
  plan_release(&p);
}

static void windows_7_drops_cpu_counters(void **state)
{
  char *counters[] = { (char *)"TotalCycles:65536" };
  struct plan_options o;
  struct plan p;
  (void)state;
  options(&o, counters, 1, 7601);
  o.os.major = 6;
  o.os.minor = 1;
  assert_int_equal(plan_build(&o, &p), 0);
  assert_false(kernel(&p)->pmc_profile);
  assert_int_equal(kernel(&p)->profile_source_count, 0);
  assert_true(p.note_count > 0);
  plan_release(&p);
}

static void lbr_sources_and_filters(void **state)
{
  struct plan_options o;
  struct plan p;
  const struct plan_session *k;
  (void)state;
  options(&o, NULL, 0, 18362);
  o.lbr_sources = "PmcInterrupt, 0x0F2E";
  o.lbr_filters = "StackMode,User";
  assert_int_equal(plan_build(&o, &p), 0);
  k = kernel(&p);
  assert_int_equal(k->lbr_source_count, 2);
  assert_int_equal(k->lbr_sources[0], 0x0F2F); /* EVENT_TRACE_GROUP_PERFINFO | 0x2f */
  assert_int_equal(k->lbr_sources[1], 0x0F2E);
  assert_int_equal(k->lbr_filters, 0x200 | 0x2); /* CallstackEnable | FilterUser */
  plan_release(&p);
}

static void lbr_refusals_match_perfview(void **state)
{
  static const char *const bad_filters[] = { "StackMode,FarBranches", "Kernel,User", "Sideways" };
  struct plan_options o;
  struct plan p;
  size_t i;
  (void)state;
  for (i = 0; i < 3; i++) {
    options(&o, NULL, 0, 20348);
    o.lbr_sources = "PmcInterrupt";
    o.lbr_filters = bad_filters[i];
    assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
    plan_release(&p);
  }
  options(&o, NULL, 0, 20348);
  o.lbr_sources = "0x1,0x2,0x3,0x4,0x5"; /* ETW_MAX_LBR_EVENTS is 4 */
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "at most 4"));
  plan_release(&p);
  options(&o, NULL, 0, 20348);
  o.lbr_sources = "0xZZ";
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  plan_release(&p);
}

static void lbr_before_19h1_is_dropped_with_a_note(void **state)
{
  struct plan_options o;
  struct plan p;
  size_t i;
  int noted = 0;
  (void)state;
  options(&o, NULL, 0, 17763);
  o.lbr_sources = "PmcInterrupt";
  assert_int_equal(plan_build(&o, &p), 0);
  assert_int_equal(kernel(&p)->lbr_source_count, 0);
  for (i = 0; i < p.note_count; i++)
    noted |= strstr(p.notes[i], "18362") != NULL;
  assert_true(noted);
  plan_release(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(counters_resolve_to_the_machines_ids),
    cmocka_unit_test(system_providers_route_gets_the_pmc_keyword),
    cmocka_unit_test(unknown_name_lists_the_machines_sources),
    cmocka_unit_test(interval_outside_min_max_is_an_error),
    cmocka_unit_test(malformed_spec_is_an_error),
    cmocka_unit_test(unknown_machine_keeps_names_unresolved_with_a_note),
    cmocka_unit_test(cpu_counters_alone_make_a_kernel_session),
    cmocka_unit_test(pmc_profile_by_name_is_refused),
    cmocka_unit_test(windows_7_drops_cpu_counters),
    cmocka_unit_test(lbr_sources_and_filters),
    cmocka_unit_test(lbr_refusals_match_perfview),
    cmocka_unit_test(lbr_before_19h1_is_dropped_with_a_note),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
