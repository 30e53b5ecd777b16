/* /EventLog's writer (operator_log_win32.c) under Wine, against the model of
 * advapi32's event-log calls (tests/fakes/fake_reportevent_win32.c): Wine
 * keeps no Application log to read back, so the model holds the entries.
 * Each id with its type, the text as its one insertion string, the source
 * handle closed after every entry, and the errors of both calls.  Checked
 * only against that model, never against a real Windows. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "tests/fakes/fake_reportevent_win32.h"

static int setup(void **state)
{
  (void)state;
  fake_re_reset();
  operator_log_win32_set_api(&fake_re_api);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  operator_log_win32_set_api(NULL);
  return 0;
}

/* README's ids ("Week-long capture"): a fire and a health problem are
 * warnings, the rest information. */
static void every_id_is_written_with_its_type(void **state)
{
  static const struct {
    enum operator_event id;
    WORD type;
  } want[] = {
    { OPERATOR_CAPTURE_STARTED, EVENTLOG_INFORMATION_TYPE },
    { OPERATOR_TRIGGER_FIRED, EVENTLOG_WARNING_TYPE },
    { OPERATOR_SNAPSHOT_WRITTEN, EVENTLOG_INFORMATION_TYPE },
    { OPERATOR_SEGMENT_WRITTEN, EVENTLOG_INFORMATION_TYPE },
    { OPERATOR_SEGMENT_DELETED, EVENTLOG_INFORMATION_TYPE },
    { OPERATOR_HEALTH_PROBLEM, EVENTLOG_WARNING_TYPE },
    { OPERATOR_CAPTURE_ENDED, EVENTLOG_INFORMATION_TYPE },
  };
  struct fake_re *re = fake_re_reset();
  size_t i, n = sizeof(want) / sizeof(want[0]);
  (void)state;
  for (i = 0; i < n; i++)
    assert_int_equal(operator_log_write(want[i].id, "etwcap test entry: caf\xc3\xa9"), 0);
  assert_int_equal(re->violations, 0);
  assert_int_equal(re->entry_count, n);
  for (i = 0; i < n; i++) {
    const struct fake_re_entry *e = &re->entries[i];
    assert_string_equal(e->source, "etwcap");
    assert_int_equal(e->id, want[i].id);
    assert_int_equal(e->type, want[i].type);
    assert_int_equal(e->category, 0);
    assert_int_equal(e->string_count, 1);
    assert_string_equal(e->text, "etwcap test entry: caf\xc3\xa9");
  }
  assert_int_equal(re->remote, 0);
  assert_int_equal(re->registered, (int)n);
  assert_int_equal(re->deregistered, (int)n);
}

static void a_refused_source_is_an_error_and_writes_nothing(void **state)
{
  struct fake_re *re = fake_re_reset();
  (void)state;
  re->register_error = ERROR_ACCESS_DENIED;
  assert_int_equal(operator_log_write(OPERATOR_CAPTURE_STARTED, "refused"), ETWCAP_E_ACCES);
  assert_int_equal(re->entry_count, 0);
  assert_int_equal(re->violations, 0);
}

static void a_failed_entry_is_an_error_and_closes_the_source(void **state)
{
  struct fake_re *re = fake_re_reset();
  (void)state;
  re->report_error = ERROR_DISK_FULL;
  assert_int_equal(operator_log_write(OPERATOR_HEALTH_PROBLEM, "no room"), ETWCAP_E_NOSPC);
  assert_int_equal(re->entry_count, 0);
  assert_int_equal(re->registered, 1);
  assert_int_equal(re->deregistered, 1);
  assert_int_equal(re->violations, 0);
}

/* The message table compiled into etwcap.exe (and into this test, from the
 * same etwcap_messages.mc): Event Viewer formats an entry by looking its
 * event id up in the source's EventMessageFile as FormatMessage does, so
 * each of README's ids must be found under the very id ReportEventW is
 * given (no severity or facility bits: "Message Text Files") and must
 * come out as the entry's insertion string alone. */
static void each_id_formats_as_its_text(void **state)
{
  static const DWORD ids[] = { 1000, 1001, 1002, 1003, 1004, 1005, 1006 };
  static const wchar_t text[] = L"etwcap test entry: caf\u00e9";
  DWORD_PTR args[1];
  wchar_t out[256];
  size_t i;
  DWORD n;
  (void)state;
  args[0] = (DWORD_PTR)text;
  for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
    n = FormatMessageW(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY,
                       GetModuleHandleW(NULL), ids[i], 0, out, 256, (va_list *)args);
    assert_true(n >= wcslen(text));
    assert_memory_equal(out, text, wcslen(text) * sizeof(wchar_t));
    for (; n > wcslen(text); n--)
      assert_true(out[n - 1] == L'\r' || out[n - 1] == L'\n');
  }
  assert_int_equal(FormatMessageW(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY,
                                  GetModuleHandleW(NULL), 999, 0, out, 256, (va_list *)args),
                   0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(every_id_is_written_with_its_type, setup, teardown),
    cmocka_unit_test_setup_teardown(a_refused_source_is_an_error_and_writes_nothing, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(a_failed_entry_is_an_error_and_closes_the_source, setup,
                                    teardown),
    cmocka_unit_test(each_id_formats_as_its_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
