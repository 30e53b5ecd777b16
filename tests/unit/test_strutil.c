/* Locale-independent string parsing used by the qualifier parser. */
#include "tests/fakes/test_support.h"

#include "src/base/strutil.h"

#include <stdint.h>

static void integers_decimal_and_hex(void **state)
{
  int64_t v;
  (void)state;
  assert_int_equal(str_parse_int64("1024", &v), 0);
  assert_int_equal(v, 1024);
  assert_int_equal(str_parse_int64("0x0101270F", &v), 0);
  assert_int_equal(v, 0x0101270F);
  assert_int_equal(str_parse_int64("-5", &v), 0);
  assert_int_equal(v, -5);
  assert_int_equal(str_parse_int64("9223372036854775807", &v), 0);
  assert_true(v == INT64_MAX);
  assert_int_equal(str_parse_int64("-9223372036854775808", &v), 0);
  assert_true(v == INT64_MIN);
}

static void integers_reject_junk_and_overflow(void **state)
{
  const char *bad[] = { "", "-", "0x", "12a", " 1", "1 ", "--1", "+-1", "0x1g",
                        "9223372036854775808", "99999999999999999999999" };
  size_t i;
  int64_t v;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    assert_int_equal(str_parse_int64(bad[i], &v), -1);
}

static void unsigned_and_hex_masks(void **state)
{
  uint64_t v;
  (void)state;
  assert_int_equal(str_parse_uint64("0xFFFFFFFFFFFFFFFF", &v), 0);
  assert_true(v == UINT64_MAX);
  assert_int_equal(str_parse_uint64("0x10000000000000000", &v), -1);
  assert_int_equal(str_parse_hex_uint64("14C14FCCBD", &v), 0);
  assert_true(v == UINT64_C(0x14C14FCCBD));
  assert_int_equal(str_parse_hex_uint64("0x4", &v), 0);
  assert_true(v == 4);
}

static void doubles(void **state)
{
  double d;
  (void)state;
  assert_int_equal(str_parse_double("0.125", &d), 0);
  assert_true(d == 0.125);
  assert_int_equal(str_parse_double("5e10", &d), 0);
  assert_true(d == 5e10);
  assert_int_equal(str_parse_double("-2.5E-1", &d), 0);
  assert_true(d == -0.25);
  assert_int_equal(str_parse_double(".5", &d), 0);
  assert_true(d == 0.5);
  assert_int_equal(str_parse_double("1,5", &d), -1);
  assert_int_equal(str_parse_double("", &d), -1);
  assert_int_equal(str_parse_double("e5", &d), -1);
  assert_int_equal(str_parse_double("1e", &d), -1);
  assert_int_equal(str_parse_double("1e999", &d), -1);
}

static void case_insensitive_compare(void **state)
{
  (void)state;
  assert_true(str_caseeq("ThreadTime", "THREADTIME"));
  assert_false(str_caseeq("ThreadTime", "ThreadTim"));
  assert_true(str_ncaseeq("CircularMB", "circ", 4));
  assert_true(str_ends_with_case("trace.ETL", ".etl"));
  assert_false(str_ends_with_case("etl", ".etl"));
  assert_true(str_casecmp("a", "B") < 0);
}

/* Line breaks, tabs, escapes and DEL become '?'; UTF-8 stays. */
static void control_characters_neutralised(void **state)
{
  char name[] = "tr\r\nace\x1b[2J\x7f\tcaf\xc3\xa9.etl";
  (void)state;
  str_neutralise_controls(name);
  assert_string_equal(name, "tr??ace?[2J??caf\xc3\xa9.etl");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(integers_decimal_and_hex),
    cmocka_unit_test(integers_reject_junk_and_overflow),
    cmocka_unit_test(unsigned_and_hex_masks),
    cmocka_unit_test(doubles),
    cmocka_unit_test(case_insensitive_compare),
    cmocka_unit_test(control_characters_neutralised),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
