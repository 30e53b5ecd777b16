/* The Windows side of the selftest's workload, under Wine: its TraceLogging
 * provider against the model of advapi32's event-provider calls
 * (tests/fakes/fake_eventwrite_win32.c: traits set before the first event,
 * then provider traits, event metadata, payload, in TraceLoggingProvider.h's
 * order and types, decoded by etwcap's own TraceLogging reader); the spin's
 * CPU time against the model of GetThreadTimes; the child process, the
 * readiness event of the .NET child, the DLL by full path, the thread
 * switches. */
#include "tests/fakes/test_support.h"

#include "etw/event/tracelogging.h"
#include "src/base/error.h"
#include "src/selftest/selftest_os_win32.h"
#include "tests/fakes/fake_eventwrite_win32.h"
#include "tests/fakes/fake_thread_times_win32.h"

#include <stdio.h>
#include <string.h>

/* The workload's provider through the model, which a session enables at
 * its default level (/Providers:*etwcap-Selftest): registered, one event
 * "SelftestStop" Seq 6 Pid 42 written (*write_rc), unregistered.  Returns
 * what the registration answered. */
static int one_event_through_the_model(struct fake_ew *ew, struct etw_guid *g, int *write_rc)
{
  struct selftest_os os;
  struct selftest_tl_event e;
  int rc;
  ew->session_level = 4;
  own_provider_win32_set_api(&fake_ew_api);
  selftest_os_system(&os);
  assert_int_equal(selftest_tl_provider_guid(g), 0);
  rc = os.tl_register(os.ctx, g);
  assert_int_equal(selftest_tl_event_build(&e, SELFTEST_TL_STOP, 6, 42), 0);
  *write_rc = os.tl_write(os.ctx, &e);
  os.tl_unregister(os.ctx);
  own_provider_win32_set_api(NULL);
  return rc;
}

static void an_event_travels_as_traits_metadata_and_payload(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct etw_guid g;
  struct tl_meta m;
  struct tv_value v;
  int written = -1;
  (void)state;
  assert_int_equal(one_event_through_the_model(ew, &g, &written), 0);
  assert_int_equal(written, 0);
  assert_int_equal(ew->provider.Data1, g.data1);
  /* EventSetInformation(EventProviderSetTraits) came before the event
   * (EVENT_DATA_DESCRIPTOR, Type: ignored otherwise), with the same traits
   * the event carries. */
  assert_int_equal(ew->violations, 0);
  assert_int_equal(ew->traits_set, 1);
  assert_int_equal(ew->event_count, 1);
  /* TraceLoggingProvider.h: channel 11 (WINEVENT_CHANNEL_TRACELOGGING);
   * provider traits = UINT16 size, then the name with its NUL. */
  assert_int_equal(ew->events[0].desc.Channel, 11);
  assert_int_equal(ew->events[0].traits_len, 2 + sizeof(SELFTEST_TL_PROVIDER));
  assert_string_equal((const char *)ew->events[0].traits + 2, SELFTEST_TL_PROVIDER);
  assert_int_equal(tl_parse_bytes(ew->events[0].meta, ew->events[0].meta_len, &m), 1);
  assert_string_equal(m.name, SELFTEST_TL_STOP);
  assert_int_equal(tl_find(&m, ew->events[0].data, ew->events[0].data_len, 8, "Pid", &v), 1);
  assert_int_equal(v.type, TV_UINT);
  assert_int_equal(v.u, 42);
  assert_int_equal(ew->unregistered, 1);
}

/* A Windows that cannot take the traits: no event is written untyped. */
static void a_provider_without_traits_writes_nothing(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct etw_guid g;
  int written = 0;
  (void)state;
  ew->set_information_error = ERROR_NOT_SUPPORTED;
  assert_int_equal(one_event_through_the_model(ew, &g, &written), ETWCAP_E_UNSUPPORTED);
  assert_int_not_equal(written, 0);
  assert_int_equal(ew->violations, 0);
  assert_int_equal(ew->writes, 0);
  assert_int_equal(ew->unregistered, 1);
}

/* The spin of switch_threads with GetThreadTimes answered by the model. */
static void spin_measured_by_the_model(struct selftest_spin *spin)
{
  struct selftest_os os;
  selftest_os_win32_set_thread_times(fake_thread_times);
  selftest_os_system(&os);
  memset(spin, 0, sizeof(*spin));
  assert_int_equal(os.switch_threads(os.ctx, 2, 1, spin), 0);
  selftest_os_win32_set_thread_times(NULL);
}

/* A thread charged no clock tick before the spin: GetThreadTimes answers
 * 0 with success, and the spin's CPU time is still known. */
static void a_zero_cpu_time_before_the_spin_is_a_measurement(void **state)
{
  struct fake_thread_times *tt = fake_thread_times_reset();
  struct selftest_spin spin;
  (void)state;
  tt->cpu_100ns[0] = 0;
  tt->cpu_100ns[1] = 3125000; /* 20 ticks of 15.625 ms */
  tt->answers = 2;
  spin_measured_by_the_model(&spin);
  assert_int_equal(tt->calls, 2);
  assert_int_equal(spin.cpu_known, 1);
  assert_int_equal(spin.cpu_100ns, 3125000);
}

