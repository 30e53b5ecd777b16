/* The periodic kernel rundown files kept for a ring or segment
 * (periodic_rundown_files.h): the newest PERIODIC_RUNDOWN_FILES_KEPT stay,
 * the oldest goes as each new one is written, only while it is still the
 * file etwcap wrote; another data file's are left to that one's merge; a
 * snapshot gets copies.  Real files in the test folder, natively and under
 * Wine. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/periodic_rundown_files.h"
#include "tests/fakes/log_capture.h"

#include <stdio.h>
#include <string.h>

static struct periodic_rundown_files files;
static struct log_capture captured;

static int setup(void **state)
{
  (void)state;
  memset(&files, 0, sizeof(files));
  memset(&captured, 0, sizeof(captured));
  log_add_sink(log_capture_sink, &captured, LOG_DEBUG);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  log_remove_sink(log_capture_sink, &captured);
  return 0;
}

static void data_file(const char *name, char *out, size_t cap)
{
  test_tmp_path(name, out, cap);
}

static const char *rundown_file(const char *data, unsigned n)
{
  static char path[CONTROLLER_PATH_MAX];
  assert_int_equal(periodic_rundown_file_name(data, n, path, sizeof(path)), 0);
  return path;
}

/* Writes `text` into `path`, replacing what is there. */
static void put(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int there(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

/* The rundown session wrote file n of `data`; it is passed on. */
static void write_rundown(const char *data, unsigned n)
{
  char text[32];
  snprintf(text, sizeof(text), "rundown %u", n);
  put(rundown_file(data, n), text);
  periodic_rundown_files_written(&files, data, n);
}

static void remove_rundowns(const char *data, unsigned last)
{
  unsigned n;
  for (n = 1; n <= last; n++)
    os_remove(rundown_file(data, n));
}

static void names_the_file_beside_the_data_file(void **state)
{
  char out[64];
  (void)state;
  assert_int_equal(periodic_rundown_file_name("D:\\t\\app.etl", 7, out, sizeof(out)), 0);
  assert_string_equal(out, "D:\\t\\app.kernelRundown.7.etl");
  assert_int_equal(periodic_rundown_file_name("D:\\t\\app.etl", 7, out, 20), ETWCAP_E_RANGE);
}

/* 40 periods: never more than 32 files, and the newest 32 stay. */
static void keeps_the_newest(void **state)
{
  char data[512];
  unsigned n;
  (void)state;
  data_file("prf_keep.etl", data, sizeof(data));
  for (n = 1; n <= 40; n++) {
    unsigned k, present = 0;
    write_rundown(data, n);
    for (k = 1; k <= n; k++)
      present += there(rundown_file(data, k));
    assert_int_equal(present, n < PERIODIC_RUNDOWN_FILES_KEPT ? n : PERIODIC_RUNDOWN_FILES_KEPT);
  }
  for (n = 1; n <= 40; n++)
    assert_int_equal(there(rundown_file(data, n)), n > 40 - PERIODIC_RUNDOWN_FILES_KEPT);
  remove_rundowns(data, 40);
}

/* A file put under the oldest one's name since it was written is not
 * etwcap's: left, with a warning. */
static void leaves_a_file_that_took_the_name(void **state)
{
  char data[512], other[600];
  unsigned n;
  (void)state;
  data_file("prf_taken.etl", data, sizeof(data));
  for (n = 1; n <= PERIODIC_RUNDOWN_FILES_KEPT; n++)
    write_rundown(data, n);
  /* Another file, made while the first still exists (so it cannot reuse
   * its identity), renamed over it. */
  snprintf(other, sizeof(other), "%s.other", data);
  put(other, "someone else's");
  assert_int_equal(os_rename_replace(other, rundown_file(data, 1)), 0);
  write_rundown(data, PERIODIC_RUNDOWN_FILES_KEPT + 1);
  assert_true(there(rundown_file(data, 1)));
  assert_true(log_capture_has(&captured, "another file has taken the name"));
  /* The next oldest was etwcap's: it goes. */
  write_rundown(data, PERIODIC_RUNDOWN_FILES_KEPT + 2);
  assert_false(there(rundown_file(data, 2)));
  remove_rundowns(data, PERIODIC_RUNDOWN_FILES_KEPT + 2);
}

/* The next segment's (or collection's) files start a list of their own;
 * the closed one's are its merge's to take and delete. */
static void leaves_another_data_files_to_its_merge(void **state)
{
  char one[512], two[512];
  unsigned n;
  (void)state;
  data_file("prf_one.etl", one, sizeof(one));
  data_file("prf_two.etl", two, sizeof(two));
  for (n = 1; n <= PERIODIC_RUNDOWN_FILES_KEPT; n++)
    write_rundown(one, n);
  for (n = PERIODIC_RUNDOWN_FILES_KEPT + 1; n <= 2 * PERIODIC_RUNDOWN_FILES_KEPT + 1; n++)
    write_rundown(two, n);
  for (n = 1; n <= PERIODIC_RUNDOWN_FILES_KEPT; n++)
    assert_true(there(rundown_file(one, n)));
  assert_false(there(rundown_file(two, PERIODIC_RUNDOWN_FILES_KEPT + 1)));
  remove_rundowns(one, PERIODIC_RUNDOWN_FILES_KEPT);
  remove_rundowns(two, 2 * PERIODIC_RUNDOWN_FILES_KEPT + 1);
}

/* A rundown that wrote nothing changes nothing. */
static void a_missing_file_is_not_kept(void **state)
{
  char data[512];
  unsigned n;
  (void)state;
  data_file("prf_missing.etl", data, sizeof(data));
  for (n = 1; n <= PERIODIC_RUNDOWN_FILES_KEPT; n++)
    write_rundown(data, n);
  periodic_rundown_files_written(&files, data, PERIODIC_RUNDOWN_FILES_KEPT + 1);
  assert_int_equal(files.count, PERIODIC_RUNDOWN_FILES_KEPT);
  assert_true(there(rundown_file(data, 1)));
  remove_rundowns(data, PERIODIC_RUNDOWN_FILES_KEPT);
}

/* A snapshot X.3 gets X.3.kernelRundown.<n>.etl, byte for byte; the
 * originals stay. */
static void copies_the_kept_beside_a_snapshot(void **state)
{
  char data[512], snap[512], copy[CONTROLLER_PATH_MAX], text[32], want[32];
  FILE *f;
  unsigned n;
  (void)state;
  data_file("prf_snap.etl", data, sizeof(data));
  data_file("prf_snap.3.etl", snap, sizeof(snap));
  for (n = 1; n <= 3; n++)
    write_rundown(data, n);
  assert_int_equal(periodic_rundown_files_copy(&files, data, snap), 3);
  for (n = 1; n <= 3; n++) {
    snprintf(copy, sizeof(copy), "%s", rundown_file(snap, n));
    f = fopen(copy, "rb");
    assert_non_null(f);
    memset(text, 0, sizeof(text));
    assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
    fclose(f);
    snprintf(want, sizeof(want), "rundown %u", n);
    assert_string_equal(text, want);
    assert_true(there(rundown_file(data, n)));
    os_remove(copy);
  }
  /* Another data file's list is not copied. */
  assert_int_equal(periodic_rundown_files_copy(&files, snap, data), 0);
  remove_rundowns(data, 3);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(names_the_file_beside_the_data_file),
    T(keeps_the_newest),
    T(leaves_a_file_that_took_the_name),
    T(leaves_another_data_files_to_its_merge),
    T(a_missing_file_is_not_kept),
    T(copies_the_kept_beside_a_snapshot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
