/* registry_win32.c against the real registry of the Wine prefix (Wine keeps
 * HKEY_LOCAL_MACHINE in the prefix, so the test writes and removes keys as
 * a real Windows would), through the hand-off's own functions: TraceEvent's
 * key and value names (TraceEventSession.cs SetFilterDataForEtwSession, see
 * test_eventsource_registry.c) go in as REG_BINARY and come out again. */
#include "tests/fakes/test_support.h"

#include <windows.h>

#include "etw/session/eventsource_registry.h"
#include "src/base/error.h"
#include "src/base/os/registry.h"
#include "src/os/operator_log_source.h"

#include <stdio.h>
#include <string.h>

static unsigned char data_of_test[] = "EtwSessionName\0etwcapRegistryTest\0EtwSessionKeyword\00044\0"
                                      "k\0v";

struct seen {
  int found;
  size_t size;
};

static int on_value(void *ctx, const char *name, const unsigned char *data, size_t size)
{
  struct seen *s = ctx;
  if (!strcmp(name, "ControllerData_Session_77") && size == sizeof(data_of_test) &&
      !memcmp(data, data_of_test, size))
    s->found = 1;
  return 0;
}

static void hand_off_round_trip_in_the_real_registry(void **state)
{
  struct registry r;
  struct plan_provider p;
  struct seen seen = { 0, 0 };
  char key[256], value[64];
  static const char *const names[] = { "etwcapRegistryTest" };
  size_t removed = 0;
  int rc;
  HKEY h;
  (void)state;
  registry_system(&r);
  memset(&p, 0, sizeof(p));
  assert_int_equal(guid_parse("adb401e1-5296-51f8-c125-5fda75826144", &p.guid), 0);
  p.filters[0].type = PLAN_FILTER_PROVIDER_DATA;
  p.filters[0].data = data_of_test;
  p.filters[0].size = sizeof(data_of_test);
  p.filter_count = 1;
  rc = eventsource_registry_put(&r, &p, 77);
  if (rc == ETWCAP_E_ACCES)
    skip(); /* a prefix without write access to HKLM */
  assert_int_equal(rc, 0);
  eventsource_registry_names(&p.guid, 77, key, sizeof(key), value, sizeof(value));
  assert_int_equal(r.ops->values(r.impl, key, on_value, &seen), 0);
  assert_true(seen.found);
  assert_int_equal(eventsource_registry_remove(&r, names, 1, 0, &removed), 0);
  assert_int_equal(removed, 1);
  /* The provider key, empty now, is gone too. */
  assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, key, 0, KEY_READ, &h), ERROR_FILE_NOT_FOUND);
}

/* REG_DWORD values (/OSHeapExe's TracingFlags): written as REG_DWORD, read
 * back; a missing value and a value of another type are told apart. */
static void dword_values_in_the_real_registry(void **state)
{
  const char *key = "SOFTWARE\\etwcapRegistryTest\\dword.exe";
  struct registry r;
  uint32_t v = 0;
  DWORD type = 0, raw = 0, size = sizeof(raw);
  int rc;
  (void)state;
  registry_system(&r);
  rc = r.ops->set_dword(r.impl, key, "TracingFlags", 0x12345678u);
  if (rc == ETWCAP_E_ACCES)
    skip();
  assert_int_equal(rc, 0);
  assert_int_equal(RegGetValueA(HKEY_LOCAL_MACHINE, key, "TracingFlags", RRF_RT_ANY, &type, &raw,
                                &size),
                   ERROR_SUCCESS);
  assert_int_equal(type, REG_DWORD);
  assert_int_equal(raw, 0x12345678u);
  assert_int_equal(r.ops->get_dword(r.impl, key, "TracingFlags", &v), 0);
  assert_int_equal(v, 0x12345678u);
  assert_int_equal(r.ops->get_dword(r.impl, key, "Missing", &v), ETWCAP_E_NOENT);
  assert_int_equal(r.ops->set_binary(r.impl, key, "Bytes", "ab", 2), 0);
  assert_int_equal(r.ops->get_dword(r.impl, key, "Bytes", &v), ETWCAP_E_FORMAT);
  assert_int_equal(r.ops->delete_value(r.impl, key, "TracingFlags"), 0);
  assert_int_equal(r.ops->delete_value(r.impl, key, "Bytes"), 0);
  assert_int_equal(r.ops->delete_key_if_empty(r.impl, key), 0);
  assert_int_equal(r.ops->get_dword(r.impl, key, "TracingFlags", &v), ETWCAP_E_NOENT);
}