/* GetThreadTimes failing after the spin: the CPU time is unknown, not 0. */
static void a_failed_cpu_time_is_unknown(void **state)
{
  struct fake_thread_times *tt = fake_thread_times_reset();
  struct selftest_spin spin;
  (void)state;
  tt->cpu_100ns[0] = 156250;
  tt->fails[1] = 1;
  tt->answers = 2;
  spin_measured_by_the_model(&spin);
  assert_int_equal(tt->calls, 2);
  assert_int_equal(spin.cpu_known, 0);
}

static void the_child_process_runs_and_ends(void **state)
{
  struct selftest_os os;
  uint32_t pid = 0;
  int code = -1;
  char why[256] = "";
  (void)state;
  selftest_os_system(&os);
  /* The child is this test program with SELFTEST_CHILD_COMMAND: main()
   * answers it at once. */
  assert_int_equal(os.run_child(os.ctx, &pid, &code, why, sizeof(why)), 0);
  assert_true(pid != 0);
  assert_int_equal(code, 0);
}

static void the_dll_is_loaded_from_the_system_folder(void **state)
{
  struct selftest_os os;
  char path[512], why[256] = "";
  size_t n;
  (void)state;
  selftest_os_system(&os);
  assert_int_equal(os.load_dll(os.ctx, path, sizeof(path), why, sizeof(why)), 0);
  n = strlen(path);
  assert_true(n > strlen("\\" SELFTEST_DLL));
  assert_true(_stricmp(path + n - strlen("\\" SELFTEST_DLL), "\\" SELFTEST_DLL) == 0);
  assert_true(path[1] == ':'); /* a full path */
}

/* Under Wine the .NET child cannot run managed code: with no powershell.exe
 * "no .NET on this host" (the one answer that makes DOTNET_CHILD a SKIP);
 * with Wine's powershell.exe, which runs no .NET, a failure that says
 * the child never ran its managed code, and nothing left running. */
static void a_dotnet_child_that_runs_no_managed_code_is_a_failure(void **state)
{
  struct selftest_os os;
  char what[64], why[256];
  uint32_t pid = 1;
  wchar_t ps[MAX_PATH + 64];
  UINT n;
  int rc;
  (void)state;
  n = GetSystemDirectoryW(ps, MAX_PATH);
  assert_true(n > 0 && n < MAX_PATH);
  wcscat(ps, L"\\WindowsPowerShell\\v1.0\\powershell.exe");
  selftest_os_system(&os);
  rc = os.start_dotnet(os.ctx, &pid, what, sizeof(what), why, sizeof(why));
  if (GetFileAttributesW(ps) == INVALID_FILE_ATTRIBUTES) {
    assert_int_equal(rc, ETWCAP_E_NOENT);
    assert_int_equal(pid, 0);
    assert_non_null(strstr(why, "no Windows PowerShell and no .NET Framework runtime"));
  } else {
    assert_true(rc == ETWCAP_E_SYSTEM || rc == ETWCAP_E_TIMEOUT);
    assert_non_null(strstr(why, "Windows PowerShell (process "));
    assert_non_null(strstr(why, "managed code"));
  }
  os.stop_dotnet(os.ctx);
}

/* An event of the first name exists already, and is set: the child must
 * not pass for ready by it (CreateEventW opens an existing event and says
 * ERROR_ALREADY_EXISTS).  Under Wine no managed code runs, so a start that
 * answers 0 can only have been fooled by the stale event. */
static void a_readiness_event_that_exists_is_passed_over(void **state)
{
  struct selftest_os os;
  char what[64], why[256];
  uint32_t pid = 0;
  wchar_t name[64];
  HANDLE stale;
  (void)state;
  _snwprintf(name, sizeof(name) / sizeof(name[0]), L"Local\\etwcapSelftestDotNet_%lu_0",
             (unsigned long)GetCurrentProcessId());
  name[sizeof(name) / sizeof(name[0]) - 1] = 0;
  stale = CreateEventW(NULL, TRUE, TRUE, name);
  assert_non_null(stale);
  selftest_os_system(&os);
  assert_int_not_equal(os.start_dotnet(os.ctx, &pid, what, sizeof(what), why, sizeof(why)), 0);
  os.stop_dotnet(os.ctx);
  CloseHandle(stale);
}

static void two_threads_hand_the_token_back_and_forth(void **state)
{
  struct selftest_os os;
  (void)state;
  struct selftest_spin spin;
  selftest_os_system(&os);
  memset(&spin, 0, sizeof(spin));
  assert_int_equal(os.switch_threads(os.ctx, 200, 10, &spin), 0);
  assert_int_equal(spin.tid, GetCurrentThreadId());
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(an_event_travels_as_traits_metadata_and_payload),
    cmocka_unit_test(a_provider_without_traits_writes_nothing),
    cmocka_unit_test(a_zero_cpu_time_before_the_spin_is_a_measurement),
    cmocka_unit_test(a_failed_cpu_time_is_unknown),
    cmocka_unit_test(a_readiness_event_that_exists_is_passed_over),
    cmocka_unit_test(the_child_process_runs_and_ends),
    cmocka_unit_test(the_dll_is_loaded_from_the_system_folder),
    cmocka_unit_test(two_threads_hand_the_token_back_and_forth),
    cmocka_unit_test(a_dotnet_child_that_runs_no_managed_code_is_a_failure),
  };
  if (argc > 1 && !strcmp(argv[1], SELFTEST_CHILD_COMMAND))
    return 0;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
