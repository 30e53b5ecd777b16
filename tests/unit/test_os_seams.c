/* The small OS seams (time, threads, files) behave the same on each OS:
 * this test runs natively and, as etwcap.exe's twin, under Wine. */
#include "tests/fakes/test_support.h"

#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_thread.h"
#include "src/base/os/os_time.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

/* FILETIME values worked out by hand: 116444736000000000 is 1970-01-01, and
 * 2023-03-14T00:46:36.6946549Z is the StartTime of gcevents' header. */
static void filetime_formatting(void **state)
{
  char buf[40];
  (void)state;
  assert_string_equal(filetime_format_iso7(FILETIME_UNIX_EPOCH, buf, sizeof(buf)),
                      "1970-01-01T00:00:00.0000000Z");
  assert_string_equal(filetime_format_iso7(INT64_C(133232283966946549), buf, sizeof(buf)),
                      "2023-03-14T00:46:36.6946549Z");
  assert_string_equal(filetime_format_iso7(0, buf, sizeof(buf)), "1601-01-01T00:00:00.0000000Z");
  assert_string_equal(os_time_format_utc(INT64_C(133232283966946549), buf, sizeof(buf)),
                      "2023-03-14T00:46:36.694Z");
  /* 2000-02-29 (leap day): 946684800 s after 1970 is 2000-01-01, + 59 days. */
  assert_string_equal(filetime_format_iso7(FILETIME_UNIX_EPOCH +
                                               (INT64_C(946684800) + 59 * 86400) * 10000000,
                                           buf, sizeof(buf)),
                      "2000-02-29T00:00:00.0000000Z");
}

static void clocks_move_forward(void **state)
{
  uint64_t t0 = os_time_monotonic_ns(), t1;
  int64_t now = os_time_now_utc_filetime();
  (void)state;
  os_time_sleep_ms(20);
  t1 = os_time_monotonic_ns();
  assert_true(t1 > t0);
  /* After 2020-01-01 and before 2100-01-01. */
  assert_true(now > INT64_C(132223104000000000) && now < INT64_C(157469184000000000));
}

struct counter {
  os_mutex lock;
  os_cond cond;
  int value;
};

static void add_many(void *arg)
{
  struct counter *c = arg;
  int i;
  for (i = 0; i < 100000; i++) {
    os_mutex_lock(&c->lock);
    c->value++;
    os_mutex_unlock(&c->lock);
  }
  os_mutex_lock(&c->lock);
  os_cond_broadcast(&c->cond);
  os_mutex_unlock(&c->lock);
}

static void threads_and_locks(void **state)
{
  struct counter c;
  os_thread a, b;
  (void)state;
  os_mutex_init(&c.lock);
  os_cond_init(&c.cond);
  c.value = 0;
  assert_int_equal(os_thread_create(&a, add_many, &c), 0);
  assert_int_equal(os_thread_create(&b, add_many, &c), 0);
  os_mutex_lock(&c.lock);
  while (c.value < 200000)
    os_cond_wait(&c.cond, &c.lock);
  os_mutex_unlock(&c.lock);
  os_thread_join(&a);
  os_thread_join(&b);
  assert_int_equal(c.value, 200000);
  assert_true(os_cpu_count() >= 1);
  os_cond_destroy(&c.cond);
  os_mutex_destroy(&c.lock);
}

/* A non-ASCII name (UTF-8) round-trips through open, size, rename, remove. */
static void unicode_file_paths(void **state)
{
  char a[512], b[512];
  int64_t size = -1;
  uint64_t free_bytes = 0;
  FILE *f;
  (void)state;
  test_tmp_path("seam-\xC3\xA4\xE2\x82\xAC.tmp", a, sizeof(a)); /* "seam-ä€.tmp" */
  test_tmp_path("seam-renamed-\xC3\xA4.tmp", b, sizeof(b));
  f = os_fopen(a, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite("hello", 1, 5, f), 5);
  assert_int_equal(os_fseek64(f, 0, SEEK_END), 0);
  assert_int_equal(os_ftell64(f), 5);
  fclose(f);
  assert_int_equal(os_file_size(a, &size), 0);
  assert_int_equal(size, 5);
  f = os_fopen(b, "wb"); /* the target exists: rename must replace it */
  assert_non_null(f);
  fclose(f);
  assert_int_equal(os_rename_replace(a, b), 0);
  assert_int_equal(os_file_size(a, &size), ETWCAP_E_NOENT);
  assert_int_equal(os_file_size(b, &size), 0);
  assert_int_equal(size, 5);
  assert_int_equal(os_remove(b), 0);
  assert_int_equal(os_remove(b), ETWCAP_E_NOENT);
  assert_null(os_fopen(b, "rb"));
  assert_int_equal(os_last_error(), ETWCAP_E_NOENT);
  test_tmp_path("", a, sizeof(a));
  assert_true(os_is_directory(a));
  assert_int_equal(os_free_disk_bytes(a, &free_bytes), 0);
  assert_true(free_bytes > 0);
}

