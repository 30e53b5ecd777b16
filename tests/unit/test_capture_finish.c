/* The end of a capture (capture_finish.h): what it reports and leaves behind
 * when the merge cannot even start, and that the one-pass zip holds exactly
 * the merged ETL a merge without /Zip writes, with nothing else left. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/finish/capture_finish.h"

#include <stdio.h>
#include <stdlib.h>
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
  f = fopen(sibling, "wb");
  assert_non_null(f);
  fputs("not really an ETL file", f);
  fclose(f);
  /* The main file is a folder: the collection lists it first, and opening
   * it as an input fails before the merge starts (a folder named like a
   * sibling is left out instead). */
  assert_int_equal(test_mkdir(main_path), 0);
  memset(&p, 0, sizeof(p));
  p.data_file = main_path;
  p.zip = 1;
  dirty_the_stack();
  rc = capture_finish(&p, &r, why, sizeof(why));
  assert_int_not_equal(rc, 0);
  assert_true(strstr(why, "X.etl") != NULL);
  assert_int_equal(r.events, 0);
  /* The inputs are kept, nothing else is written. */
  assert_int_equal(os_file_size(sibling, &size), 0);
  assert_int_equal(size, 22);
  assert_true(os_is_directory(main_path));
  os_remove(sibling);
  os_remove_dir(main_path);
  snprintf(sibling, sizeof(sibling), "%s/X.etl.zip", dir);
  assert_int_not_equal(os_file_size(sibling, &size), 0);
}

/* A collection as PerfView names its files, from the diaghub capture's
 * three session files (one clock); 0 when the samples are absent. */
static int make_collection(const char *dir, char *data_file, size_t size)
{
  static const char *const members[3][2] = {
    { "diaghub.user_injected.1.etl", "X.etl" },
    { "diaghub.kernel.1.etl", "X.kernel.etl" },
    { "diaghub.user_paged.1.etl", "X.user_paged.etl" },
  };
  char zip[600], out[600];
  int i;
  if (!test_samples_dir())
    return 0;
  snprintf(zip, sizeof(zip), "%s/ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
           test_samples_dir());
  assert_int_equal(test_mkdir(dir), 0);
  for (i = 0; i < 3; i++) {
    snprintf(out, sizeof(out), "%s/%s", dir, members[i][1]);
    test_extract_member(zip, members[i][0], out);
  }
  snprintf(data_file, size, "%s/X.etl", dir);
  return 1;
}

static int count_entry(void *ctx, const char *name)
{
  (void)name;
  ++*(int *)ctx;
  return 0;
}

static unsigned char *read_whole(const char *path, size_t *len)
{
  char *text;
  assert_int_equal(file_read_small(path, 512u << 20, &text, len), 0);
  return (unsigned char *)text;
}

static void finish(const char *data_file, int zip, struct capture_finish_result *r)
{
  struct capture_finish_params p;
  char why[512];
  memset(&p, 0, sizeof(p));
  p.data_file = data_file;
  p.zip = zip;
  assert_int_equal(capture_finish(&p, r, why, sizeof(why)), 0);
}

static void the_zip_holds_the_merged_etl_and_nothing_is_left(void **state)
{
  char zipped_dir[512], plain_dir[512], zipped[600], plain[600], zip[620], back[620];
  struct capture_finish_result rz, rp;
  unsigned char *a, *b;
  size_t a_len, b_len;
  int entries = 0;
  (void)state;
  test_tmp_path("capture_finish_zip", zipped_dir, sizeof(zipped_dir));
  test_tmp_path("capture_finish_plain", plain_dir, sizeof(plain_dir));
  if (!make_collection(zipped_dir, zipped, sizeof(zipped)) ||
      !make_collection(plain_dir, plain, sizeof(plain)))
    skip();
  finish(zipped, 1, &rz);
  finish(plain, 0, &rp);
  assert_int_equal(rz.inputs, 3);
  assert_int_equal(rz.events, rp.events);
  /* In the zipped folder only the zip is left: no session file, no
   * temporary, no merged ETL written apart. */
  assert_int_equal(os_dir_list(zipped_dir, count_entry, &entries), 0);
  assert_int_equal(entries, 1);
  snprintf(zip, sizeof(zip), "%s.zip", zipped);
  test_tmp_path("capture_finish_back.etl", back, sizeof(back)); /* not in the folder counted */
  test_extract_member(zip, "X.etl", back);
  a = read_whole(back, &a_len);
  b = read_whole(plain, &b_len);
  assert_int_equal(a_len, b_len);
  assert_memory_equal(a, b, a_len);
  etwcap_free(a);
  etwcap_free(b);
  os_remove(back);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(an_input_that_cannot_be_opened_reports_no_events),
    cmocka_unit_test(the_zip_holds_the_merged_etl_and_nothing_is_left),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
