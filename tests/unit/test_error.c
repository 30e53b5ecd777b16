/* The error list: every code has a unique value, name, message and exit code. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"

#include <string.h>

static const int all_codes[] = {
#define CODE(name, value, exit_code, msg) value,
  ETWCAP_ERRORS(CODE)
#undef CODE
};

static void codes_are_negative_and_unique(void **state)
{
  size_t i, j, n = sizeof(all_codes) / sizeof(all_codes[0]);
  (void)state;
  for (i = 0; i < n; i++) {
    assert_true(all_codes[i] < 0);
    for (j = i + 1; j < n; j++)
      assert_int_not_equal(all_codes[i], all_codes[j]);
  }
}

static void every_code_has_name_message_and_exit_code(void **state)
{
  size_t i, n = sizeof(all_codes) / sizeof(all_codes[0]);
  (void)state;
  for (i = 0; i < n; i++) {
    assert_string_not_equal(etwcap_err_name(all_codes[i]), "UNKNOWN");
    assert_string_not_equal(etwcap_strerror(all_codes[i]), "unknown error");
    assert_true(etwcap_exit_code(all_codes[i]) > 0);
  }
  assert_string_equal(etwcap_err_name(ETWCAP_E_NOMEM), "NOMEM");
  assert_string_equal(etwcap_err_name(0), "OK");
  assert_int_equal(etwcap_exit_code(0), 0);
  assert_int_equal(etwcap_exit_code(ETWCAP_E_USAGE), 2);
  assert_string_equal(etwcap_err_name(-9999), "UNKNOWN");
  assert_int_equal(etwcap_exit_code(-9999), 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(codes_are_negative_and_unique),
    cmocka_unit_test(every_code_has_name_message_and_exit_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
