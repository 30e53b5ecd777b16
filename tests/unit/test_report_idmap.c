/* The id map of `etwcap report` (src/report/report_idmap.c): one value per id
 * (report_idmap_put), several per hash (report_idmap_add), bounded size. */
#include "tests/fakes/test_support.h"

#include "src/report/report_idmap.h"

#include <string.h>

static void put_replaces_the_value_of_a_known_key(void **state)
{
  struct report_idmap m;
  uint32_t v = 0;
  (void)state;
  assert_int_equal(report_idmap_init(&m, 1024), 0);
  assert_int_equal(report_idmap_put(&m, 4, 10), 0);
  assert_int_equal(report_idmap_put(&m, 4, 11), 0);
  assert_int_equal(report_idmap_get(&m, 4, &v), 1);
  assert_int_equal(v, 11);
  assert_int_equal(m.count, 1);
  assert_int_equal(report_idmap_get(&m, 8, &v), 0);
  report_idmap_release(&m);
}

/* Every value added under one key comes back once, among neighbours in the
 * same slots and across the doublings of the table. */
static void next_gives_every_value_of_a_shared_key(void **state)
{
  struct report_idmap m;
  size_t cursor = 0;
  uint32_t v, seen = 0, i, n = 0;
  (void)state;
  assert_int_equal(report_idmap_init(&m, 4096), 0);
  for (i = 0; i < 1000; i++)
    assert_int_equal(report_idmap_add(&m, i % 50 == 0 ? 7 : 100 + i, 1000 + i), 0);
  while (report_idmap_next(&m, 7, &cursor, &v)) {
    assert_true(v >= 1000 && (v - 1000) % 50 == 0);
    assert_false(seen >> (v - 1000) / 50 & 1);
    seen |= 1u << (v - 1000) / 50;
    n++;
  }
  assert_int_equal(n, 20);
  assert_int_equal(seen, (1u << 20) - 1);
  assert_int_equal(report_idmap_next(&m, 7, &cursor, &v), 0);
  cursor = 0;
  assert_int_equal(report_idmap_next(&m, 103, &cursor, &v), 1);
  assert_int_equal(v, 1003);
  assert_int_equal(report_idmap_next(&m, 103, &cursor, &v), 0);
  cursor = 0;
  assert_int_equal(report_idmap_next(&m, 5000, &cursor, &v), 0);
  report_idmap_release(&m);
}

static void a_full_map_refuses_new_keys_and_keeps_the_others(void **state)
{
  struct report_idmap m;
  uint32_t v, i;
  (void)state;
  assert_int_equal(report_idmap_init(&m, 64), 0);
  for (i = 0; i < 48; i++)
    assert_int_equal(report_idmap_add(&m, i, i), 0);
  assert_int_equal(report_idmap_add(&m, 1, 100), -1);
  assert_int_equal(report_idmap_put(&m, 100, 100), -1);
  for (i = 0; i < 48; i++) {
    assert_int_equal(report_idmap_get(&m, i, &v), 1);
    assert_int_equal(v, i);
  }
  report_idmap_release(&m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(put_replaces_the_value_of_a_known_key),
    cmocka_unit_test(next_gives_every_value_of_a_shared_key),
    cmocka_unit_test(a_full_map_refuses_new_keys_and_keeps_the_others),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
