/* Path parts with both separators, a suffix cut off, and PerfView's DataFile
 * naming rule. */
#include "tests/fakes/test_support.h"

#include "etw/plan/data_file.h"
#include "src/base/alloc.h"
#include "src/base/path_name.h"

static void base_name_and_folder(void **state)
{
  (void)state;
  assert_string_equal(path_base_name("C:\\traces\\x.etl"), "x.etl");
  assert_string_equal(path_base_name("/tmp/a\\b/x.etl"), "x.etl");
  assert_string_equal(path_base_name("dir/x.kernel.etl"), "x.kernel.etl");
  assert_string_equal(path_base_name("x.etl"), "x.etl");
  assert_int_equal(path_dir_len("C:\\traces\\x.etl"), 10);
  assert_int_equal(path_dir_len("x.etl"), 0);
  assert_int_equal(path_dir_len("/x"), 1);
}

static void stem_without_suffix(void **state)
{
  (void)state;
  assert_int_equal(path_stem_len("dir/x.etl", ".etl"), 5);
  assert_int_equal(path_stem_len("X.ETL", ".etl"), 1); /* any case, as Windows */
  assert_int_equal(path_stem_len("x.etl.zip", ".etl"), 9);
  assert_int_equal(path_stem_len("x.etl.zip", ".etl.zip"), 1);
  assert_int_equal(path_stem_len(".etl", ".etl"), 0);
  assert_int_equal(path_stem_len("etl", ".etl"), 3);
  assert_int_equal(path_stem_len("", ".etl"), 0);
}

static void expect_name(const char *given, const char *expected)
{
  char *name = NULL;
  assert_int_equal(data_file_name(given, &name), 0);
  assert_string_equal(name, expected);
  etwcap_free(name);
}

static void data_file_rule(void **state)
{
  (void)state;
  expect_name("trace.etl", "trace.etl");
  expect_name("trace", "trace.etl");
  expect_name("trace.etl.zip", "trace.etl");
  expect_name("TRACE.ETL.ZIP", "TRACE.ETL");
  expect_name("trace.ETL", "trace.ETL"); /* PerfView would make trace.ETL.etl */
  expect_name("trace.zip", "trace.zip.etl");
  expect_name(".etl.zip", ".etl.zip.etl");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(base_name_and_folder),
    cmocka_unit_test(stem_without_suffix),
    cmocka_unit_test(data_file_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
