/* The Windows side of the selftest's workload, under Wine: the descriptors
 * handed to EventWriteTransfer (through a recording fake of advapi32's
 * event-provider functions: provider traits, event metadata, payload, in
 * TraceLoggingProvider.h's order and types, decoded by etwcap's own
 * TraceLogging reader), the child process, the DLL by full path, the
 * thread switches. */
#include "tests/fakes/test_support.h"

#include "etw/event/tracelogging.h"
#include "src/base/error.h"
#include "src/selftest/selftest_os_win32.h"

#include <stdio.h>
#include <string.h>

struct recorded {
  int registered, unregistered, writes;
  GUID provider;
  EVENT_DESCRIPTOR desc;
  ULONG count;
  ULONG types[4];
  uint8_t data[4][128];
  ULONG sizes[4];
};

static struct recorded rec;

static ULONG WINAPI fake_register(LPCGUID provider, PENABLECALLBACK cb, PVOID ctx, PREGHANDLE h)
{
  (void)cb;
  (void)ctx;
  rec.registered++;
  rec.provider = *provider;
  *h = 0x1234;
  return ERROR_SUCCESS;
}

static ULONG WINAPI fake_write(REGHANDLE h, PCEVENT_DESCRIPTOR desc, LPCGUID activity,
                               LPCGUID related, ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
  ULONG i;
  (void)activity;
  (void)related;
  if (h != 0x1234)
    return ERROR_INVALID_HANDLE;
  rec.writes++;
  rec.desc = *desc;
  rec.count = count;
  for (i = 0; i < count && i < 4; i++) {
    rec.types[i] = data[i].Reserved & 0xFF;
    rec.sizes[i] = data[i].Size;
    memcpy(rec.data[i], (const void *)(ULONG_PTR)data[i].Ptr,
           data[i].Size < sizeof(rec.data[i]) ? data[i].Size : sizeof(rec.data[i]));
  }
  return ERROR_SUCCESS;
}

static ULONG WINAPI fake_unregister(REGHANDLE h)
{
  (void)h;
  rec.unregistered++;
  return ERROR_SUCCESS;
}

static const struct selftest_eventapi fake_api = { fake_register, fake_write, fake_unregister };

static void an_event_travels_as_traits_metadata_and_payload(void **state)
{
  struct selftest_os os;
  struct selftest_tl_event e;
  struct etw_guid g;
  struct tl_meta m;
  struct tv_value v;
  (void)state;
  memset(&rec, 0, sizeof(rec));
  selftest_os_win32_set_eventapi(&fake_api);
  selftest_os_system(&os);
  assert_int_equal(selftest_tl_provider_guid(&g), 0);
  assert_int_equal(os.tl_register(os.ctx, &g), 0);
  assert_int_equal(rec.provider.Data1, g.data1);
  assert_int_equal(selftest_tl_event_build(&e, SELFTEST_TL_STOP, 6, 42), 0);
  assert_int_equal(os.tl_write(os.ctx, &e), 0);
  os.tl_unregister(os.ctx);
  selftest_os_win32_set_eventapi(NULL);
  /* TraceLoggingProvider.h: channel 11 (WINEVENT_CHANNEL_TRACELOGGING);
   * descriptors: provider traits (Type 2), event metadata (Type 1), then
   * the payload (Type 0) — evntprov.h EVENT_DATA_DESCRIPTOR_TYPE_*. */
  assert_int_equal(rec.desc.Channel, 11);
  assert_int_equal(rec.count, 3);
  assert_int_equal(rec.types[0], 2);
  assert_int_equal(rec.types[1], 1);
  assert_int_equal(rec.types[2], 0);
  assert_int_equal(rec.sizes[0], 2 + sizeof(SELFTEST_TL_PROVIDER));
  assert_string_equal((const char *)rec.data[0] + 2, SELFTEST_TL_PROVIDER);
  assert_int_equal(tl_parse_bytes(rec.data[1], rec.sizes[1], &m), 1);
  assert_string_equal(m.name, SELFTEST_TL_STOP);
  assert_int_equal(tl_find(&m, rec.data[2], rec.sizes[2], 8, "Pid", &v), 1);
  assert_int_equal(v.type, TV_UINT);
  assert_int_equal(v.u, 42);
  assert_int_equal(rec.unregistered, 1);
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
    cmocka_unit_test(the_child_process_runs_and_ends),
    cmocka_unit_test(the_dll_is_loaded_from_the_system_folder),
    cmocka_unit_test(two_threads_hand_the_token_back_and_forth),
    cmocka_unit_test(a_dotnet_child_that_runs_no_managed_code_is_a_failure),
  };
  if (argc > 1 && !strcmp(argv[1], SELFTEST_CHILD_COMMAND))
    return 0;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
