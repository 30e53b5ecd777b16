/* The Host Compute Service's documents as hcs_win32.c gets them, under Wine
 * (which has no computecore.dll), against the model of the DLL and its
 * calls (fake_computecore_win32.c): the list of compute systems and a
 * container's process list through the system's container host into an
 * inventory, every operation, system and document given back, no call
 * breaking its contract; a refused, failed or timed-out call is "no
 * inventory" with the reason HCS gave; a missing or unloadable DLL says
 * which; two threads load it once. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/containers/container_inventory.h"
#include "src/containers/hcs.h"
#include "tests/fakes/fake_computecore_win32.h"
#include "tests/fakes/log_capture.h"

#include <string.h>

#define FILETIME_NOW INT64_C(133000000000000000)

static void check_clean(void)
{
  if (fake_computecore.violations)
    fail_msg("%s", fake_computecore.last_violation);
  assert_int_equal(fake_computecore.open_operations, 0);
  assert_int_equal(fake_computecore.open_systems, 0);
  assert_int_equal(fake_computecore.documents_freed, fake_computecore.documents);
}

/* Releases the inventory, checks the model is clean and takes it away. */
static void finish(struct container_inventory *inv)
{
  container_inventory_release(inv);
  check_clean();
  fake_computecore_uninstall();
}

static void script_two_systems(void)
{
  fake_computecore.systems =
      L"[{\"Id\":\"6d9f6d0c\",\"SystemType\":\"Container\",\"Name\":\"web\",\"Owner\":\"docker\","
      L"\"RuntimeId\":\"6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0\",\"State\":\"Running\"},"
      L"{\"Id\":\"gone\",\"SystemType\":\"Container\",\"Name\":\"gone\"}]";
  fake_computecore.processes =
      L"{\"ProcessList\":[{\"ProcessId\":1676,\"ImageName\":\"dotnet.exe\"}]}";
  fake_computecore.known_id = L"6d9f6d0c";
}

static void the_inventory_comes_through_computecore(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  script_two_systems();
  container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
  assert_true(inv.available);
  assert_int_equal(inv.count, 2);
  assert_string_equal(inv.systems[0].name, "web");
  assert_string_equal(inv.systems[0].runtime_id, "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0");
  assert_true(inv.systems[0].have_pids);
  assert_int_equal(inv.systems[0].pid_count, 1);
  assert_int_equal(inv.systems[0].pids[0], 1676);
  assert_false(inv.systems[1].have_pids);
  assert_int_equal(fake_computecore.documents, 2);
  assert_int_equal(fake_computecore.loads, 1);
  finish(&inv);
}

/* The second system has gone between the list and the open.  Windows'
 * winerror.h names 0x8037010E, hcsshim 0xC037010E; either is "no process
 * list", and no handle is closed that the failed open did not give. */
static void an_unknown_id_is_no_process_list_with_either_code(void **state)
{
  static const struct {
    HRESULT hr;
    const char *text;
  } codes[] = { { FAKE_HCS_SYSTEM_NOT_FOUND, "0x8037010E" },
                { FAKE_HCS_SYSTEM_NOT_FOUND_HCSSHIM, "0xC037010E" } };
  struct container_inventory inv;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
    fake_computecore_install();
    script_two_systems();
    fake_computecore.not_found_hr = codes[i].hr;
    container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
    assert_true(inv.available);
    assert_true(inv.systems[0].have_pids);
    assert_false(inv.systems[1].have_pids);
    assert_non_null(strstr(inv.systems[1].pids_why, codes[i].text));
    container_inventory_release(&inv);
    check_clean();
  }
  fake_computecore_uninstall();
}

static void access_denied_is_no_inventory_with_its_reason(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  fake_computecore.enumerate_hr = E_ACCESSDENIED;
  container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
  assert_true(inv.taken);
  assert_false(inv.available);
  assert_non_null(strstr(inv.why, "HcsEnumerateComputeSystems failed with HRESULT 0x80070005"));
  assert_non_null(strstr(inv.why, "elevated"));
  finish(&inv);
}

/* A failed operation's ResultError says why: its ErrorMessage reaches the
 * "no container inventory" line, its line breaks neutralised, and the
 * document is given back to LocalFree. */
static void a_failed_operation_says_what_hcs_said(void **state)
{
  struct container_inventory inv;
  struct log_capture *cap = etwcap_calloc(1, sizeof(*cap));
  (void)state;
  assert_non_null(cap);
  fake_computecore_install();
  fake_computecore.wait_hr = (HRESULT)0x80370105L; /* HCS_E_INVALID_STATE */
  fake_computecore.error_document =
      L"{\"Error\":-2143879931,\"ErrorMessage\":\"The service is stopping\\r\\nretry later\","
      L"\"ErrorEvents\":[]}";
  log_add_sink(log_capture_sink, cap, LOG_INFO);
  container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
  log_remove_sink(log_capture_sink, cap);
  assert_false(inv.available);
  assert_non_null(strstr(inv.why, "HcsEnumerateComputeSystems failed with HRESULT 0x80370105"));
  assert_non_null(strstr(inv.why, "The service is stopping??retry later"));
  assert_true(log_capture_has(cap, "no container inventory"));
  assert_true(log_capture_has(cap, "The service is stopping??retry later"));
  assert_int_equal(fake_computecore.documents, 1);
  finish(&inv);
  etwcap_free(cap);
}

/* A wait that times out leaves the operation running: it is cancelled
 * before it is closed, and the reason names the timeout. */
