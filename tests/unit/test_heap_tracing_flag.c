/* /OSHeapExe's TracingFlags (heap_tracing_flag.c) against the in-memory
 * registry: PerfView's value (TracingFlags = 1, REG_DWORD, under HKLM
 * SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution
 * Options\NAME.exe, ETWKernelControl.SetImageTracingFlags), what was there
 * before put back, a value etwcap did not set left alone, and the state
 * carried through the session record to a later process (a killed capture
 * cleaned up by abort). */
#include "tests/fakes/test_support.h"

#include "etw/session/heap_tracing_flag.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/capture/session_record.h"
#include "tests/fakes/fake_registry.h"

#include <stdio.h>
#include <string.h>

#define IFEO "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options"
#define KEY IFEO "\\app.exe"

static struct fake_registry R;

static int setup(void **state)
{
  (void)state;
  fake_registry_init(&R);
  return 0;
}

/* TracingFlags now: -1 when absent, -2 when not a REG_DWORD. */
static long flags_now(void)
{
  const struct fake_registry_value *v = fake_registry_find(&R, KEY, "TracingFlags");
  if (!v)
    return -1;
  if (v->type != FAKE_REG_DWORD || v->size != 4)
    return -2;
  return (long)(v->data[0] | v->data[1] << 8 | v->data[2] << 16 | (unsigned long)v->data[3] << 24);
}

static void set_then_clear_removes_what_it_created(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 1);
  assert_string_equal(f.exe, "app.exe");
  assert_false(f.had_value);
  assert_true(f.created_key);
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), -1);
  assert_false(fake_registry_has_key(&R, KEY));
  assert_string_equal(f.exe, "");
  /* A second clear has nothing left to do. */
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
}

static void an_earlier_value_is_put_back(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  fake_registry_put_dword(&R, KEY, "TracingFlags", 0);
  fake_registry_put_dword(&R, KEY, "GlobalFlag", 0x200);
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 1);
  assert_true(f.had_value);
  assert_int_equal(f.prior, 0);
  assert_false(f.created_key);
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 0);
  assert_non_null(fake_registry_find(&R, KEY, "GlobalFlag"));
}

static void a_key_that_existed_is_kept(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  fake_registry_put_dword(&R, KEY, "GlobalFlag", 0x200);
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), 0);
  assert_false(f.had_value);
  assert_false(f.created_key);
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), -1);
  assert_true(fake_registry_has_key(&R, KEY));
}

/* Someone else's 1: etwcap changes nothing, so it has nothing to undo. */
static void a_value_already_on_is_left_alone(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  fake_registry_put_dword(&R, KEY, "TracingFlags", 1);
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), 0);
  assert_string_equal(f.exe, "");
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 1);
}

static void a_value_changed_since_is_left_alone(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), 0);
  fake_registry_put_dword(&R, KEY, "TracingFlags", 5);
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &f, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 5);
  assert_string_equal(f.exe, "");
}

static void a_value_of_another_type_is_refused(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  static const unsigned char text[] = { '1', 0 };
  (void)state;
  R.reg.ops->set_binary(R.reg.impl, KEY, "TracingFlags", text, sizeof(text));
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), ETWCAP_E_SYSTEM);
  assert_non_null(strstr(why, "no REG_DWORD"));
  assert_int_equal(flags_now(), -2);
  assert_string_equal(f.exe, "");
}

static void access_denied_sets_nothing(void **state)
{
  struct heap_tracing_flag f;
  char why[512];
  (void)state;
  R.fail_set = ETWCAP_E_ACCES;
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &f, why, sizeof(why)), ETWCAP_E_ACCES);
  assert_non_null(strstr(why, "elevated"));
  assert_string_equal(f.exe, "");
  assert_int_equal(flags_now(), -1);
}

/* The state goes into the session record; a capture killed after it leaves
 * the record, and abort (another process) puts the value back from it. */
static void the_record_carries_it_to_another_process(void **state)
{
  struct session_record w, r;
  char path[512], why[512];
  (void)state;
  test_tmp_path("heapflag.etl" SESSION_RECORD_SUFFIX, path, sizeof(path));
  memset(&w, 0, sizeof(w));
  snprintf(w.mode, sizeof(w.mode), "collect");
  fake_registry_put_dword(&R, KEY, "TracingFlags", 4);
  assert_int_equal(heap_tracing_flag_set(&R.reg, "app.exe", &w.heap_flag, why, sizeof(why)), 0);
  assert_int_equal(session_record_write(path, &w), 0);
  /* killed here: nothing put back */
  assert_int_equal(flags_now(), 1);
  memset(&r, 0, sizeof(r));
  assert_int_equal(session_record_read(path, &r, why, sizeof(why)), 0);
  assert_string_equal(r.heap_flag.exe, "app.exe");
  assert_true(r.heap_flag.had_value);
  assert_int_equal(r.heap_flag.prior, 4);
  assert_false(r.heap_flag.created_key);
  assert_int_equal(heap_tracing_flag_clear(&R.reg, &r.heap_flag, why, sizeof(why)), 0);
  assert_int_equal(flags_now(), 4);
  session_record_release(&r);
  os_remove(path);
}

static void a_record_without_it_sets_nothing_to_put_back(void **state)
{
  static const char text[] = "{\"schema\": \"etwcap-session/1\", \"sessions\": [], "
                             "\"osHeapTracingFlags\": {\"exe\": \"..\\\\evil.exe\"}}";
  static const char none[] = "{\"schema\": \"etwcap-session/1\", \"sessions\": []}";
  struct session_record r;
  char why[256];
  (void)state;
  memset(&r, 0, sizeof(r));
  assert_int_equal(session_record_parse(text, strlen(text), &r, why, sizeof(why)), 0);
  assert_string_equal(r.heap_flag.exe, ""); /* a path is no program name */
  session_record_release(&r);
  memset(&r, 0, sizeof(r));
  assert_int_equal(session_record_parse(none, strlen(none), &r, why, sizeof(why)), 0);
  assert_string_equal(r.heap_flag.exe, "");
  session_record_release(&r);
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(set_then_clear_removes_what_it_created),
    T(an_earlier_value_is_put_back),
    T(a_key_that_existed_is_kept),
    T(a_value_already_on_is_left_alone),
    T(a_value_changed_since_is_left_alone),
    T(a_value_of_another_type_is_refused),
    T(access_denied_sets_nothing),
    T(the_record_carries_it_to_another_process),
    T(a_record_without_it_sets_nothing_to_put_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
