/* Provider names resolve in the order of docs/perfview-collection.md §4.5:
 * GUID, *Name (hashed), the built-in table (names and PerfView's aliases),
 * the OS (none off Windows), otherwise an error naming the text.  GUIDs
 * typed from docs/perfview-collection.md §4.3, §4.5, §4.7. */
#include "tests/fakes/test_support.h"

#include "etw/event/providers.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

static void resolves_to(const char *text, const char *guid, const char *name)
{
  struct provider_ref r;
  char err[512] = "", g[GUID_STRING_SIZE];
  int rc = providers_resolve(text, strlen(text), &r, err, sizeof(err));
  if (rc)
    fail_msg("'%s': %s", text, err);
  guid_format(&r.guid, g);
  assert_string_equal(g, guid);
  if (name)
    assert_string_equal(r.name, name);
}

static void clr_names_and_aliases(void **state)
{
  (void)state;
  resolves_to("Microsoft-Windows-DotNETRuntime", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
              "Microsoft-Windows-DotNETRuntime");
  resolves_to("microsoft-windows-dotnetruntime", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", NULL);
  resolves_to("Clr", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", NULL);
  resolves_to("ClrRundown", "a669021c-c450-4609-a035-5af59af4df18",
              "Microsoft-Windows-DotNETRuntimeRundown");
  resolves_to("ClrNative", "47c3ba0c-77f1-4eb0-8d4d-aef447f16a85", NULL);
  resolves_to("ClrPrivate", "763fd754-7086-4dfe-95eb-c01a46faf4ca", NULL);
  resolves_to("ClrStress", "cc2bcbba-16b6-4cf3-8990-d74c2e8af500", NULL);
  resolves_to("ASP.Net", "aff081fe-0247-4275-9c4e-021f3dc1da35", NULL);
  resolves_to(".NetTasks", "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", NULL);
  resolves_to(".NetFramework", "8e9f5090-2d75-4d03-8a81-e5afbf85daf1", NULL);
  resolves_to(".NetPLinq", "159eeeec-4a14-4418-a8fe-faabcd987887", NULL);
  resolves_to(".NetConcurrentCollections", "35167f8e-49b2-4b96-ab86-435b59336b5e", NULL);
  resolves_to(".NetSync", "ec631d38-466b-4290-9306-834971ba0217", NULL);
  resolves_to("Win32HeapRanges", "d781ca11-61c0-4387-b83d-af52d3d2dd6a", NULL);
  resolves_to("Heap Trace Provider", "222962ab-6180-4b88-a825-346b75f2a24a", NULL);
}

static void kernel_mode_and_default_providers(void **state)
{
  (void)state;
  resolves_to("Microsoft-Windows-Kernel-Process", "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", NULL);
  resolves_to("Microsoft-Windows-Kernel-File", "edd08927-9cc4-4e65-b970-c2560fb5c289", NULL);
  resolves_to("Microsoft-Windows-Kernel-EventTracing", "b675ec37-bdb6-4648-bc92-f3fdc74d3ca2",
              NULL);
  resolves_to("Microsoft-Windows-IIS", "de4649c9-15e8-4fea-9d85-1cdda520c334", NULL);
  resolves_to("Microsoft-Windows-TCPIP", "2f07e2ee-15db-40f1-90ef-9d7ba282188a", NULL);
  resolves_to("Microsoft-Windows-Win32k", "8c416c79-d49b-4f01-a467-e56d3aa8234c", NULL);
  /* Table entries without a GUID hash their name: PerfView's table lists
   * these GUIDs for them. */
  resolves_to("PerfView", "a8a71ac1-040f-54a2-07ca-00a89b5ab761", NULL);
  resolves_to("Microsoft-Diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144",
              NULL);
  resolves_to("Microsoft-AspNetCore-Hosting", "9e620d2a-55d4-5ade-deb7-c26046d245a8", NULL);
  resolves_to("Microsoft-Windows-ASPNET", "ee799f41-cfa5-550b-bf2c-344747c1c668", NULL);
}

static void guids_and_eventsource_names(void **state)
{
  struct provider_ref r;
  char err[256];
  (void)state;
  resolves_to("E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
              "Microsoft-Windows-DotNETRuntime");
  resolves_to("12345678-1234-1234-1234-123456789abc", "12345678-1234-1234-1234-123456789abc",
              "12345678-1234-1234-1234-123456789abc");
  resolves_to("*Microsoft-Diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144",
              "Microsoft-Diagnostics-DiagnosticSource");
  assert_int_equal(providers_resolve("*System.Net.Http", 16, &r, err, sizeof(err)), 0);
  assert_int_equal(r.source, PROVIDER_FROM_EVENTSOURCE);
  assert_string_equal(r.name, "System.Net.Http");
}

static void star_names_equal_table_names(void **state)
{
  /* A command line (docs/perfview-collection.md §10) may write
   * *System.Net.Http or System.Net.Http: same GUID. */
  static const char *const names[] = { "System.Net.Http", "System.Net.Sockets",
                                       "Microsoft.AspNetCore.Hosting",
                                       "Microsoft-AspNetCore-Server-Kestrel" };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    struct provider_ref a, b;
    char star[128], err[256];
    snprintf(star, sizeof(star), "*%s", names[i]);
    assert_int_equal(providers_resolve(names[i], strlen(names[i]), &a, err, sizeof(err)), 0);
    assert_int_equal(providers_resolve(star, strlen(star), &b, err, sizeof(err)), 0);
    assert_true(guid_equal(&a.guid, &b.guid));
  }
}

static void unknown_names_are_errors_not_hashes(void **state)
{
  struct provider_ref r;
  char err[512] = "";
  (void)state;
  assert_int_equal(providers_resolve("Microsoft-Windows-DotNETRuntme", 30, &r, err, sizeof(err)),
                   ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "'Microsoft-Windows-DotNETRuntme'"));
  assert_non_null(strstr(err, "*Microsoft-Windows-DotNETRuntme"));
  assert_int_equal(providers_resolve("", 0, &r, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_int_equal(providers_resolve("*", 1, &r, err, sizeof(err)), ETWCAP_E_USAGE);
}

static void the_kernel_logger_is_not_a_provider(void **state)
{
  struct provider_ref r;
  char err[512] = "";
  static const char k[] = "9e814aad-3204-11d2-9a82-006008a86939";
  (void)state;
  assert_int_equal(providers_resolve(k, strlen(k), &r, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/KernelEvents"));
}

static void table_has_no_duplicate_names_or_guids(void **state)
{
  size_t i, j;
  (void)state;
  for (i = 0; i < providers_known_count; i++) {
    struct etw_guid gi;
    providers_guid_of(&providers_known[i], &gi);
    for (j = i + 1; j < providers_known_count; j++) {
      struct etw_guid gj;
      providers_guid_of(&providers_known[j], &gj);
      if (guid_equal(&gi, &gj) || !strcmp(providers_known[i].name, providers_known[j].name))
        fail_msg("%s and %s clash", providers_known[i].name, providers_known[j].name);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(clr_names_and_aliases),
    cmocka_unit_test(kernel_mode_and_default_providers),
    cmocka_unit_test(guids_and_eventsource_names),
    cmocka_unit_test(star_names_equal_table_names),
    cmocka_unit_test(unknown_names_are_errors_not_hashes),
    cmocka_unit_test(the_kernel_logger_is_not_a_provider),
    cmocka_unit_test(table_has_no_duplicate_names_or_guids),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