/* Text values (the Application log source's EventMessageFile): written as
 * REG_EXPAND_SZ and read back unexpanded; a REG_SZ stored without its NUL
 * (RegQueryValueExW: "the string may not have been stored with the proper
 * terminating null characters") still reads as its text; a missing value,
 * another type and too small a buffer are told apart. */
static void text_values_in_the_real_registry(void **state)
{
  const char *key = "SOFTWARE\\etwcapRegistryTest\\text";
  static const wchar_t bare[] = { L'a', L'b', L'c' }; /* no NUL */
  struct registry r;
  char out[64];
  HKEY h;
  int rc;
  (void)state;
  registry_system(&r);
  rc = r.ops->set_expand_string(r.impl, key, "File", "%SystemRoot%\\x.dll");
  if (rc == ETWCAP_E_ACCES)
    skip();
  assert_int_equal(rc, 0);
  assert_int_equal(r.ops->get_string(r.impl, key, "File", out, sizeof(out)), 0);
  assert_string_equal(out, "%SystemRoot%\\x.dll");
  assert_int_equal(r.ops->get_string(r.impl, key, "File", out, 8), ETWCAP_E_RANGE);
  assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, key, 0, KEY_SET_VALUE, &h), ERROR_SUCCESS);
  assert_int_equal(RegSetValueExW(h, L"Bare", 0, REG_SZ, (const BYTE *)bare, sizeof(bare)),
                   ERROR_SUCCESS);
  RegCloseKey(h);
  memset(out, 'x', sizeof(out));
  assert_int_equal(r.ops->get_string(r.impl, key, "Bare", out, sizeof(out)), 0);
  assert_string_equal(out, "abc");
  assert_int_equal(r.ops->get_string(r.impl, key, "Missing", out, sizeof(out)), ETWCAP_E_NOENT);
  assert_int_equal(r.ops->set_dword(r.impl, key, "Number", 7), 0);
  assert_int_equal(r.ops->get_string(r.impl, key, "Number", out, sizeof(out)), ETWCAP_E_FORMAT);
  assert_int_equal(r.ops->delete_value(r.impl, key, "File"), 0);
  assert_int_equal(r.ops->delete_value(r.impl, key, "Bare"), 0);
  assert_int_equal(r.ops->delete_value(r.impl, key, "Number"), 0);
  assert_int_equal(r.ops->delete_key_if_empty(r.impl, key), 0);
}

/* The Application log source read back from the real registry: a message
 * file that exists counts as registered, one that is gone does not. */
static void the_log_source_registration_is_read_back(void **state)
{
  struct registry r;
  char exe[MAX_PATH];
  DWORD n = GetModuleFileNameA(NULL, exe, sizeof(exe));
  int rc;
  (void)state;
  assert_true(n > 0 && n < sizeof(exe));
  registry_system(&r);
  rc = operator_log_source_register(&r, exe);
  if (rc == ETWCAP_E_ACCES)
    skip();
  assert_int_equal(rc, 0);
  assert_true(operator_log_source_registered(&r));
  assert_int_equal(operator_log_source_register(&r, "C:\\nowhere\\etwcap-gone.exe"), 0);
  assert_false(operator_log_source_registered(&r));
  assert_int_equal(r.ops->delete_value(r.impl, OPERATOR_LOG_SOURCE_KEY, "EventMessageFile"), 0);
  assert_int_equal(r.ops->delete_value(r.impl, OPERATOR_LOG_SOURCE_KEY, "TypesSupported"), 0);
  assert_int_equal(r.ops->delete_key_if_empty(r.impl, OPERATOR_LOG_SOURCE_KEY), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(hand_off_round_trip_in_the_real_registry),
    cmocka_unit_test(dword_values_in_the_real_registry),
    cmocka_unit_test(text_values_in_the_real_registry),
    cmocka_unit_test(the_log_source_registration_is_read_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