/* A relative name made absolute names the same file (its size reads the
 * same); an absolute one stays as it is; too small a buffer is RANGE. */
static void full_paths(void **state)
{
  char full[4096], again[4096], small[4];
  int64_t size = -1;
  FILE *f;
  (void)state;
  f = os_fopen("seam-full-\xC3\xA4.tmp", "wb");
  assert_non_null(f);
  assert_int_equal(fwrite("abc", 1, 3, f), 3);
  fclose(f);
  assert_int_equal(os_full_path("seam-full-\xC3\xA4.tmp", full, sizeof(full)), 0);
  assert_true(strlen(full) > strlen("seam-full-\xC3\xA4.tmp"));
  assert_true(str_ends_with_case(full, "seam-full-\xC3\xA4.tmp"));
  assert_int_equal(os_file_size(full, &size), 0);
  assert_int_equal(size, 3);
  assert_int_equal(os_full_path(full, again, sizeof(again)), 0);
  assert_string_equal(again, full);
  assert_int_equal(os_full_path("seam-full-\xC3\xA4.tmp", small, sizeof(small)), ETWCAP_E_RANGE);
  assert_int_equal(os_remove(full), 0);
}

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* os_fopen_regular opens a file, refuses a folder, and says what the file
 * is; os_remove_same removes a name only while it is still that file. */
static void files_are_removed_only_while_the_same(void **state)
{
  char path[512], other[512], dir[512];
  struct os_file_id id, same;
  FILE *f;
  int64_t size;
  (void)state;
  test_tmp_path("same-file.etl", path, sizeof(path));
  test_tmp_path("same-file-other.etl", other, sizeof(other));
  test_tmp_path("same-file-dir", dir, sizeof(dir));
  assert_int_equal(os_make_dir(dir), 0);
  assert_null(os_fopen_regular(dir, &id));
  assert_true(os_last_error() == ETWCAP_E_NOTFILE || os_last_error() == ETWCAP_E_ACCES ||
              os_last_error() == ETWCAP_E_ISDIR);
  os_remove_dir(dir);

  write_text(path, "merged");
  f = os_fopen_regular(path, &id);
  assert_non_null(f);
  fclose(f);
  f = os_fopen_regular(path, &same);
  assert_non_null(f);
  fclose(f);
  assert_memory_equal(&id, &same, sizeof(id));

  /* Another file takes the name: it stays. */
  write_text(other, "planted during the merge");
  assert_int_equal(os_rename_replace(other, path), 0);
  assert_int_equal(os_remove_same(path, &id), ETWCAP_E_REPLACED);
  assert_int_equal(os_file_size(path, &size), 0);
  assert_int_equal(size, (int64_t)strlen("planted during the merge"));

  /* The file itself goes. */
  f = os_fopen_regular(path, &id);
  assert_non_null(f);
  fclose(f);
  assert_int_equal(os_remove_same(path, &id), 0);
  assert_int_equal(os_file_size(path, &size), ETWCAP_E_NOENT);
  assert_int_equal(os_remove_same(path, &id), ETWCAP_E_NOENT);
}

/* A device is refused as not a regular file, never read from. */
static void devices_are_not_files(void **state)
{
  char probe[] = "a\\b";
  (void)state;
  os_native_path(probe);
  assert_null(os_fopen_regular(probe[1] == '\\' ? "NUL" : "/dev/null", NULL));
  assert_int_equal(os_last_error(), ETWCAP_E_NOTFILE);
}

/* Names taken from a trace on a share are not opened (no SMB from a
 * hostile trace); POSIX paths are always local. */
static void shares_are_remote(void **state)
{
  char probe[] = "a\\b";
  int windows;
  (void)state;
  os_native_path(probe); /* POSIX makes the backslash a slash; Windows keeps it */
  windows = probe[1] == '\\';
  assert_int_equal(os_path_is_remote("relative/x.dll"), 0);
  assert_int_equal(os_path_is_remote("\\\\server\\share\\x.dll"), windows);
  assert_int_equal(os_path_is_remote("//server/share/x.dll"), windows);
  assert_int_equal(os_path_is_remote("\\\\?\\UNC\\server\\share\\x.dll"), windows);
  assert_int_equal(os_path_is_remote("\\\\.\\pipe\\x"), windows);
  assert_int_equal(os_path_is_remote("\\??\\UNC\\server\\share\\x.dll"), windows);
  assert_int_equal(os_path_is_remote("/?" "?/pipe/x"), windows);
  assert_int_equal(os_path_is_remote("\\\\?\\C:\\Windows\\System32\\ntdll.dll"), 0);
  assert_int_equal(os_path_is_remote("C:\\Windows\\System32\\ntdll.dll"), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(filetime_formatting),
    cmocka_unit_test(clocks_move_forward),
    cmocka_unit_test(threads_and_locks),
    cmocka_unit_test(unicode_file_paths),
    cmocka_unit_test(full_paths),
    cmocka_unit_test(files_are_removed_only_while_the_same),
    cmocka_unit_test(devices_are_not_files),
    cmocka_unit_test(shares_are_remote),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