static void a_timeout_cancels_the_operation_before_closing_it(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  fake_computecore.wait_times_out = 1;
  container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
  assert_false(inv.available);
  assert_non_null(strstr(inv.why, "HCS_E_OPERATION_TIMEOUT"));
  assert_non_null(strstr(inv.why, "0x80370118"));
  assert_int_equal(fake_computecore.cancels, 1);
  assert_int_equal(fake_computecore.closed_pending, 0);
  assert_int_equal(fake_computecore.documents, 0);
  finish(&inv);
}

/* Without an HcsCancelOperation export the operation is closed all the
 * same. */
static void a_timeout_without_a_cancel_export_still_closes(void **state)
{
  struct container_inventory inv;
  (void)state;
  fake_computecore_install();
  fake_computecore.cancel_not_exported = 1;
  fake_computecore.wait_times_out = 1;
  container_inventory_take(&inv, container_host_system(), FILETIME_NOW);
  assert_false(inv.available);
  assert_int_equal(fake_computecore.cancels, 0);
  assert_int_equal(fake_computecore.closed_pending, 1);
  finish(&inv);
}

static void a_missing_dll_is_not_an_unsupported_flag(void **state)
{
  char why[512], *json = (char *)"untouched";
  (void)state;
  fake_computecore_install();
  fake_computecore.dll = FAKE_DLL_ABSENT;
  assert_int_equal(hcs_systems_json(&json, why, sizeof(why)), ETWCAP_E_UNSUPPORTED);
  assert_null(json);
  assert_non_null(strstr(why, "not in System32 (error 126)"));
  assert_null(strstr(why, "KB2533623"));

  /* Windows 7 without KB2533623 refuses the flag: the file was not looked
   * for, and the message says so rather than "not in System32". */
  fake_computecore_install();
  fake_computecore.dll = FAKE_DLL_NO_SEARCH_FLAGS;
  assert_int_equal(hcs_systems_json(&json, why, sizeof(why)), ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(why, "LOAD_LIBRARY_SEARCH_SYSTEM32"));
  assert_non_null(strstr(why, "KB2533623"));
  assert_null(strstr(why, "not in System32"));
  /* Asked again (the capture's stop): the same reason, not loaded twice. */
  why[0] = '\0';
  assert_int_equal(hcs_processes_json("6d9f6d0c", &json, why, sizeof(why)),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(why, "KB2533623"));
  assert_int_equal(fake_computecore.loads, 1);
  check_clean();
  fake_computecore_uninstall();
}

static void a_missing_export_unloads_the_dll_and_names_it(void **state)
{
  char why[512], *json = NULL;
  (void)state;
  fake_computecore_install();
  fake_computecore.missing_export = "HcsGetComputeSystemProperties";
  assert_int_equal(hcs_systems_json(&json, why, sizeof(why)), ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(why, "computecore.dll has no HcsGetComputeSystemProperties"));
  assert_int_equal(fake_computecore.frees, 1);
  check_clean();
  fake_computecore_uninstall();
}

static DWORD WINAPI ask_systems(LPVOID arg)
{
  char why[512], *json = NULL;
  (void)arg;
  if (hcs_systems_json(&json, why, sizeof(why)) == 0)
    etwcap_free(json);
  return 0;
}

/* The capture's start, its stop and a merge may ask from different
 * threads: the second waits for the first one's load instead of loading
 * again.  (Without that, the second thread loads on its own while the
 * first is held inside LoadLibraryExW, and finishes first.) */
static void two_threads_load_computecore_once(void **state)
{
  HANDLE first, second;
  DWORD second_done_early;
  (void)state;
  fake_computecore_install();
  script_two_systems();
  fake_computecore.load_gate = CreateEventW(NULL, TRUE, FALSE, NULL);
  fake_computecore.load_entered = CreateEventW(NULL, TRUE, FALSE, NULL);
  assert_non_null(fake_computecore.load_gate);
  assert_non_null(fake_computecore.load_entered);
  first = CreateThread(NULL, 0, ask_systems, NULL, 0, NULL);
  assert_non_null(first);
  assert_int_equal(WaitForSingleObject(fake_computecore.load_entered, 30000), WAIT_OBJECT_0);
  second = CreateThread(NULL, 0, ask_systems, NULL, 0, NULL);
  assert_non_null(second);
  second_done_early = WaitForSingleObject(second, 500);
  SetEvent(fake_computecore.load_gate);
  assert_int_equal(WaitForSingleObject(first, 30000), WAIT_OBJECT_0);
  assert_int_equal(WaitForSingleObject(second, 30000), WAIT_OBJECT_0);
  CloseHandle(first);
  CloseHandle(second);
  CloseHandle(fake_computecore.load_gate);
  CloseHandle(fake_computecore.load_entered);
  assert_int_equal(fake_computecore.loads, 1);
  assert_int_equal(second_done_early, WAIT_TIMEOUT);
  assert_int_equal(fake_computecore.documents, 2);
  check_clean();
  fake_computecore_uninstall();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_inventory_comes_through_computecore),
    cmocka_unit_test(an_unknown_id_is_no_process_list_with_either_code),
    cmocka_unit_test(access_denied_is_no_inventory_with_its_reason),
    cmocka_unit_test(a_failed_operation_says_what_hcs_said),
    cmocka_unit_test(a_timeout_cancels_the_operation_before_closing_it),
    cmocka_unit_test(a_timeout_without_a_cancel_export_still_closes),
    cmocka_unit_test(a_missing_dll_is_not_an_unsupported_flag),
    cmocka_unit_test(a_missing_export_unloads_the_dll_and_names_it),
    cmocka_unit_test(two_threads_load_computecore_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
