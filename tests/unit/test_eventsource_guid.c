/* EventSource GUIDs against the check values of
 * docs/perfview-collection.md §4.5 and the hashed GUIDs of PerfView's
 * default provider table (§4.7). */
#include "tests/fakes/test_support.h"

#include "etw/event/eventsource_guid.h"
#include "src/base/error.h"

#include <string.h>

static void expect(const char *name, const char *guid)
{
  struct etw_guid g;
  char text[GUID_STRING_SIZE];
  assert_int_equal(eventsource_guid(name, &g), 0);
  guid_format(&g, text);
  assert_string_equal(text, guid);
  assert_true(eventsource_guid_maybe(&g));
}

static void reference_check_values(void **state)
{
  (void)state;
  expect("PerfView", "a8a71ac1-040f-54a2-07ca-00a89b5ab761");
  expect("Microsoft-Diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144");
}

static void default_table_hashes(void **state)
{
  (void)state;
  expect("Microsoft.Tasks.Nuget", "b734069e-103c-5376-2080-4f009207881a");
  expect("Microsoft-AdoNet-SystemData", "6a4dfe53-eb50-5332-8473-7b7e10a94fd1");
  expect("Microsoft-AspNetCore-Hosting", "9e620d2a-55d4-5ade-deb7-c26046d245a8");
  expect("Microsoft-ApplicationInsights-Core", "74af9f20-af6a-5582-9382-f21f674fb271");
  expect("Microsoft-Windows-ASPNET", "ee799f41-cfa5-550b-bf2c-344747c1c668");
}

/* GUIDs asserted by dotnet/runtime's and aspnetcore's own EventSource tests
 * (EventSource.GetGuid), for the names in the command lines users type
 * (docs/perfview-collection.md §10). */
static void runbook_eventsources(void **state)
{
  (void)state;
  expect("Microsoft.AspNetCore.Hosting", "9ded64a4-414c-5251-dcf7-1e4e20c15e70");
  expect("Microsoft-AspNetCore-Server-Kestrel", "bdeb4676-a36e-5442-db99-4764e2326c7d");
  expect("System.Net.Http", "d30b5633-7ef1-5485-b4e0-94979b102068");
  expect("System.Net.NameResolution", "4b326142-bfb5-5ed3-8585-7714181d14b0");
  expect("System.Net.Security", "7beee6b1-e3fa-5ddb-34be-1404ad0e2520");
  expect("System.Net.Sockets", "d5b2e7d4-b6ec-50ae-7cde-af89427ad21f");
}

static void name_is_case_insensitive_and_star_is_ignored(void **state)
{
  (void)state;
  expect("*PerfView", "a8a71ac1-040f-54a2-07ca-00a89b5ab761");
  expect("perfview", "a8a71ac1-040f-54a2-07ca-00a89b5ab761");
  expect("*MICROSOFT-diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144");
}

static void bad_names(void **state)
{
  struct etw_guid g;
  (void)state;
  assert_int_equal(eventsource_guid("", &g), ETWCAP_E_USAGE);
  assert_int_equal(eventsource_guid("*", &g), ETWCAP_E_USAGE);
  assert_int_equal(eventsource_guid("bad\xff", &g), ETWCAP_E_USAGE);
  assert_int_equal(eventsource_guid("\xc0\x80", &g), ETWCAP_E_USAGE); /* overlong NUL */
}

static void registered_guids_are_not_eventsources(void **state)
{
  struct etw_guid g;
  (void)state;
  assert_int_equal(guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &g), 0);
  assert_false(eventsource_guid_maybe(&g));
}

static void guid_text_round_trip(void **state)
{
  struct etw_guid g;
  char text[GUID_STRING_SIZE];
  uint8_t bytes[16];
  (void)state;
  assert_int_equal(guid_parse("{A8A71AC1-040F-54A2-07CA-00A89B5AB761}", &g), 0);
  guid_format(&g, text);
  assert_string_equal(text, "a8a71ac1-040f-54a2-07ca-00a89b5ab761");
  guid_to_bytes(&g, bytes);
  assert_int_equal(bytes[0], 0xc1); /* Data1 little-endian in memory */
  assert_int_equal(bytes[7], 0x54);
  assert_int_equal(bytes[8], 0x07);
  assert_int_equal(guid_parse("a8a71ac1-040f-54a2-07ca-00a89b5ab76", &g), -1);
  assert_int_equal(guid_parse("a8a71ac1-040f-54a2-07ca-00a89b5ab76g", &g), -1);
  assert_int_equal(guid_parse("a8a71ac1+040f-54a2-07ca-00a89b5ab761", &g), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reference_check_values),
    cmocka_unit_test(default_table_hashes),
    cmocka_unit_test(runbook_eventsources),
    cmocka_unit_test(name_is_case_insensitive_and_star_is_ignored),
    cmocka_unit_test(bad_names),
    cmocka_unit_test(registered_guids_are_not_eventsources),
    cmocka_unit_test(guid_text_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
