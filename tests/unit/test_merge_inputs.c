/* A collection's files by PerfView's naming (docs/perfview-collection.md §8.1). */
#include "tests/fakes/test_support.h"

#include "etw/merge/merge_inputs.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

static void sibling_names(void **state)
{
  (void)state;
  assert_true(merge_inputs_is_sibling("X.etl", "X.kernel.etl"));
  assert_true(merge_inputs_is_sibling("X.etl", "X.kernelRundown.etl"));
  assert_true(merge_inputs_is_sibling("X.etl", "X.clrRundown.etl"));
  assert_true(merge_inputs_is_sibling("X.etl", "X.userheap.etl"));
  assert_true(merge_inputs_is_sibling("trace.etl", "TRACE.Kernel.ETL"));
  assert_true(merge_inputs_is_sibling("diaghub.etl", "diaghub.user_paged.1.etl"));
  assert_false(merge_inputs_is_sibling("X.etl", "X.etl"));
  assert_false(merge_inputs_is_sibling("X.etl", "X.kernel.etl.zip"));
  assert_false(merge_inputs_is_sibling("X.etl", "Y.kernel.etl"));
  assert_false(merge_inputs_is_sibling("X.etl", "XX.kernel.etl"));
  assert_false(merge_inputs_is_sibling("X.etl", "X.other.etl"));
  assert_false(merge_inputs_is_sibling("X.etl", "X.kernel"));
  assert_false(merge_inputs_is_sibling("X.zip", "X.kernel.etl"));
}

static void touch(const char *dir, const char *name)
{
  char path[600];
  FILE *f;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "wb");
  assert_non_null(f);
  fclose(f);
}

static void finds_siblings_in_the_folder(void **state)
{
  char dir[512], main_path[600], path[600];
  struct merge_inputs in;
  const char *names[] = { "mi.etl", "mi.kernel.etl", "mi.clrRundown.etl", "mi.user_x.etl",
                          "mi.other.etl", "mix.kernel.etl" };
  size_t i;
  (void)state;
  test_tmp_path("", dir, sizeof(dir));
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    touch(dir, names[i]);
  /* A folder named like a session file is not one. */
  snprintf(path, sizeof(path), "%s/mi.kernel2.etl", dir);
  assert_int_equal(test_mkdir(path), 0);
  snprintf(main_path, sizeof(main_path), "%s/mi.etl", dir);
  assert_int_equal(merge_inputs_find(main_path, &in), 0);
  assert_int_equal(in.count, 4);
  assert_string_equal(in.paths[0], main_path);
  snprintf(path, sizeof(path), "%s/mi.clrRundown.etl", dir);
  assert_string_equal(in.paths[1], path);
  snprintf(path, sizeof(path), "%s/mi.kernel.etl", dir);
  assert_string_equal(in.paths[2], path);
  snprintf(path, sizeof(path), "%s/mi.user_x.etl", dir);
  assert_string_equal(in.paths[3], path);
  merge_inputs_release(&in);
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    remove(path);
  }
  snprintf(path, sizeof(path), "%s/mi.kernel2.etl", dir);
  assert_int_equal(os_remove_dir(path), 0);
}

static void missing_main_file_is_an_error(void **state)
{
  struct merge_inputs in;
  char path[600];
  (void)state;
  test_tmp_path("no-such-collection.etl", path, sizeof(path));
  assert_int_equal(merge_inputs_find(path, &in), ETWCAP_E_NOENT);
  assert_int_equal(in.count, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(sibling_names),
    cmocka_unit_test(finds_siblings_in_the_folder),
    cmocka_unit_test(missing_main_file_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
