/* The Application log's source "etwcap" (operator_log_source.h) against the
 * in-memory registry: the key and values Event Logging reads for a source
 * ("Event Sources": EventMessageFile, REG_EXPAND_SZ; TypesSupported,
 * REG_DWORD), what an /EventLog capture does and says with and without the
 * right to write them, and when it leaves a registration alone (the file
 * it names is still there) or takes its place (gone); `schedule create`
 * always takes it. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/os/operator_log_source.h"
#include "tests/fakes/fake_registry.h"
#include "tests/fakes/log_capture.h"

#include <stdio.h>
#include <string.h>

#define KEY "SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application\\etwcap"
#define EXE "C:\\Tools\\etwcap.exe"

static struct fake_registry R;
static struct log_capture L;
/* A message file that exists: a file in the tests' temporary folder. */
static char installed[512];

static const char *existing_file(void)
{
  FILE *f;
  test_tmp_path("etwcap-installed.exe", installed, sizeof(installed));
  f = fopen(installed, "wb");
  assert_non_null(f);
  fclose(f);
  return installed;
}

static const char *message_file_now(void)
{
  const struct fake_registry_value *v = fake_registry_find(&R, KEY, "EventMessageFile");
  return v ? (const char *)v->data : "";
}

static int setup(void **state)
{
  (void)state;
  fake_registry_init(&R);
  memset(&L, 0, sizeof(L));
  log_add_sink(log_capture_sink, &L, LOG_DEBUG);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  log_remove_sink(log_capture_sink, &L);
  return 0;
}

/* EventMessageFile = the exe, as text that may hold %variables
 * (REG_EXPAND_SZ); TypesSupported = error | warning | information (1, 2,
 * 4: winnt.h's EVENTLOG_*_TYPE). */
static void register_writes_the_documented_values(void **state)
{
  const struct fake_registry_value *v;
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, EXE), 0);
  v = fake_registry_find(&R, KEY, "EventMessageFile");
  assert_non_null(v);
  assert_int_equal(v->type, FAKE_REG_EXPAND_SZ);
  assert_string_equal((const char *)v->data, EXE);
  v = fake_registry_find(&R, KEY, "TypesSupported");
  assert_non_null(v);
  assert_int_equal(v->type, FAKE_REG_DWORD);
  assert_int_equal(v->data[0], 1 | 2 | 4);
}

/* An elevated capture registers the source and says nothing more. */
static void an_elevated_capture_registers_the_source(void **state)
{
  (void)state;
  operator_log_source_prepare(&R.reg, 1, EXE);
  assert_non_null(fake_registry_find(&R, KEY, "EventMessageFile"));
  assert_false(log_capture_has(&L, "cannot register"));
}

/* Not elevated and no key: nothing is written, and the log says why the
 * entries will come without their description. */
static void without_the_key_the_log_says_why(void **state)
{
  (void)state;
  operator_log_source_prepare(&R.reg, 0, EXE);
  assert_int_equal(R.count, 0);
  assert_true(log_capture_has(&L, "not elevated"));
  assert_true(log_capture_has(&L, "description cannot be found"));
}

/* Not elevated, but registered before (by 'schedule create'): quiet. */
static void an_earlier_registration_is_enough(void **state)
{
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, existing_file()), 0);
  operator_log_source_prepare(&R.reg, 0, installed);
  assert_false(log_capture_has(&L, "cannot register"));
}

/* Elevated, but the key names another etwcap.exe that is still there (the
 * installed copy): it is kept, and the log says which file. */
static void a_registration_whose_file_is_there_is_kept(void **state)
{
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, existing_file()), 0);
  operator_log_source_prepare(&R.reg, 1, "C:\\Users\\op\\Downloads\\etwcap.exe");
  assert_string_equal(message_file_now(), installed);
  assert_true(log_capture_has(&L, "keeps its message file"));
  assert_true(log_capture_has(&L, installed));
}

/* Elevated, and the key names a file that no longer exists (a copy run from
 * a folder since deleted): this etwcap.exe takes its place. */
static void a_registration_whose_file_is_gone_is_replaced(void **state)
{
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, "C:\\Temp\\gone\\etwcap.exe"), 0);
  operator_log_source_prepare(&R.reg, 1, existing_file());
  assert_string_equal(message_file_now(), installed);
  assert_false(log_capture_has(&L, "cannot register"));
}

/* Not elevated, and the file named is gone: not registered, and why. */
static void a_gone_file_without_elevation_is_explained(void **state)
{
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, "C:\\Temp\\gone\\etwcap.exe"), 0);
  assert_false(operator_log_source_registered(&R.reg));
  operator_log_source_prepare(&R.reg, 0, EXE);
  assert_true(log_capture_has(&L, "not elevated"));
}

/* 'schedule create' registers the copy its task runs whatever the key
 * named, and says which file it replaces. */
static void schedule_create_takes_the_source(void **state)
{
  (void)state;
  assert_int_equal(operator_log_source_register(&R.reg, existing_file()), 0);
  assert_int_equal(operator_log_source_take(&R.reg, EXE), 0);
  assert_string_equal(message_file_now(), EXE);
  assert_true(log_capture_has(&L, "now names " EXE));
}

/* Elevated, but the registry refuses: the reason, and the capture goes on. */
static void a_refused_write_is_explained(void **state)
{
  (void)state;
  R.fail_set = ETWCAP_E_ACCES;
  operator_log_source_prepare(&R.reg, 1, EXE);
  assert_true(log_capture_has(&L, "cannot register the source etwcap"));
  assert_true(log_capture_has(&L, etwcap_strerror(ETWCAP_E_ACCES)));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T(register_writes_the_documented_values),
    T(an_elevated_capture_registers_the_source),
    T(without_the_key_the_log_says_why),
    T(an_earlier_registration_is_enough),
    T(a_registration_whose_file_is_there_is_kept),
    T(a_registration_whose_file_is_gone_is_replaced),
    T(a_gone_file_without_elevation_is_explained),
    T(schedule_create_takes_the_source),
    T(a_refused_write_is_explained),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
