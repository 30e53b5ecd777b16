/* The end of a capture (capture_finish.h): what it reports and leaves behind
 * when the merge cannot even start. */
#include "test_support.h"

#include "capture_finish.h"
#include "error.h"
#include "os_file.h"

#include <stdio.h>
#include <string.h>

/* Leaves a recognisable non-zero pattern where the next call's locals will
 * live, so a field read before it was written shows up as that pattern. */
static void __attribute__((noinline)) dirty_the_stack(void)
{
  volatile unsigned char junk[64 * 1024];
  size_t i;
  for (i = 0; i < sizeof(junk); i++)
    junk[i] = 0xA5;
}

static void an_input_that_cannot_be_opened_reports_no_events(void **state)
{
  char dir[512], main_path[600], sibling[600], why[512];
  struct capture_finish_params p;
  struct capture_finish_result r;
  int64_t size;
  FILE *f;
  int rc;
  (void)state;
  test_tmp_path("capture_finish_open_fails", dir, sizeof(dir));
  assert_int_equal(test_mkdir(dir), 0);
  snprintf(main_path, sizeof(main_path), "%s/X.etl", dir);
  snprintf(sibling, sizeof(sibling), "%s/X.kernel.etl", dir);
  f = fopen(main_path, "wb");
  assert_non_null(f);
  fputs("not really an ETL file", f);
  fclose(f);
  /* A folder named like a session file: the collection lists it, opening
   * it as an input fails before the merge starts. */
  assert_int_equal(test_mkdir(sibling), 0);
  memset(&p, 0, sizeof(p));
  p.data_file = main_path;
  p.zip = 1;
  dirty_the_stack();
  rc = capture_finish(&p, &r, why, sizeof(why));
  assert_int_not_equal(rc, 0);
  assert_true(strstr(why, "X.kernel.etl") != NULL);
  assert_int_equal(r.events, 0);
  /* The input is kept, nothing else is written. */
  assert_int_equal(os_file_size(main_path, &size), 0);
  assert_int_equal(size, 22);
  snprintf(sibling, sizeof(sibling), "%s/X.etl.zip", dir);
  assert_int_not_equal(os_file_size(sibling, &size), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(an_input_that_cannot_be_opened_reports_no_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
