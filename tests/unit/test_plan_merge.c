/* The per-GUID merge on its own (plan_merge_providers): union of keywords,
 * highest level, disable by level 0 + keywords 0, filters widened. */
#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

static struct plan_provider make(uint32_t d1, uint8_t level, uint64_t any)
{
  struct plan_provider p;
  memset(&p, 0, sizeof(p));
  p.guid.data1 = d1;
  p.level = level;
  p.match_any = any;
  p.match_all = 0;
  p.control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  return p;
}

static void release_all(struct plan_provider *list, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    plan_provider_release(&list[i]);
}

static void same_guid_unions_keywords_and_takes_the_highest_level(void **state)
{
  struct plan_provider list[3] = { make(1, 4, 0x10), make(2, 5, 0x1), make(1, 5, 0x4) };
  size_t n = 3;
  (void)state;
  list[0].enable_property = PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
  list[2].stacks = 1;
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(list[0].guid.data1, 1); /* first appearance keeps its place */
  assert_int_equal(list[0].match_any, 0x14);
  assert_int_equal(list[0].level, 5);
  assert_int_equal(list[0].enable_property, PLAN_ENABLE_PROPERTY_ENABLE_SILOS);
  assert_true(list[0].stacks);
  assert_int_equal(list[1].guid.data1, 2);
  release_all(list, n);
}

static void match_all_is_intersected(void **state)
{
  struct plan_provider list[2] = { make(1, 4, 1), make(1, 4, 2) };
  size_t n = 2;
  (void)state;
  list[0].match_all = 0x3;
  list[1].match_all = 0x1;
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(list[0].match_all, 0x1);
  release_all(list, n);
}

static void level_zero_keywords_zero_removes_earlier_enables(void **state)
{
  struct plan_provider list[5] = { make(1, 5, ~0ull), make(2, 4, 1), make(1, 4, 2),
                                   make(1, 0, 0), make(1, 4, 0x4) };
  size_t n = 5;
  (void)state;
  assert_int_equal(plan_merge_providers(list, &n), 0);
  /* GUID 1 was dropped, then enabled again after the disable. */
  assert_int_equal(n, 2);
  assert_int_equal(list[0].guid.data1, 2);
  assert_int_equal(list[1].guid.data1, 1);
  assert_int_equal(list[1].match_any, 0x4);
  assert_int_equal(list[1].level, 4);
  release_all(list, n);
}

static void rundown_passes_stay_apart(void **state)
{
  struct plan_provider list[2] = { make(1, 5, 0x108), make(1, 5, 0x1080060111ull) };
  size_t n = 2;
  (void)state;
  list[1].pass = 1;
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_int_equal(n, 2);
  release_all(list, n);
}

static void filters_widen(void **state)
{
  struct plan_provider list[4] = { make(1, 5, 1), make(1, 5, 1), make(2, 5, 1), make(2, 5, 1) };
  size_t n = 4;
  (void)state;
  /* GUID 1: two "only these" lists join; pid lists join. */
  list[0].events.present = list[1].events.present = 1;
  list[0].events.filter_in = list[1].events.filter_in = 1;
  list[0].events.ids[0] = 7;
  list[0].events.count = 1;
  list[1].events.ids[0] = 7;
  list[1].events.ids[1] = 9;
  list[1].events.count = 2;
  list[0].pids[0] = 10;
  list[0].pid_count = 1;
  list[1].pids[0] = 11;
  list[1].pid_count = 1;
  /* GUID 2: an unfiltered enable takes everything. */
  list[2].events.present = 1;
  list[2].events.filter_in = 1;
  list[2].events.count = 1;
  list[2].pids[0] = 10;
  list[2].pid_count = 1;
  list[2].exe_names = etwcap_strdup("a.exe");
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(list[0].events.count, 2);
  assert_int_equal(list[0].events.ids[1], 9);
  assert_int_equal(list[0].pid_count, 2);
  assert_false(list[1].events.present);
  assert_int_equal(list[1].pid_count, 0);
  assert_null(list[1].exe_names);
  release_all(list, n);
}

static void later_arguments_win(void **state)
{
  struct plan_provider list[2] = { make(1, 5, 1), make(1, 5, 1) };
  size_t n = 2;
  (void)state;
  list[0].args = etwcap_calloc(1, sizeof(*list[0].args));
  list[0].args[0].key = etwcap_strdup("A");
  list[0].args[0].value = etwcap_strdup("1");
  list[0].arg_count = 1;
  list[1].args = etwcap_calloc(1, sizeof(*list[1].args));
  list[1].args[0].key = etwcap_strdup("B");
  list[1].args[0].value = etwcap_strdup("2");
  list[1].arg_count = 1;
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_int_equal(n, 1);
  assert_int_equal(list[0].arg_count, 1);
  assert_string_equal(list[0].args[0].key, "B");
  release_all(list, n);
}

static void exe_name_lists_join(void **state)
{
  struct plan_provider list[2] = { make(1, 5, 1), make(1, 5, 1) };
  size_t n = 2;
  (void)state;
  list[0].exe_names = etwcap_strdup("a.exe");
  list[1].exe_names = etwcap_strdup("b.exe");
  assert_int_equal(plan_merge_providers(list, &n), 0);
  assert_string_equal(list[0].exe_names, "a.exe;b.exe");
  release_all(list, n);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_guid_unions_keywords_and_takes_the_highest_level),
    cmocka_unit_test(match_all_is_intersected),
    cmocka_unit_test(level_zero_keywords_zero_removes_earlier_enables),
    cmocka_unit_test(rundown_passes_stay_apart),
    cmocka_unit_test(filters_widen),
    cmocka_unit_test(later_arguments_win),
    cmocka_unit_test(exe_name_lists_join),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
