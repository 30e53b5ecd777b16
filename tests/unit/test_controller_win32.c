/* The Win32 controller against the recording fake of advapi32 (under Wine):
 * for each command line users type (docs/perfview-collection.md §10), the
 * exact calls etwcap makes — StartTraceW property blocks, TraceSetInformation
 * blocks, every EnableTraceEx2 with its parameters and filter bytes,
 * ControlTraceW — with values typed from docs/perfview-collection.md (§3.1,
 * §4.1-4.7, §7; a bare § below is a section of that page), not from etwcap's
 * own output; the fake checks each call against the documented
 * contract.  Then the commands themselves: scripted Win32 failures with their
 * messages and exit codes, Ctrl+C in the middle through the console seam, and
 * `start` then `stop` in two processes sharing the fake's state file.  In
 * every case the fake proves every session we started was stopped. */
#include "src/base/os/compat_win32.h" /* first: windows.h */

#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/optional_call_win32.h"
#include "src/base/os/os_file.h"
#include "src/base/os/registry.h"
#include "src/base/os/utf16_win32.h"
#include "src/capture/collection.h"
#include "src/capture/rundown.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/cli/plan_cli.h"
#include "src/os/console.h"
#include "tests/fakes/fake_advapi32_win32.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/run_command.h"

#include <stdio.h>
#include <string.h>

#define VERBOSE 5
#define INFO 4
#define CRITICAL 1
#define ALL 0xFFFFFFFFFFFFFFFFull
#define STACK 0x4u

/* --- expected values, from docs/perfview-collection.md §3-§4 ------------------ */

struct want {
  const char *guid;
  UCHAR level;
  ULONGLONG any;
  int stacks;
};

/* §4.7: the default user-mode providers in PerfView's order (the rows for
 * options not given — .NETTasks without /TplEvents, Win32HeapRanges without
 * ReferenceSet, ETWClrProfiler without profiler keywords — are absent).
 * Levels: ClrEventLevel is Verbose by default (§3.2). */
/* etwcap's own provider, enabled after PerfView's logger: the EventSource
 * name hash of "etwcap", computed independently (test_own_provider.c). */
#define ETWCAP "e45c2f6f-cd71-5917-d0b1-1a492ba0ca1c"

static const struct want defaults_head[] = {
  { "a8a71ac1-040f-54a2-07ca-00a89b5ab761", VERBOSE, ALL, 0 }, /* PerfView */
  { ETWCAP, VERBOSE, ALL, 0 },                                 /* etwcap's own */
  { "319dc449-ada5-50f7-428e-957db6791668", VERBOSE, ALL, 1 }, /* DotNet */
  { "b675ec37-bdb6-4648-bc92-f3fdc74d3ca2", VERBOSE, 0x70, 1 }, /* Kernel-EventTracing */
  { "edd08927-9cc4-4e65-b970-c2560fb5c289", VERBOSE, 0x80, 1 }, /* Kernel-File */
  { "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", INFO, 0x10, 1 },    /* Kernel-Process */
  { "aff081fe-0247-4275-9c4e-021f3dc1da35", VERBOSE, 0xFFFFFFFFFFFFFFFDull, 0 }, /* ASP.NET */
  { "ee799f41-cfa5-550b-bf2c-344747c1c668", INFO, ALL, 1 },     /* Microsoft-Windows-ASPNET */
  { "de4649c9-15e8-4fea-9d85-1cdda520c334", CRITICAL, 0, 0 },   /* IIS */
  { "b2a40f1f-a05a-4dfd-886a-4c4f18c4334c", VERBOSE, ALL, 0 },  /* PerfTrack-IEFRAME */
  { "ffdb9886-80f3-4540-aa8b-b85192217ddf", VERBOSE, ALL, 0 },  /* PerfTrack-MSHTML */
  { "43d1a55c-76d6-4f7e-995c-64c711e5cafe", VERBOSE, 0x2, 0 },  /* WinINet */
  { "c651f5f6-1c0d-492e-8ae1-b4efd7c9d503", INFO, ALL, 0 },     /* WCF */
  { "9e3b3947-ca5d-4614-91a2-7b624e0e7244", INFO, 0x1300, 0 },  /* Microsoft-IE */
  { "1c95126e-7eea-49a9-a3fe-a378b03ddb4d", INFO, ALL, 0 },     /* DNS-Client */
  { "c44219d0-f344-11df-a5e2-b307dfd72085", VERBOSE, 0x4, 0 },  /* DirectComposition */
  { "315a8872-923e-4ea2-9889-33cd4754bf64", INFO, ALL, 0 },     /* Immersive-Shell */
  { "531a35ab-63ce-4bcf-aa98-f88c7a89e455", INFO, ALL, 0 },     /* XAML */
  { "57277741-3638-4a4b-bdba-0ac6e45da56c", VERBOSE, ALL, 0 },  /* JScript */
  { "763fd754-7086-4dfe-95eb-c01a46faf4ca", INFO, 0x4002000B, 0 }, /* CLRPrivate */
  { "1095638c-8748-4c7a-b39e-baea27b9c589", INFO, 0x4002000B, 0 }, /* ClrPrivateNative */
  { "8e9f5090-2d75-4d03-8a81-e5afbf85daf1", VERBOSE, 0x16, 1 }, /* .NETFramework */
  { "b734069e-103c-5376-2080-4f009207881a", INFO, 0x80, 0 },    /* Microsoft.Tasks.Nuget */
  { "6a4dfe53-eb50-5332-8473-7b7e10a94fd1", INFO, 0x1, 1 },     /* AdoNet-SystemData */
  { "6652970f-1756-5d8d-0805-e9aad152aa79", VERBOSE, ALL, 0 },  /* ETWCLrProfiler Diagnostics */
  { "adb401e1-5296-51f8-c125-5fda75826144", INFO, 0xFFFFFFFFFFFFF7FFull, 1 }, /* DiagnosticSource */
  { "9e620d2a-55d4-5ade-deb7-c26046d245a8", VERBOSE, ALL, 0 },  /* AspNetCore-Hosting */
  { "74af9f20-af6a-5582-9382-f21f674fb271", VERBOSE, ALL, 1 },  /* ApplicationInsights-Core */
  { "331c3b3a-2005-44c2-ac5e-77220c37d6b4", INFO, 0xFFB, 0 },   /* Kernel-Power */
  { "0f67e49f-fe51-4e9f-b490-6f2948cc6027", INFO, 0xE5D, 0 },   /* Kernel-Processor-Power */
  { "b1f90b27-4551-49d6-b2bd-dfc6453762a6", INFO, ALL, 0 },     /* PowerCpl */
  { "9f0c4ea8-ec01-4200-a00d-b9701cbea5d8", INFO, ALL, 0 },     /* PowerCfg */
};

/* §4.7 "additionally when kernel has ContextSwitch and Dispatcher"; WinINet
 * again (Verbose, all) merges into its first enable (docs/plan-json.md). */
static const struct want threadtime_extras[] = {
  { "0a002690-3839-4e3a-b3b6-96d8df868d99", VERBOSE, ALL, 1 }, /* Antimalware-Engine */
  { "cfeb0608-330e-4410-b00d-56d8da9986e6", VERBOSE, ALL, 1 }, /* Antimalware-AMFilter */
  { "751ef305-6c6e-4fed-b847-02ef79d26aef", VERBOSE, ALL, 0 }, /* Antimalware-Service */
  { "8e92deef-5e17-413b-b927-59b2f06a3cfc", VERBOSE, ALL, 0 }, /* Antimalware-RTP */
  { "e4b70372-261f-4c54-8fa6-a5a7914d73da", VERBOSE, ALL, 0 }, /* Antimalware-Protection */
  { "dd5ef90a-6398-47a4-ad34-4dcecdef795f", VERBOSE, ALL, 1 }, /* HttpService */
  { "2f07e2ee-15db-40f1-90ef-9d7ba282188a", INFO, ALL, 1 },    /* TCPIP */
  { "2ed6006e-4729-4609-b423-3ee7bcd678ef", INFO, ALL, 0 },    /* NDIS-PacketCapture */
  { "50b3e73c-9370-461d-bb9f-26f32d68887d", INFO, ALL, 0 },    /* WebIO */
  { "7d44233d-3055-4b9c-ba64-0d47ca40a232", VERBOSE, ALL, 0 }, /* WinHttp */
  { "6ad52b32-d609-4be9-ae07-ce8dae937e39", INFO, 0, 0 },      /* RPC */
};

/* §4.7 "then": MeasurementBlock and CodeMarkers (not with GC presets),
 * finally the CLR with /ClrEvents (Default = 0x14C14FCCBD, effective
 * 0x14C14FCC9D with the default /NoNGenRundown, §4.3) and ClrNative with the
 * same keywords, stacks because GC is on at Verbose. */
static const struct want defaults_tail[] = {
  { "143a31db-0372-40b6-b8f1-b4b16adb5f54", VERBOSE, ALL, 0 },           /* MeasurementBlock */
  { "641d7f6c-481c-42e8-ab7e-d18dc5e5cb9e", VERBOSE, ALL, 0 },           /* CodeMarkers */
  { "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", VERBOSE, 0x14C14FCC9Dull, 0 }, /* CLR */
  { "47c3ba0c-77f1-4eb0-8d4d-aef447f16a85", VERBOSE, 0x14C14FCC9Dull, 1 }, /* ClrNative */
};

/* §3.2 /GCCollectOnly: CLRPrivate (+native) Info GC, then CLR and ClrNative
 * at Informational with GC (0x1), no stacks (level below Verbose). */
static const struct want gc_collect_only[] = {
  { "a8a71ac1-040f-54a2-07ca-00a89b5ab761", VERBOSE, ALL, 0 },
  { ETWCAP, VERBOSE, ALL, 0 },
  { "763fd754-7086-4dfe-95eb-c01a46faf4ca", INFO, 0x1, 0 },
  { "1095638c-8748-4c7a-b39e-baea27b9c589", INFO, 0x1, 0 },
  { "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", INFO, 0x1, 0 },
  { "47c3ba0c-77f1-4eb0-8d4d-aef447f16a85", INFO, 0x1, 0 },
};

/* The ASP.NET Core EventSources of the /Providers of §10's ASP.NET Core line,
 * as their own tests pin them (aspnetcore HostingEventSourceTests,
 * KestrelEventSourceTests). */
#define ASPNETCORE_HOSTING "9ded64a4-414c-5251-dcf7-1e4e20c15e70"
#define KESTREL "bdeb4676-a36e-5442-db99-4764e2326c7d"
#define PERFVIEW "a8a71ac1-040f-54a2-07ca-00a89b5ab761"
#define CLR_RUNDOWN "a669021c-c450-4609-a035-5af59af4df18"
#define DIAGNOSTIC_SOURCE "adb401e1-5296-51f8-c125-5fda75826144"

/* §4.5 provider data for DiagnosticSource's FilterAndPayloadSpecs argument
 * (§4.7): EtwSessionName, the session, EtwSessionKeyword, the bit (44..47;
 * 44 when free), then the key and value, each NUL-terminated UTF-8. */
static const char diagnostic_source_spec[] =
    "HttpHandlerDiagnosticListener/System.Net.Http.Request@Activity2Start:Request.RequestUri\n"
    "HttpHandlerDiagnosticListener/System.Net.Http.Response@Activity2Stop:Response.StatusCode";

/* Kernel event classes (MSDN "PerfInfo", "Thread", "Process", "DiskIo",
 * "PageFault_V2" class GUIDs) and the stack ids of §4.2. */
#define PERFINFO_TASK "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"
#define THREAD_TASK "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"
#define PROCESS_TASK "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"
#define DISKIO_TASK "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"
#define PAGEFAULT_TASK "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"

struct want_stack {
  const char *task;
  UCHAR type;
};

static const struct want_stack default_stacks[] = {
  { PERFINFO_TASK, 0x2E },                          /* Profile */
  { THREAD_TASK, 0x01 },                            /* Thread */
  { PROCESS_TASK, 0x0A },                           /* ImageLoad (Process task) */
  { PROCESS_TASK, 0x0B },                           /* Process: terminate */
  { DISKIO_TASK, 0x0C }, { DISKIO_TASK, 0x0D }, { DISKIO_TASK, 0x0F }, /* DiskIOInit */
  { PAGEFAULT_TASK, 0x20 },                         /* MemoryHardFaults */
};
static const struct want_stack threadtime_stacks[] = {
  { THREAD_TASK, 0x24 }, /* ContextSwitch */
  { THREAD_TASK, 0x32 }, /* Dispatcher: ReadyThread */
};

/* --- helpers ----------------------------------------------------------------- */

static GUID guid_of(const char *text)
{
  struct etw_guid g;
  GUID out;
  assert_int_equal(guid_parse(text, &g), 0);
  out.Data1 = g.data1;
  out.Data2 = g.data2;
  out.Data3 = g.data3;
  memcpy(out.Data4, g.data4, 8);
  return out;
}

static int same_guid(const GUID *a, const char *text)
{
  GUID b = guid_of(text);
  return memcmp(a, &b, sizeof(b)) == 0;
}

static char data_path[512];
/* EVENT_TRACE_INDEPENDENT_SESSION_MODE (§4.6) where Windows has it: 8.1 and
 * later (§12; docs/win32-contract.md §1.13); run_runbook sets it for the
 * Windows planned. */
static ULONG independent = 0x08000000;
static char zip_path[600];
static size_t cursor;

static void remove_files(void)
{
  static const char *const names[] = { "ctl.etl", "ctl.kernel.etl", "ctl.clrRundown.etl",
                                       "ctl.userheap.etl",
                                       "ctl.etl.zip", "ctl.etl" SESSION_RECORD_SUFFIX,
                                       "ctl.etl" SESSION_REQUEST_SUFFIX, "ctl.state",
                                       "ctl.state.calls", NULL };
  char path[600];
  size_t i;
  for (i = 0; names[i]; i++)
    os_remove(test_tmp_path(names[i], path, sizeof(path)));
}

static int setup(void **state)
{
  (void)state;
  remove_files();
  test_tmp_path("ctl.etl", data_path, sizeof(data_path));
  snprintf(zip_path, sizeof(zip_path), "%s.zip", data_path);
  fake_advapi32_install(NULL);
  cursor = 0;
  console_open();
  console_close();
  return 0;
}

static int teardown(void **state)
{
  size_t i;
  (void)state;
  for (i = 0; i < fake_advapi32_violation_count(); i++)
    print_message("violation: %s\n", fake_advapi32_violation(i));
  fake_advapi32_uninstall();
  remove_files();
  return 0;
}

static void no_violations(void)
{
  size_t i, n = fake_advapi32_violation_count();
  for (i = 0; i < n; i++)
    print_message("contract violation: %s\n", fake_advapi32_violation(i));
  assert_int_equal(n, 0);
}

/* Every StartTraceW that succeeded is followed by a ControlTraceW(STOP) of
 * that name, and nothing of ours still runs. */
static void every_start_stopped(void)
{
  size_t i, j, n = fake_advapi32_call_count();
  assert_int_equal(fake_advapi32_running(), 0);
  for (i = 0; i < n; i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    int stopped = 0;
    if (c->api != FAKE_START_TRACE || c->result != ERROR_SUCCESS)
      continue;
    for (j = i + 1; j < n && !stopped; j++) {
      const struct fake_advapi_call *d = fake_advapi32_call(j);
      stopped = d->api == FAKE_CONTROL_TRACE && d->control_code == EVENT_TRACE_CONTROL_STOP &&
                d->result == ERROR_SUCCESS && !_stricmp(d->name, c->name);
    }
    if (!stopped)
      fail_msg("session '%s' was started and never stopped", c->name);
  }
}

/* The next call that changes something: the keyword queries before an
 * enable with arguments are read, not part of the sequence. */
static const struct fake_advapi_call *next(enum fake_api api)
{
  const struct fake_advapi_call *c = fake_advapi32_call(cursor++);
  while (c && c->api == FAKE_ENUMERATE_TRACE_GUIDS_EX && api != FAKE_ENUMERATE_TRACE_GUIDS_EX)
    c = fake_advapi32_call(cursor++);
  if (!c)
    fail_msg("call %lu: expected API %d, but there are no more calls", (unsigned long)cursor,
             (int)api);
  if (c->api != api)
    fail_msg("call %lu: expected API %d, got %d (%s)", (unsigned long)cursor, (int)api,
             (int)c->api, c->name);
  return c;
}

static int ends_with(const char *s, const char *suffix)
{
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !_stricmp(s + a - b, suffix);
}

/* §4.6: Wnode.Flags TRACED_GUID, ClientContext 1 (QPC), BufferSize 64 KB,
 * Min = MB*1024/64, Max = Min*5/4+10, FlushTimer 60 s for files. */
static void check_session(const struct fake_advapi_call *c, const char *name, const char *file,
                          ULONG mode, ULONG max_file_mb, ULONG pool_mb)
{
  ULONG min = pool_mb * 1024 / 64;
  assert_string_equal(c->name, name);
  if (!ends_with(c->file, file))
    fail_msg("%s: LogFileName '%s' does not end with '%s'", name, c->file, file);
  assert_true(c->file[1] == ':' || c->file[0] == '\\'); /* absolute */
  assert_int_equal(c->wnode_flags, 0x00020000);
  assert_int_equal(c->client_context, 1);
  assert_int_equal(c->buffer_size, 64);
  assert_int_equal(c->minimum_buffers, min);
  assert_int_equal(c->maximum_buffers, min * 5 / 4 + 10);
  assert_int_equal(c->flush_timer, 60);
  assert_int_equal(c->log_file_mode, mode);
  assert_int_equal(c->maximum_file_size, max_file_mb);
  assert_int_equal(c->result, ERROR_SUCCESS);
}

struct options {
  int containers;     /* /EnableEventsInContainers: EnableProperty | 0x400 */
  ULONG focus_pid;    /* /FocusProcess:PID: a PID descriptor on every user provider */
  ULONG version;      /* ENABLE_TRACE_PARAMETERS.Version */
};

static void check_enable(const struct fake_advapi_call *c, const char *session,
                         const struct want *w, const struct options *o)
{
  ULONG property = (w->stacks ? STACK : 0) | (o->containers ? 0x400u : 0);
  ULONG descs = 0;
  if (!same_guid(&c->provider, w->guid))
    fail_msg("%s: expected provider %s, got {%08lx-...}", session, w->guid,
             (unsigned long)c->provider.Data1);
  assert_string_equal(c->name, session);
  assert_int_equal(c->control_code, 1); /* EVENT_CONTROL_CODE_ENABLE_PROVIDER */
  assert_int_equal(c->level, w->level);
  assert_int_equal(c->any, w->any);
  assert_int_equal(c->timeout, 0);
  /* SourceId: etwcap's choice (zero, as TraceEvent leaves it), asserted
   * here rather than made a rule of the fake: Windows leaves it to the
   * caller (docs/win32-contract.md §5.5). */
  assert_true(same_guid(&c->source_id, "00000000-0000-0000-0000-000000000000"));
  assert_int_equal(c->version, o->version);
  assert_int_equal(c->enable_property, property);
  if (same_guid(&c->provider, DIAGNOSTIC_SOURCE) && !strcmp(session, "etwcap")) {
    char expect[600];
    size_t n = 0;
#define PUT(s) (memcpy(expect + n, s, sizeof(s)), n += sizeof(s))
    PUT("EtwSessionName");
    PUT("etwcap");
    PUT("EtwSessionKeyword");
    PUT("44");
    PUT("FilterAndPayloadSpecs");
    memcpy(expect + n, diagnostic_source_spec, sizeof(diagnostic_source_spec));
    n += sizeof(diagnostic_source_spec);
#undef PUT
    assert_int_equal(c->all, 1ull << 44); /* MatchAllKeyword = 1 << bit */
    assert_int_equal(c->filters[0].type, 0);
    assert_int_equal(c->filters[0].size, n);
    assert_memory_equal(c->filters[0].data, expect, n);
    descs++;
  } else {
    assert_int_equal(c->all, 0);
  }
  if (o->focus_pid) {
    unsigned char pid[4] = { (unsigned char)o->focus_pid, (unsigned char)(o->focus_pid >> 8),
                             (unsigned char)(o->focus_pid >> 16),
                             (unsigned char)(o->focus_pid >> 24) };
    assert_int_equal(c->filters[descs].type, 0x80000004); /* EVENT_FILTER_TYPE_PID */
    assert_int_equal(c->filters[descs].size, 4);
    assert_memory_equal(c->filters[descs].data, pid, 4);
    descs++;
  }
  assert_int_equal(c->filter_count, descs);
  assert_int_equal(c->result, ERROR_SUCCESS);
}

static void check_list(const char *session, const struct want *list, size_t n,
                       const struct options *o)
{
  size_t i;
  for (i = 0; i < n; i++)
    check_enable(next(FAKE_ENABLE_TRACE_EX2), session, &list[i], o);
}

/* TraceStackTracingInfo: the ids as a set (their order carries no meaning
 * to ETW). */
static void check_stacks(const struct fake_advapi_call *c, const struct want_stack *a,
                         size_t na, const struct want_stack *b, size_t nb)
{
  const CLASSIC_EVENT_ID *ids = (const CLASSIC_EVENT_ID *)c->info;
  size_t count = c->info_length / sizeof(CLASSIC_EVENT_ID), i, j;
  assert_int_equal(c->info_class, TraceStackTracingInfo);
  assert_int_equal(count, na + nb);
  for (i = 0; i < na + nb; i++) {
    const struct want_stack *w = i < na ? &a[i] : &b[i - na];
    int found = 0;
    for (j = 0; j < count && !found; j++)
      found = same_guid(&ids[j].EventGuid, w->task) && ids[j].Type == w->type;
    if (!found)
      fail_msg("stack id %s type 0x%02X missing", w->task, w->type);
  }
}

/* The whole PERFINFO_GROUPMASK, 8 ULONGs (krabsetw perfinfo_groupmask.hpp
 * PERF_NUM_MASKS; docs/win32-contract.md §3.2 rules 2-3), Masks[0] and
 * Masks[1] as given, the rest 0: as a query answered it. */
static void check_flags(const struct fake_advapi_call *c, ULONG m0, ULONG m1)
{
  ULONG expect[8] = { m0, m1, 0, 0, 0, 0, 0, 0 };
  assert_int_equal(c->info_class, TraceSystemTraceEnableFlagsInfo);
  assert_int_equal(c->info_length, 32);
  assert_int_equal(c->result, ERROR_SUCCESS);
  assert_memory_equal(c->info, expect, 32);
}

static void check_caching(const struct fake_advapi_call *c)
{
  const ETWCAP_TRACE_STACK_CACHING_INFO *info = (const void *)c->info;
  assert_int_equal(c->info_class, 24);
  assert_int_equal(c->info_length, 12);
  /* WPR's StackCaching sizes, BucketCount 100 and CacheSize 1024 (WPR's
   * large-file system collector, as Microsoft Defender for Endpoint's WPR
   * profile reproduces it); WPR's element requires both
   * (docs/win32-contract.md §7.4). */
  assert_int_equal(info->Enabled, 1);
  assert_int_equal(info->CacheSize, 1024);
  assert_int_equal(info->BucketCount, 100);
}

static void check_interval(const struct fake_advapi_call *c, ULONG interval)
{
  const TRACE_PROFILE_INTERVAL *pi = (const void *)c->info;
  assert_int_equal(c->info_class, TraceSampledProfileIntervalInfo);
  assert_int_equal(c->handle, 0);
  assert_int_equal(c->info_length, 8);
  assert_int_equal(pi->Source, 0);
  assert_int_equal(pi->Interval, interval);
}

static void check_stop(const char *name)
{
  const struct fake_advapi_call *c = next(FAKE_CONTROL_TRACE);
  assert_int_equal(c->control_code, EVENT_TRACE_CONTROL_STOP);
  assert_string_equal(c->name, name);
  assert_int_equal(c->result, ERROR_SUCCESS);
}

/* Plans a command line for Windows os_major.os_minor.os_build (whatever
 * Wine reports) and runs start, stop and the rundown through the Win32
 * controller. */
static void run_runbook_build(const char *const *args, unsigned os_major, unsigned os_minor,
                              unsigned os_build)
{
  char *argv[16];
  struct cli cli;
  struct plan_options o;
  struct plan plan;
  struct controller ctl;
  struct fake_clock clock;
  struct collection_env env;
  struct collection c;
  struct rundown_result rr;
  char err[256];
  size_t i;
  int argc = 0;
  argv[argc++] = (char *)"etwcap";
  while (args[argc - 1])
    argv[argc] = (char *)args[argc - 1], argc++;
  assert_int_equal(cli_parse(&cli, argc, argv), 0);
  assert_int_equal(plan_options_from_cli(&cli, NULL, NULL, &o, err, sizeof(err)), 0);
  o.os.major = os_major;
  o.os.minor = os_minor;
  o.os.build = os_build;
  o.os_assumed = 1;
  fake_advapi32_set_os(os_major, os_minor, os_build);
  o.data_file = data_path;
  independent = os_major > 6 || (os_major == 6 && os_minor >= 3) ? 0x08000000 : 0;
  assert_int_equal(plan_build(&o, &plan), 0);
  memset(&clock, 0, sizeof(clock));
  controller_system(&ctl);
  fake_env_init(&env, &ctl, &clock);
  collection_init(&c, &env);
  assert_int_equal(collection_start(&c, &plan), 0);
  assert_int_equal(collection_stop(&c), 0);
  for (i = 0; i < plan.session_count; i++)
    if (plan.sessions[i].role == PLAN_ROLE_RUNDOWN)
      assert_int_equal(rundown_run(&env, &plan.sessions[i], plan.enable_parameters_version,
                                   NULL, NULL, &rr),
                       0);
  plan_release(&plan);
  cli_release(&cli);
  no_violations();
  every_start_stopped();
}

/* Windows 10 (the group-mask route, as on every build from 8); 6.1:
 * Windows 7. */
static void run_runbook(const char *const *args, unsigned os_major, unsigned os_minor)
{
  run_runbook_build(args, os_major, os_minor, os_major >= 10 ? 19045 : 7601);
}

static void check_rundown(const struct options *o, const char *const *event_sources, int minimal,
                          ULONG pool_mb)
{
  struct want w;
  size_t i;
  check_session(next(FAKE_START_TRACE), "etwcapRundown", "\\ctl.clrRundown.etl",
                independent | 0x1, 0, pool_mb);
  w.guid = PERFVIEW, w.level = VERBOSE, w.any = ALL, w.stacks = 0;
  check_enable(next(FAKE_ENABLE_TRACE_EX2), "etwcapRundown", &w, o);
  /* §7 step 4: each /Providers EventSource at Critical with 0x80000000000. */
  for (i = 0; event_sources && event_sources[i]; i++) {
    w.guid = event_sources[i], w.level = CRITICAL, w.any = 0x80000000000ull;
    check_enable(next(FAKE_ENABLE_TRACE_EX2), "etwcapRundown", &w, o);
  }
  /* §4.4: loader pass 0x108, 500 ms, method pass 0x1080060111; minimal
   * 0x1000000101.  All Verbose. */
  w.guid = CLR_RUNDOWN, w.level = VERBOSE;
  w.any = minimal ? 0x1000000101ull : 0x108;
  check_enable(next(FAKE_ENABLE_TRACE_EX2), "etwcapRundown", &w, o);
  if (!minimal) {
    w.any = 0x1080060111ull;
    check_enable(next(FAKE_ENABLE_TRACE_EX2), "etwcapRundown", &w, o);
  }
  check_stop("etwcapRundown");
  assert_int_equal(cursor, fake_advapi32_call_count());
}

/* The kernel session of §4.6 for a named system logger on the group-mask
 * route: privilege and interval first, then StartTraceW with EnableFlags
 * and a new Wnode.Guid, stack ids, the group mask read before any Set (the
 * groups Windows built from EnableFlags, all there: no Set;
 * docs/win32-contract.md §3.2 rule 4), its read-back, stack caching. */
static void check_kernel(ULONG flags, ULONG m0, ULONG m1, int profile, int threadtime,
                         ULONG circular, ULONG pool)
{
  static const GUID zero;
  const struct fake_advapi_call *c;
  if (profile) {
    c = next(FAKE_ENABLE_PRIVILEGE);
    assert_string_equal(c->name, "SeSystemProfilePrivilege");
    check_interval(next(FAKE_TRACE_SET_INFORMATION), 10000); /* 1 ms in 100 ns */
  }
  /* INDEPENDENT_SESSION | SYSTEM_LOGGER | FILE_MODE_CIRCULAR */
  c = next(FAKE_START_TRACE);
  check_session(c, "etwcapKernel", "\\ctl.kernel.etl", 0x0A000002, circular, pool);
  /* EnableFlags at start (tracelog -eflag, krabsetw; docs/win32-contract.md
   * §3.2 rule 1); "You must assign a new GUID" (Configuring and Starting a
   * SystemTraceProvider Session; docs/win32-contract.md §1.8). */
  assert_int_equal(c->enable_flags, flags);
  assert_true(memcmp(&c->wnode_guid, &zero, sizeof(zero)) != 0);
  assert_false(same_guid(&c->wnode_guid, "9e814aad-3204-11d2-9a82-006008a86939"));
  if (profile)
    check_stacks(next(FAKE_TRACE_SET_INFORMATION), default_stacks,
                 sizeof(default_stacks) / sizeof(default_stacks[0]), threadtime_stacks,
                 threadtime ? 2 : 0);
  check_flags(next(FAKE_TRACE_QUERY_INFORMATION), m0, m1);
  check_flags(next(FAKE_TRACE_QUERY_INFORMATION), m0, m1);
  check_caching(next(FAKE_TRACE_SET_INFORMATION));
}

static void check_user_defaults(const struct options *o, int threadtime, const char *const *extra,
                                ULONG circular, ULONG pool)
{
  struct want head[sizeof(defaults_head) / sizeof(defaults_head[0])];
  size_t i;
  check_session(next(FAKE_START_TRACE), "etwcap", "\\ctl.etl", independent | 0x2, circular, pool);
  memcpy(head, defaults_head, sizeof(head));
  if (threadtime)
    head[11].any = ALL; /* WinINet, merged with its ThreadTime enable */
  check_list("etwcap", head, sizeof(head) / sizeof(head[0]), o);
  if (threadtime)
    check_list("etwcap", threadtime_extras, sizeof(threadtime_extras) / sizeof(threadtime_extras[0]),
               o);
  check_list("etwcap", defaults_tail, sizeof(defaults_tail) / sizeof(defaults_tail[0]), o);
  /* /Providers come last, Verbose with every keyword (§4.5 defaults). */
  for (i = 0; extra && extra[i]; i++) {
    struct want w = { extra[i], VERBOSE, ALL, 0 };
    check_enable(next(FAKE_ENABLE_TRACE_EX2), "etwcap", &w, o);
  }
}

/* --- the command lines users type (§10) ------------------------------------ */

static void runbook_threadtime_circular(void **state)
{
  const char *args[] = { "/ThreadTime", "collect", "/BufferSizeMB:1024", "/CircularMB:2048", NULL };
  struct options o = { 0, 0, 2 };
  (void)state;
  run_runbook(args, 10, 0);
  /* ThreadTime 0x01012F1F (§4.1); kernel circular 2048, user 2048+300. */
  /* Masks[0] 0x1270F: Process, Thread, ImageLoad, ProcessCounters, DiskIO,
   * DiskFileIO, DiskIOInit, HardFaults, Network; Masks[1] 0x206: PERF_PROFILE
   * 0x2, PERF_CONTEXT_SWITCH 0x4, PERF_DISPATCHER 0x200 (krabsetw). */
  check_kernel(0x01012F1F, 0x1270F, 0x206, 1, 1, 2048, 1024);
  check_user_defaults(&o, 1, NULL, 2348, 1024);
  check_stop("etwcapKernel");
  check_stop("etwcap");
  check_rundown(&o, NULL, 0, 1024); /* max(BufferSizeMB, 256) */
}

static void runbook_threadtime_aspnetcore(void **state)
{
  const char *args[] = { "/ThreadTime",
                         "collect",
                         "/BufferSizeMB:1024",
                         "/CircularMB:2048",
                         "/Providers:*Microsoft.AspNetCore.Hosting,*Microsoft-AspNetCore-Server-Kestrel",
                         NULL };
  const char *extra[] = { ASPNETCORE_HOSTING, KESTREL, NULL };
  struct options o = { 0, 0, 2 };
  (void)state;
  run_runbook(args, 10, 0);
  check_kernel(0x01012F1F, 0x1270F, 0x206, 1, 1, 2048, 1024);
  check_user_defaults(&o, 1, extra, 2348, 1024);
  check_stop("etwcapKernel");
  check_stop("etwcap");
  check_rundown(&o, extra, 0, 1024);
}

static void runbook_gc_collect_only(void **state)
{
  const char *args[] = { "/GCCollectOnly", "collect", NULL };
  struct options o = { 0, 0, 2 };
  (void)state;
  run_runbook(args, 10, 0);
  /* §3.2: Process, plus Thread that TraceEvent always adds (0x3), no
   * stacks, no CPU samples; collect's 500 MB circular default (§1). */
  check_kernel(0x3, 0x3, 0, 0, 0, 500, 256);
  check_session(next(FAKE_START_TRACE), "etwcap", "\\ctl.etl", 0x08000002, 800, 256);
  check_list("etwcap", gc_collect_only, sizeof(gc_collect_only) / sizeof(gc_collect_only[0]), &o);
  check_stop("etwcapKernel");
  check_stop("etwcap");
  check_rundown(&o, NULL, 1, 256); /* GCCollectOnly means NoRundown: the minimal pass */
}

/* Command lines (§10) whose sessions are the default ones (kernel keywords
 * 0x0101270F, §4.1), told apart only by what every user-mode enable carries. */
static const struct default_runbook {
  const char *qualifier;
  struct options o;
} default_runbooks[] = {
  /* Default-Profile is Default (docs/plan-json.md: Profile 0x20000000000 is
   * not in Default). */
  { "/ClrEvents:Default-Profile", { 0, 0, 2 } },
  /* §3.3: ENABLE_SILOS (0x400) on every user-mode enable, rundown too. */
  { "/EnableEventsInContainers", { 1, 0, 2 } },
  /* §3.3: a PID descriptor (0x80000004, one ULONG) on every user-mode
   * provider of the main and rundown sessions; the kernel is unaffected. */
  { "/FocusProcess:1234", { 0, 1234, 2 } },
};

static void runbooks_with_the_default_sessions(void **state)
{
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(default_runbooks) / sizeof(default_runbooks[0]); i++) {
    const struct default_runbook *r = &default_runbooks[i];
    const char *args[] = { "collect", r->qualifier, NULL };
    print_message("%s\n", r->qualifier);
    run_runbook(args, 10, 0);
    check_kernel(0x0101270F, 0x1270F, 0x2, 1, 0, 500, 256);
    check_user_defaults(&r->o, 0, NULL, 800, 256);
    check_stop("etwcapKernel");
    check_stop("etwcap");
    check_rundown(&r->o, NULL, 0, 256);
  }
}

static void windows7_uses_the_nt_kernel_logger(void **state)
{
  const char *args[] = { "collect", NULL };
  struct options o = { 0, 0, 1 };
  const struct fake_advapi_call *c;
  (void)state;
  run_runbook(args, 6, 1);
  /* §4.6: "NT Kernel Logger" with SystemTraceControlGuid, the flags in the
   * properties, no SYSTEM_LOGGER_MODE; ENABLE_TRACE_PARAMETERS version 1
   * without filtering (before 8.1). */
  c = next(FAKE_ENABLE_PRIVILEGE);
  check_interval(next(FAKE_TRACE_SET_INFORMATION), 10000);
  c = next(FAKE_START_TRACE);
  assert_string_equal(c->name, "NT Kernel Logger");
  assert_true(same_guid(&c->wnode_guid, "9e814aad-3204-11d2-9a82-006008a86939"));
  assert_int_equal(c->enable_flags, 0x0101270F);
  assert_int_equal(c->log_file_mode, 0x2); /* no INDEPENDENT_SESSION_MODE before 8.1 */
  check_stacks(next(FAKE_TRACE_SET_INFORMATION), default_stacks,
               sizeof(default_stacks) / sizeof(default_stacks[0]), NULL, 0);
  check_user_defaults(&o, 0, NULL, 800, 256);
  check_stop("NT Kernel Logger");
  check_stop("etwcap");
  check_rundown(&o, NULL, 0, 256);
}

/* A plan for Windows 10.0.19045 (the group-mask route) from `o` (already
 * initialised; the data file is set here), the fake behaving as that
 * Windows, and a collection over the Win32 controller with a virtual
 * clock.  The caller starts, stops and releases. */
struct rig {
  struct plan plan;
  struct controller ctl;
  struct fake_clock clock;
  struct collection_env env;
  struct collection c;
};

static void rig_up_on(struct rig *r, struct plan_options *o, unsigned build)
{
  o->os.build = build;
  o->data_file = data_path;
  assert_int_equal(plan_build(o, &r->plan), 0);
  fake_advapi32_set_os(10, 0, build);
  memset(&r->clock, 0, sizeof(r->clock));
  controller_system(&r->ctl);
  fake_env_init(&r->env, &r->ctl, &r->clock);
  collection_init(&r->c, &r->env);
}

static void rig_up(struct rig *r, struct plan_options *o)
{
  rig_up_on(r, o, 19045);
}

/* A file switch of the kernel session (ControlTraceW UPDATE) on each route,
 * through the Win32 controller: the fake applies UPDATE as ControlTraceW
 * reads (a system logger keeps the groups of the EnableFlags sent, 0
 * disables all its system providers), and the put-back brings every group
 * asked for back (docs/win32-contract.md §4.5).  Groups: krabsetw
 * perfinfo_groupmask.hpp, PERF_PROFILE 0x2 | PERF_CONTEXT_SWITCH 0x4 |
 * PERF_DISPATCHER 0x200 in Masks[1]. */
static void a_switched_kernel_session_gets_its_events_back(void **state)
{
  static const char *const routes[] = { "groupMask", "systemProviders" };
  static struct rig r;
  struct plan_options o;
  struct collection_session *k = NULL;
  char next[600];
  size_t i, route;
  (void)state;
  for (route = 0; route < 2; route++) {
    fake_advapi32_install(NULL);
    plan_options_init(&o);
    o.thread_time = 1;
    o.circular_mb = 0;
    o.kernel_route = routes[route];
    rig_up_on(&r, &o, 20348);
    assert_int_equal(collection_start(&r.c, &r.plan), 0);
    for (i = 0; i < r.c.count; i++)
      if (r.c.sessions[i].role == PLAN_ROLE_KERNEL)
        k = &r.c.sessions[i];
    assert_non_null(k);
    snprintf(next, sizeof(next), "%.*snext.kernel.etl", (int)(strlen(data_path) - 7), data_path);
    assert_int_equal(r.ctl.ops->switch_file(&r.ctl, k->plan, k->name, next), 0);
    /* groupMask: the flags kept their groups; systemProviders: none left. */
    assert_int_equal(fake_advapi32_group_mask("etwcapKernel")[1] & 0x206, route ? 0 : 0x206);
    snprintf(k->file, sizeof(k->file), "%s", next);
    assert_int_equal(collection_kernel_put_back(&r.c, k), 0);
    assert_int_equal(fake_advapi32_group_mask("etwcapKernel")[1] & 0x206, 0x206);
    assert_int_equal(k->kernel_mask.readback,
                     route ? COLLECTION_MASK_INFORMATIONAL : COLLECTION_MASK_READ);
    assert_int_equal(collection_stop(&r.c), 0);
    plan_release(&r.plan);
    no_violations();
    os_remove(next);
  }
}

/* A refused system logger is an error; no silent move to the shared NT
 * Kernel Logger on Windows 8+ (docs/win32-contract.md §2.4). */
static void system_logger_refused_is_an_error(void **state)
{
  static struct rig r;
  struct plan_options o;
  size_t i;
  (void)state;
  plan_options_init(&o);
  fake_advapi32_fail(FAKE_START_TRACE, "etwcapKernel", ERROR_INVALID_PARAMETER, -1, 0, 0);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), ETWCAP_E_RANGE);
  for (i = 0; i < fake_advapi32_call_count(); i++)
    assert_string_not_equal(fake_advapi32_call(i)->name, "NT Kernel Logger");
  no_violations();
  every_start_stopped();
  plan_release(&r.plan);
}

/* /KernelRoute:systemProviders (build 20348+): EnableTraceEx2 on the System
 * Providers in the system logger, EnableFlags 0 at start, no group mask
 * set (docs/win32-contract.md §3.3). */
static void runbook_threadtime_system_providers(void **state)
{
  const char *args[] = { "/ThreadTime", "/KernelRoute:systemProviders", "collect", NULL };
  size_t i;
  int sched = 0, prof = 0;
  (void)state;
  run_runbook_build(args, 10, 0, 20348);
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_START_TRACE && !strcmp(c->name, "etwcapKernel"))
      assert_int_equal(c->enable_flags, 0);
    if (c->api == FAKE_TRACE_SET_INFORMATION)
      assert_int_not_equal(c->info_class, TraceSystemTraceEnableFlagsInfo);
    if (c->api != FAKE_ENABLE_TRACE_EX2 || strcmp(c->name, "etwcapKernel"))
      continue;
    /* SYSTEM_SCHEDULER_KW_CONTEXT_SWITCH 0x200 | DISPATCHER 0x2;
     * SYSTEM_PROFILE_KW_GENERAL 0x1 (System Providers page, evntrace.h). */
    if (same_guid(&c->provider, "599a2a76-4d91-4910-9ac7-7d33f2e97a6c"))
      sched = c->any == 0x202;
    if (same_guid(&c->provider, "bfeb0324-1cee-496f-a409-2ac2b48a6322"))
      prof = c->any == 0x1;
  }
  assert_true(sched && prof);
}

/* The read-back: a group Windows leaves out is a warning naming it, and
 * asked vs applied is kept per session for the health report. */
static void a_lost_group_is_named_and_recorded(void **state)
{
  static struct rig r;
  struct plan_options o;
  const struct collection_kernel_mask *m;
  ULONG drop[8] = { 0, 0x4, 0, 0, 0, 0, 0, 0 }; /* PERF_CONTEXT_SWITCH */
  (void)state;
  plan_options_init(&o);
  o.thread_time = 1;
  fake_advapi32_drop_groups(drop);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  m = collection_kernel_mask_of(&r.c, "etwcapKernel");
  assert_non_null(m);
  assert_int_equal(m->readback, COLLECTION_MASK_READ);
  assert_int_equal(m->asked[1], 0x206);
  assert_int_equal(m->applied[1], 0x202);
  assert_int_equal(m->lost[1], 0x4);
  assert_true(r.c.dropped & COLLECTION_DROPPED_KERNEL_GROUPS);
  assert_non_null(strstr(r.c.warnings[0], "PERF_CONTEXT_SWITCH"));
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  no_violations();
}

/* An OS whose TraceQueryInformation raises instead of returning (Wine 8's
 * stub, docs/building.md §2.2) never takes the capture down: optional_call
 * turns the exception into "no query", recorded as such. */
static void a_query_that_raises_does_not_end_the_capture(void **state)
{
  static struct rig r;
  struct plan_options o;
  (void)state;
  plan_options_init(&o);
  fake_advapi32_query_raises(1);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  assert_int_equal(collection_kernel_mask_of(&r.c, "etwcapKernel")->readback,
                   COLLECTION_MASK_NO_QUERY);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  every_start_stopped();
}

/* The handle StartTraceW gave the kernel session, by the fake's record. */
static uint64_t kernel_handle(void)
{
  size_t i;
  for (i = 0; i < fake_advapi32_call_count(); i++)
    if (fake_advapi32_call(i)->api == FAKE_START_TRACE &&
        !strcmp(fake_advapi32_call(i)->name, "etwcapKernel"))
      return fake_advapi32_call(i)->handle;
  fail_msg("no etwcapKernel was started");
  return 0;
}

/* With `script` on, the group-mask query of a running kernel session
 * fails as UNSUPPORTED with an error text that holds `expected`; with it
 * off again, it answers. */
static void group_mask_query_fails(void (*script)(int on), const char *expected)
{
  static struct rig r;
  struct plan_options o;
  uint32_t mask[PLAN_GROUP_MASK_WORDS];
  uint64_t kernel;
  char text[200];
  plan_options_init(&o);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  kernel = kernel_handle();
  script(1);
  assert_int_equal(r.ctl.ops->query_group_mask(&r.ctl, kernel, mask), ETWCAP_E_UNSUPPORTED);
  controller_error_text(&r.ctl, text, sizeof(text));
  assert_non_null(strstr(text, expected));
  script(0);
  assert_int_equal(r.ctl.ops->query_group_mask(&r.ctl, kernel, mask), 0);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
}

static void answer_16_bytes(int on)
{
  fake_advapi32_group_mask_answer(on ? 16 : 0);
}

/* A group-mask answer shorter than a PERFINFO_GROUPMASK (evntrace.h:
 * "Return Format: PERFINFO_GROUPMASK", 8 ULONGs) is no answer: its missing
 * words would read as groups off. */
static void a_short_group_mask_answer_is_no_answer(void **state)
{
  (void)state;
  group_mask_query_fails(answer_16_bytes,
                         "TraceQueryInformation: answer is not one PERFINFO_GROUPMASK (16)");
}

/* The controller's error names what was raised (docs/win32-contract.md
 * §7.8).  Wine's stubs raise EXCEPTION_WINE_STUB 0x80000100,
 * non-continuable ("Call ... to unimplemented function", docs/building.md
 * §2.2); the fake raises the same. */
static void a_raising_query_reports_the_exception_code(void **state)
{
  (void)state;
  group_mask_query_fails(fake_advapi32_query_raises, "TraceQueryInformation: raised 0x80000100 at ");
}

/* DiagnosticSource, a default provider with arguments. */
static const GUID diagsource_guid = {
  0xadb401e1, 0x5296, 0x51f8, { 0xc1, 0x25, 0x5f, 0xda, 0x75, 0x82, 0x61, 0x44 }
};

/* The EnableTraceEx2 of DiagnosticSource in 'etwcap', or fails. */
static const struct fake_advapi_call *diagsource_enable(void)
{
  size_t i;
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_ENABLE_TRACE_EX2 && !strcmp(c->name, "etwcap") &&
        !memcmp(&c->provider, &diagsource_guid, sizeof(GUID)))
      return c;
  }
  fail_msg("DiagnosticSource was not enabled");
  return NULL;
}

/* The session keyword as TraceEvent's FindFreeSessionKeyword takes it: the
 * enabling sessions' MatchAllKeyword read with EnumerateTraceGuidsEx(
 * TraceGuidQueryInfo) (asked for its size first, as the page allows), and
 * the lowest of 44..47 none holds, in MatchAllKeyword and in the data. */
static void eventsource_keyword_is_the_lowest_free_one(void **state)
{
  static const char head[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\0" "45\0";
  static struct rig r;
  struct plan_options o;
  const struct fake_advapi_call *c;
  size_t i, asked = 0;
  (void)state;
  plan_options_init(&o);
  fake_advapi32_provider_keyword(&diagsource_guid, 1ull << 44);
  fake_advapi32_provider_keyword(&diagsource_guid, (1ull << 46) | 0xFF);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  for (i = 0; i < fake_advapi32_call_count(); i++)
    if (fake_advapi32_call(i)->api == FAKE_ENUMERATE_TRACE_GUIDS_EX &&
        !memcmp(&fake_advapi32_call(i)->provider, &diagsource_guid, sizeof(GUID)))
      asked++;
  assert_int_equal(asked, 2); /* the size, then the list */
  c = diagsource_enable();
  assert_int_equal(c->all, 1ull << 45);
  assert_int_equal(c->filters[0].type, 0);
  assert_memory_equal(c->filters[0].data, head, sizeof(head) - 1);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  no_violations();
}

/* A capture whose DiagnosticSource enable asks for MatchAllKeyword
 * `expected`, with no breach of the contract on the way. */
static void diagsource_keyword_is(ULONGLONG expected)
{
  static struct rig r;
  struct plan_options o;
  plan_options_init(&o);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  assert_int_equal(diagsource_enable()->all, expected);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  no_violations();
}

/* An EventSource runs in two processes, so the answer holds two provider
 * instances chained by NextOffset (evntrace.h, TraceGuidQueryInfo: "a GUID
 * with two provider registrations"); bit 44 is held by an enable only the
 * second registration sees, 45 by one both see: 46 is the free one. */
static void eventsource_keyword_held_in_a_second_instance_is_seen(void **state)
{
  (void)state;
  fake_advapi32_provider_registered(&diagsource_guid, 2);
  fake_advapi32_provider_keyword_in(&diagsource_guid, 1ull << 44, 2);
  fake_advapi32_provider_keyword(&diagsource_guid, 1ull << 45);
  diagsource_keyword_is(1ull << 46);
}

/* Enabled by another tool but registered by no process: one PRE_ENABLE
 * instance (TRACE_PROVIDER_INSTANCE_INFO) carries its enable. */
static void eventsource_keyword_of_a_pre_enabled_provider_is_seen(void **state)
{
  (void)state;
  fake_advapi32_provider_keyword(&diagsource_guid, 1ull << 44);
  diagsource_keyword_is(1ull << 45);
}

/* Wine's EnumerateTraceGuidsEx raises: the plan's bit 44, and the capture
 * goes on. */
static void eventsource_keyword_query_that_raises_uses_44(void **state)
{
  (void)state;
  fake_advapi32_enumerate_raises(1);
  diagsource_keyword_is(1ull << 44);
  fake_advapi32_enumerate_raises(0);
}

/* Stack caching with both sizes 0 is no breach of the contract
 * (docs/win32-contract.md §7.4): PerfView's working call passes Enabled 1,
 * CacheSize 0, BucketCount 0 (TraceEventSession.cs, TraceStackCachingInfo);
 * only WPR's XML requires sizes. */
static void stack_caching_without_sizes_is_accepted(void **state)
{
  static struct rig r;
  struct plan_options o;
  uint64_t kernel;
  (void)state;
  plan_options_init(&o);
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  kernel = kernel_handle();
  assert_int_equal(r.ctl.ops->set_stack_caching(&r.ctl, kernel, 1, 0, 0), 0);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  no_violations();
}

/* The profile source list as TraceEvent's GetInfo reads it: a first
 * TraceQueryInformation(TraceProfileSourceListInfo) with no buffer for the
 * size, the list, then per source TraceSampledProfileIntervalInfo with a
 * TRACE_PROFILE_INTERVAL (8 bytes) whose Source is filled in.  The values
 * are the model machine's (fake_advapi32_default_sources: KPROFILE_SOURCE
 * ids from wdm.h). */
static void profile_sources_are_read_as_traceevent_reads_them(void **state)
{
  struct controller ctl;
  struct plan_machine_source m[PLAN_MAX_MACHINE_SOURCES];
  size_t count = 0, i, queries = 0;
  (void)state;
  controller_system(&ctl);
  assert_int_equal(ctl.ops->query_profile_sources(&ctl, m, PLAN_MAX_MACHINE_SOURCES, &count), 0);
  assert_int_equal(count, FAKE_ADVAPI_DEFAULT_SOURCES);
  for (i = 0; i < count; i++) {
    assert_string_equal(m[i].name, fake_advapi32_default_sources[i].name);
    assert_int_equal(m[i].id, fake_advapi32_default_sources[i].id);
    assert_int_equal(m[i].interval, fake_advapi32_default_sources[i].interval);
    assert_int_equal(m[i].min_interval, fake_advapi32_default_sources[i].min_interval);
    assert_int_equal(m[i].max_interval, fake_advapi32_default_sources[i].max_interval);
  }
  assert_string_equal(m[5].name, "TotalCycles");
  assert_int_equal(m[5].id, 19);
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api != FAKE_TRACE_QUERY_INFORMATION)
      continue;
    if (queries == 0) {
      assert_int_equal(c->info_class, 7); /* TraceProfileSourceListInfo */
      assert_int_equal(c->info_length, 0);
    } else if (queries >= 2) {
      assert_int_equal(c->info_class, 5); /* TraceSampledProfileIntervalInfo */
      assert_int_equal(c->info_length, 8);
    }
    queries++;
  }
  assert_int_equal(queries, 2 + FAKE_ADVAPI_DEFAULT_SOURCES);
  no_violations();
}

static ULONG ulong_at(const unsigned char *b, size_t i)
{
  return (ULONG)b[4 * i] | (ULONG)b[4 * i + 1] << 8 | (ULONG)b[4 * i + 2] << 16 |
         (ULONG)b[4 * i + 3] << 24;
}

/* A collect with /CpuCounters and /LbrSources: the exact buffers.  Each
 * source's TRACE_PROFILE_INTERVAL {Source, Interval} machine-wide (handle
 * 0) before the kernel StartTraceW; the ULONG array of ids
 * (TraceProfileSourceConfigInfo, class 6) machine-wide too, after them and
 * before the start (TraceEventProfileSources.Set); LBR as
 * TraceEvent: class 20 with one ULONG of filters, then class 21 with the
 * ULONG event ids, same session. */
static void cpu_counters_and_lbr_send_the_documented_buffers(void **state)
{
  static struct rig r;
  static char *counters[] = { (char *)"TotalCycles:20000", (char *)"BranchMispredictions:10000" };
  struct plan_options o;
  uint64_t kernel;
  size_t i, start = 0, intervals = 0, config = 0, lbr_config = 0, lbr_list = 0;
  (void)state;
  plan_options_init(&o);
  o.cpu_counters = counters;
  o.cpu_counter_count = 2;
  o.lbr_sources = "PmcInterrupt";
  o.lbr_filters = "StackMode,Kernel";
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  kernel = kernel_handle();
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_START_TRACE && !strcmp(c->name, "etwcapKernel"))
      start = i;
    if (c->api != FAKE_TRACE_SET_INFORMATION)
      continue;
    if (c->info_class == 5 && ulong_at(c->info, 0) != 0) {
      assert_int_equal(c->handle, 0);
      assert_int_equal(c->info_length, 8);
      assert_int_equal(ulong_at(c->info, 0), intervals == 0 ? 19 : 11);
      assert_int_equal(ulong_at(c->info, 1), intervals == 0 ? 20000 : 10000);
      assert_int_equal(start, 0); /* before the kernel session starts */
      intervals++;
    } else if (c->info_class == 6) {
      assert_int_equal(c->handle, 0);
      assert_int_equal(intervals, 2);
      assert_int_equal(start, 0); /* before the kernel session starts */
      assert_int_equal(c->info_length, 8);
      assert_int_equal(ulong_at(c->info, 0), 19);
      assert_int_equal(ulong_at(c->info, 1), 11);
      config = i;
    } else if (c->info_class == 20) {
      assert_int_equal(c->handle, kernel);
      assert_int_equal(c->info_length, 4);
      assert_int_equal(ulong_at(c->info, 0), 0x201); /* CallstackEnable | FilterKernel */
      lbr_config = i;
    } else if (c->info_class == 21) {
      assert_int_equal(c->handle, kernel);
      assert_int_equal(c->info_length, 4);
      assert_int_equal(ulong_at(c->info, 0), 0x0F2F); /* LbrSource.PmcInterrupt */
      lbr_list = i;
    }
  }
  assert_int_equal(intervals, 2);
  assert_true(config && start > config && lbr_config > start && lbr_list > lbr_config);
  assert_int_equal(fake_advapi32_source(19)->interval, 20000);
  assert_int_equal(collection_stop(&r.c), 0);
  plan_release(&r.plan);
  no_violations();
}

/* An unknown name at collect time: no interval is set, no session starts. */
static void unknown_cpu_counter_starts_nothing(void **state)
{
  static struct rig r;
  static char *counters[] = { (char *)"LLCMisses:10000" };
  struct plan_options o;
  (void)state;
  plan_options_init(&o);
  o.cpu_counters = counters;
  o.cpu_counter_count = 1;
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), ETWCAP_E_USAGE);
  assert_int_equal(fake_advapi32_running(), 0);
  plan_release(&r.plan);
  no_violations();
}

/* Which exceptions optional_call takes over: only non-continuable ones
 * (Wine's stub: 0x80000100 with EXCEPTION_NONCONTINUABLE), never MSVC's C++
 * exception 0xE06D7363 (raised non-continuable, caught by the callee's own
 * catch; Microsoft, "Exception handling in MSVC" / the 'msc' code) and
 * never a continuable one such as a first-chance access violation
 * 0xC0000005 that the callee may handle with __try. */
static void optional_call_catches_only_what_nothing_continues_from(void **state)
{
  (void)state;
  assert_true(optional_call_catches(0x80000100, EXCEPTION_NONCONTINUABLE));
  assert_false(optional_call_catches(0xE06D7363, EXCEPTION_NONCONTINUABLE));
  assert_false(optional_call_catches(0xC0000005, 0));
  assert_false(optional_call_catches(0x40010006, 0)); /* DBG_PRINTEXCEPTION_C */
}

/* Wine's real advapi32: TraceQueryInformation is not exported (or is a
 * stub that raises); either way the call returns and the process lives on. */
static void the_real_query_under_wine_is_survivable(void **state)
{
  struct controller ctl;
  uint32_t mask[PLAN_GROUP_MASK_WORDS];
  (void)state;
  fake_advapi32_uninstall();
  controller_system(&ctl);
  assert_int_not_equal(ctl.ops->query_group_mask(&ctl, 0x1234, mask), 0);
  fake_advapi32_install(NULL);
}

/* The flush block as PerfView sends it (docs/win32-contract.md §4.4 rule 3;
 * TraceEventSession.cs: SetFileName -> Flush -> GetProperties with the new
 * file name): the session's buffer sizes, FlushTimer and clock; the in-memory
 * ring as INDEPENDENT|FILE_MODE_CIRCULAR with its size (CircularBufferMB) as
 * MaximumFileSize. */
static void in_memory_flush_sends_perfviews_block(void **state)
{
  static struct rig r;
  struct plan_options o;
  size_t i, flushes = 0;
  (void)state;
  plan_options_init(&o);
  o.in_memory = 1;
  o.circular_mb = 100;
  rig_up(&r, &o);
  assert_int_equal(collection_start(&r.c, &r.plan), 0);
  assert_int_equal(collection_stop(&r.c), 0);
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *f = fake_advapi32_call(i);
    if (f->api != FAKE_CONTROL_TRACE || f->control_code != EVENT_TRACE_CONTROL_FLUSH)
      continue;
    flushes++;
    assert_int_equal(f->buffer_size, 64);
    /* The kernel ring is /CircularMB, the user ring /CircularMB + 300
     * (§11 item 9): MaximumFileSize is the ring's size. */
    assert_true(f->maximum_file_size == 100 || f->maximum_file_size == 400);
    assert_int_equal(f->minimum_buffers, f->maximum_file_size * 1024 / 64);
    assert_int_equal(f->flush_timer, 1);
    assert_int_equal(f->client_context, 1);
    assert_true(f->log_file_mode & EVENT_TRACE_FILE_MODE_CIRCULAR);
    assert_false(f->log_file_mode & EVENT_TRACE_BUFFERING_MODE);
    assert_true(f->log_file_mode & 0x08000000); /* INDEPENDENT_SESSION_MODE */
    assert_true(f->file[0]);
  }
  assert_int_equal(flushes, 2); /* X.kernel.etl and X.etl */
  plan_release(&r.plan);
  no_violations();
}

/* A documented rule the fake models (docs/win32-contract.md §1.9).
 * EVENT_TRACE_PROPERTIES: "The maximum buffer size is 16384 (16MB) ... Prior to Windows 8: The
 * maximum buffer size is 1024 (1MB)". */
static void buffer_size_limit_follows_the_windows_version(void **state)
{
  struct plan_session s;
  struct controller ctl;
  uint64_t h;
  (void)state;
  memset(&s, 0, sizeof(s));
  snprintf(s.name, sizeof(s.name), "etwcapBig");
  s.role = PLAN_ROLE_USER;
  s.buffer_size_kb = 16384;
  s.minimum_buffers = 4;
  s.maximum_buffers = 8;
  s.log_file_mode = PLAN_REAL_TIME_MODE;
  s.wnode_flags = PLAN_WNODE_FLAG_TRACED_GUID;
  s.clock_type = 1;
  controller_system(&ctl);
  fake_advapi32_set_os(6, 3, 9600);
  assert_int_equal(ctl.ops->start(&ctl, &s, &h, NULL, 0), 0);
  assert_int_equal(fake_advapi32_violation_count(), 0);
  assert_int_equal(ctl.ops->stop(&ctl, s.name, NULL), 0);
  fake_advapi32_set_os(6, 1, 7601);
  assert_int_equal(ctl.ops->start(&ctl, &s, &h, NULL, 0), 0);
  assert_int_equal(fake_advapi32_violation_count(), 1);
  assert_non_null(strstr(fake_advapi32_violation(0), "BufferSize 16384"));
  assert_int_equal(ctl.ops->stop(&ctl, s.name, NULL), 0);
}

/* ENABLE_TRACE_PARAMETERS: the container bits need Windows containers
 * (build 14393); an older Windows answers ERROR_INVALID_PARAMETER, which the
 * controller reports as a rejected parameter (RANGE), and the plan never
 * asks for them there (plan.c containers_supported). */
static void enable_property_bits_follow_the_windows_version(void **state)
{
  struct plan_session s;
  struct plan_provider p;
  struct controller ctl;
  uint64_t h;
  (void)state;
  memset(&s, 0, sizeof(s));
  snprintf(s.name, sizeof(s.name), "etwcapProps");
  s.role = PLAN_ROLE_USER;
  s.buffer_size_kb = 64;
  s.minimum_buffers = 4;
  s.maximum_buffers = 8;
  s.log_file_mode = PLAN_REAL_TIME_MODE;
  s.wnode_flags = PLAN_WNODE_FLAG_TRACED_GUID;
  s.clock_type = 1;
  memset(&p, 0, sizeof(p));
  snprintf(p.name, sizeof(p.name), "Test");
  p.guid.data1 = 0x12345678;
  p.level = 4;
  p.control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  p.enable_property = PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
  controller_system(&ctl);
  fake_advapi32_set_os(10, 0, 10586);
  assert_int_equal(ctl.ops->start(&ctl, &s, &h, NULL, 0), 0);
  assert_int_equal(ctl.ops->enable_provider(&ctl, h, &p, 2), ETWCAP_E_RANGE);
  fake_advapi32_set_os(10, 0, 14393);
  assert_int_equal(ctl.ops->enable_provider(&ctl, h, &p, 2), 0);
  assert_int_equal(ctl.ops->stop(&ctl, s.name, NULL), 0);
  no_violations();
}

/* --- the commands with scripted Win32 failures -------------------------------- */

struct logbuf {
  char text[32768];
  size_t len;
};

static void capture(void *ctx, enum log_level level, const char *line)
{
  struct logbuf *b = ctx;
  int n = snprintf(b->text + b->len, sizeof(b->text) - b->len, "%s %s\n", log_level_name(level),
                   line);
  if (n > 0 && b->len + (size_t)n < sizeof(b->text))
    b->len += (size_t)n;
}

static struct logbuf captured_log;

/* A command line through the command table, the Win32 controller with the
 * fake behind it, and a virtual clock. */
static int command(const char *const *args)
{
  struct controller ctl;
  struct fake_clock clock;
  struct collection_env env;
  int rc;
  memset(&clock, 0, sizeof(clock));
  controller_system(&ctl);
  fake_env_init(&env, &ctl, &clock);
  memset(&captured_log, 0, sizeof(captured_log));
  log_add_sink(capture, &captured_log, LOG_DEBUG);
  rc = test_run_command(&env, args);
  log_remove_sink(capture, &captured_log);
  return rc;
}

static int logged(const char *text)
{
  return strstr(captured_log.text, text) != NULL;
}

static size_t count_api(enum fake_api api)
{
  size_t i, n = 0;
  for (i = 0; i < fake_advapi32_call_count(); i++)
    if (fake_advapi32_call(i)->api == api)
      n++;
  return n;
}

static void access_denied(void **state)
{
  const char *args[] = { "collect", data_path, "/MaxCollectSec:1", NULL };
  int rc;
  (void)state;
  fake_advapi32_fail(FAKE_START_TRACE, NULL, ERROR_ACCESS_DENIED, -1, 0, 0);
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_ACCES);
  assert_int_equal(etwcap_exit_code(rc), 3);
  assert_true(logged("ERROR_ACCESS_DENIED (5)"));
  assert_true(logged("Run etwcap from an elevated prompt"));
  no_violations();
  every_start_stopped();
}

static void already_exists(void **state)
{
  const char *args[] = { "collect", data_path, "/MaxCollectSec:1", NULL };
  int rc;
  (void)state;
  fake_advapi32_fail(FAKE_START_TRACE, "etwcap", ERROR_ALREADY_EXISTS, -1, 0, 0);
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_SESSION_EXISTS);
  assert_int_equal(etwcap_exit_code(rc), 7);
  assert_true(logged("ERROR_ALREADY_EXISTS (183)"));
  assert_true(logged("'etwcap abort'"));
  no_violations();
  every_start_stopped(); /* the kernel session started before it was stopped again */
}

static void an_earlier_capture_still_running(void **state)
{
  const char *args[] = { "collect", data_path, NULL };
  int rc;
  (void)state;
  fake_advapi32_add_foreign("etwcap");
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_SESSION_EXISTS);
  assert_true(logged("a session named 'etwcap' is already running"));
  assert_int_equal(count_api(FAKE_START_TRACE), 0);
  assert_true(fake_advapi32_is_running("etwcap")); /* not ours to stop */
  no_violations();
}

static void no_system_resources(void **state)
{
  const char *args[] = { "start", data_path, NULL };
  int rc;
  (void)state;
  fake_advapi32_fail(FAKE_START_TRACE, "etwcap", ERROR_NO_SYSTEM_RESOURCES, -1, 0, 0);
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_SESSION_LIMIT);
  assert_int_equal(etwcap_exit_code(rc), 7);
  assert_true(logged("ERROR_NO_SYSTEM_RESOURCES (1450)"));
  assert_true(logged("etwcap listSessions"));
  no_violations();
  every_start_stopped();
}

static void disk_full(void **state)
{
  const char *args[] = { "collect", data_path, NULL };
  int rc;
  (void)state;
  fake_advapi32_fail(FAKE_START_TRACE, "etwcap", ERROR_DISK_FULL, -1, 0, 0);
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_NOSPC);
  assert_int_equal(etwcap_exit_code(rc), 6);
  assert_true(logged("ERROR_DISK_FULL (112)"));
  no_violations();
  every_start_stopped();
}

/* EnableTraceEx2 remarks, "Up to eight trace sessions can enable and receive
 * events from the same manifest-based provider"; the ninth gets
 * ERROR_NO_SYSTEM_RESOURCES (docs/win32-contract.md §5.7, §5.8).  A default
 * provider at that limit (EDR, autologgers) is left out with a warning naming
 * it; the capture goes on. */
static void a_provider_at_its_session_limit_is_left_out(void **state)
{
  const char *args[] = { "collect", data_path, "/MaxCollectSec:1", NULL };
  GUID clr = guid_of("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"); /* Microsoft-Windows-DotNETRuntime */
  size_t i, refused = 0;
  (void)state;
  fake_advapi32_provider_taken(&clr, 8);
  assert_int_equal(command(args), 0);
  assert_true(logged("ERROR_NO_SYSTEM_RESOURCES (1450)"));
  assert_true(logged("already enabled by as many trace sessions"));
  assert_true(logged("is left out of"));
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_ENABLE_TRACE_EX2 && c->result == ERROR_NO_SYSTEM_RESOURCES)
      refused++;
  }
  assert_true(refused >= 1);
  no_violations();
  every_start_stopped();
  {
    int64_t size;
    assert_int_equal(os_file_size(zip_path, &size), 0);
  }
}

static void deliver_ctrl_c(void *ctx, const struct fake_advapi_call *call)
{
  unsigned *seen = ctx;
  if (call->api == FAKE_ENABLE_TRACE_EX2 && ++*seen == 3)
    console_deliver(CONSOLE_CTRL_C); /* what the console handler does */
}

static void ctrl_c_in_the_middle(void **state)
{
  const char *args[] = { "collect", data_path, NULL };
  unsigned seen = 0;
  int rc;
  (void)state;
  fake_advapi32_on_call(deliver_ctrl_c, &seen);
  rc = command(args);
  assert_int_equal(rc, ETWCAP_E_CANCELLED);
  assert_int_equal(etwcap_exit_code(rc), 8);
  assert_true(logged("Ctrl+C while starting the capture"));
  assert_true(count_api(FAKE_ENABLE_TRACE_EX2) >= 3);
  no_violations();
  every_start_stopped();
}

static void abort_leaves_other_tools_alone(void **state)
{
  const char *start[] = { "start", data_path, NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  size_t i;
  (void)state;
  /* The DataFile leads abort to the record, which names the shared "NT
   * Kernel Logger" when Wine plays Windows 7. */
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", data_path);
  assert_int_equal(command(start), 0);
  fake_advapi32_add_foreign("PerfViewSession");
  fake_advapi32_add_foreign("UIforETWSession");
  assert_int_equal(command(abort_), 0);
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_CONTROL_TRACE && c->control_code == EVENT_TRACE_CONTROL_STOP)
      assert_true(_stricmp(c->name, "PerfViewSession") && _stricmp(c->name, "UIforETWSession"));
  }
  assert_true(fake_advapi32_is_running("PerfViewSession"));
  assert_true(fake_advapi32_is_running("UIforETWSession"));
  no_violations();
  every_start_stopped();
}

static void list_sessions_through_query_all_traces(void **state)
{
  const char *list[] = { "listSessions", NULL };
  (void)state;
  fake_advapi32_add_foreign("PerfViewSession");
  assert_int_equal(command(list), 0);
  assert_int_equal(count_api(FAKE_QUERY_ALL_TRACES), 1);
  no_violations();
}

/* --- start and stop in two processes -------------------------------------------- */

/* Runs this test program as etwcap with the fake behind it:
 *   test_controller_win32.exe --etwcap STATE COMMAND ARGS... */
static HANDLE spawn_child(const char *state_file, const char *const *args)
{
  wchar_t exe[MAX_PATH], line[4096];
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  size_t n;
  int i;
  assert_true(GetModuleFileNameW(NULL, exe, MAX_PATH) > 0);
  n = (size_t)swprintf(line, 4096, L"\"%ls\" --etwcap \"", exe);
  {
    wchar_t *w = utf8_to_utf16(state_file);
    n += (size_t)swprintf(line + n, 4096 - n, L"%ls\"", w);
    etwcap_free(w);
  }
  for (i = 0; args[i]; i++) {
    wchar_t *w = utf8_to_utf16(args[i]);
    n += (size_t)swprintf(line + n, 4096 - n, L" \"%ls\"", w);
    etwcap_free(w);
  }
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  assert_true(CreateProcessW(exe, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
  CloseHandle(pi.hThread);
  return pi.hProcess;
}

static int wait_child(HANDLE process)
{
  DWORD code = 99;
  assert_int_equal(WaitForSingleObject(process, 120000), WAIT_OBJECT_0);
  GetExitCodeProcess(process, &code);
  CloseHandle(process);
  return (int)code;
}

static int run_child(const char *state_file, const char *const *args)
{
  return wait_child(spawn_child(state_file, args));
}

static void start_then_stop_in_two_processes(void **state)
{
  const char *start[] = { "start", data_path, NULL };
  const char *stop[] = { "stop", data_path, "/RundownTimeout:10", NULL };
  char state_file[512];
  const char *history;
  int64_t size;
  (void)state;
  test_tmp_path("ctl.state", state_file, sizeof(state_file));
  assert_int_equal(run_child(state_file, start), 0);
  fake_advapi32_install(state_file);
  assert_int_equal(fake_advapi32_running(), 2); /* left running by the first process */
  {
    /* The record names the files as ETW keeps them: absolute. */
    struct session_record r;
    char record[600], why[256];
    snprintf(record, sizeof(record), "%s%s", data_path, SESSION_RECORD_SUFFIX);
    assert_int_equal(session_record_read(record, &r, why, sizeof(why)), 0);
    assert_string_equal(r.mode, "start");
    assert_true(r.data_file[1] == ':' && ends_with(r.data_file, "\\ctl.etl"));
    assert_int_equal(r.session_count, 2);
    assert_true(ends_with(r.sessions[0].file, "\\ctl.kernel.etl"));
    session_record_release(&r);
  }
  assert_int_equal(os_file_size(data_path, &size), 0);
  assert_int_equal(run_child(state_file, stop), 0);
  fake_advapi32_install(state_file);
  assert_int_equal(fake_advapi32_running(), 0); /* stopped by the second */
  assert_int_equal(os_file_size(zip_path, &size), 0);
  history = fake_advapi32_history();
  assert_non_null(history);
  print_message("%s", history);
  assert_non_null(strstr(history, "StartTraceW etwcap "));
  assert_non_null(strstr(history, "ControlTraceW etwcap code=1 class=-1 -> 0"));
  assert_non_null(strstr(history, "StartTraceW etwcapRundown"));
  assert_non_null(strstr(history, "ControlTraceW etwcapRundown code=1 class=-1 -> 0"));
}

static void stop_asks_a_running_collect_to_finish(void **state)
{
  const char *collect[] = { "collect", data_path, "/MaxCollectSec:120", "/RundownTimeout:10",
                            NULL };
  const char *stop[] = { "stop", data_path, NULL };
  char state_file[512], record[600];
  HANDLE collector;
  int64_t size;
  int waited;
  (void)state;
  test_tmp_path("ctl.state", state_file, sizeof(state_file));
  snprintf(record, sizeof(record), "%s%s", data_path, SESSION_RECORD_SUFFIX);
  collector = spawn_child(state_file, collect);
  for (waited = 0; os_file_size(record, &size) != 0 && waited < 600; waited++)
    Sleep(100); /* until the collect has started its sessions */
  assert_int_equal(os_file_size(record, &size), 0);
  /* stop returns once the collect has finished: the zip is there. */
  assert_int_equal(run_child(state_file, stop), 0);
  assert_int_equal(os_file_size(zip_path, &size), 0);
  assert_int_equal(wait_child(collector), 0);
  fake_advapi32_install(state_file);
  assert_int_equal(fake_advapi32_running(), 0);
  assert_non_null(strstr(fake_advapi32_history(), "ControlTraceW etwcapRundown code=1"));
}

/* The child side: this program as etwcap, the fake in advapi32's place. */
static int as_etwcap(int argc, char **argv)
{
  struct cli cli;
  int rc;
  fake_advapi32_install(argv[2]);
  log_add_sink(log_stream_sink, stderr, LOG_INFO);
  rc = cli_parse(&cli, argc - 2, argv + 2);
  if (rc == 0)
    rc = cli.cmd->run(&cli);
  else
    fprintf(stderr, "child: %s\n", cli.error ? cli.error : "parse error");
  cli_release(&cli);
  if (fake_advapi32_violation_count()) {
    size_t i;
    for (i = 0; i < fake_advapi32_violation_count(); i++)
      fprintf(stderr, "contract violation: %s\n", fake_advapi32_violation(i));
    rc = ETWCAP_E_INTERNAL;
  }
  log_remove_all_sinks();
  return etwcap_exit_code(rc);
}

/* --- OS heap tracing -------------------------------------------------------------- */

/* The heap session's StartTraceW, as TraceEvent's StartWindowsHeapSession
 * makes it: the heap provider's GUID, EnableFlags pointing at the
 * extension block, which names the process and the stacked heap events. */
static const struct fake_advapi_call *heap_start(void)
{
  size_t i;
  for (i = 0; i < fake_advapi32_call_count(); i++) {
    const struct fake_advapi_call *c = fake_advapi32_call(i);
    if (c->api == FAKE_START_TRACE && !strcmp(c->name, "etwcapHeap"))
      return c;
  }
  fail_msg("no StartTraceW of etwcapHeap");
  return NULL;
}

static void os_heap_process_starts_traceevents_heap_session(void **state)
{
  const char *start[] = { "start", data_path, "/OSHeapProcess:4242", "/OSHeapMaxMB:64", NULL };
  char datafile_q[600];
  const char *abort_[] = { "abort", datafile_q, NULL };
  const struct fake_advapi_call *c;
  (void)state;
  snprintf(datafile_q, sizeof(datafile_q), "/DataFile:%.500s", data_path);
  assert_int_equal(command(start), 0);
  c = heap_start();
  /* Sequential, never circular; INDEPENDENT_SESSION_MODE as the Windows
   * Wine plays has it (8.1 and later). */
  assert_int_equal(c->log_file_mode & ~0x08000000u, EVENT_TRACE_FILE_MODE_SEQUENTIAL);
  check_session(c, "etwcapHeap", "ctl.userheap.etl", c->log_file_mode, 64, 512);
  assert_true(same_guid(&c->wnode_guid, "222962ab-6180-4b88-a825-346b75f2a24a"));
  assert_int_equal(c->enable_flags >> 16, 0x80FF);
  assert_true(c->heap);
  assert_int_equal(c->heap_pid_count, 1);
  assert_int_equal(c->heap_pids[0], 4242);
  assert_int_equal(c->heap_hook_count, 2);
  assert_int_equal(c->heap_hooks[0], 0x1021);
  assert_int_equal(c->heap_hooks[1], 0x1022);
  assert_true(fake_advapi32_is_running("etwcapHeap"));
  assert_int_equal(command(abort_), 0);
  no_violations();
  every_start_stopped();
}

/* /OSHeapExe through the real registry of Wine's prefix: TracingFlags 1
 * while the capture runs, gone after stop. */
static void os_heap_exe_sets_and_clears_tracing_flags(void **state)
{
  const char *start[] = { "start", data_path, "/OSHeapExe:etwcap-wine-heapy.exe", NULL };
  const char *stop[] = { "stop", data_path, NULL };
  const char *key = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution "
                    "Options\\etwcap-wine-heapy.exe";
  struct registry reg;
  uint32_t flags = 0;
  (void)state;
  registry_system(&reg);
  reg.ops->delete_value(reg.impl, key, "TracingFlags");
  assert_int_equal(command(start), 0);
  assert_int_equal(heap_start()->heap_pids[0], 0); /* the processes of that name */
  assert_int_equal(reg.ops->get_dword(reg.impl, key, "TracingFlags", &flags), 0);
  assert_int_equal(flags, 1);
  assert_int_equal(command(stop), 0);
  assert_int_equal(reg.ops->get_dword(reg.impl, key, "TracingFlags", &flags), ETWCAP_E_NOENT);
  no_violations();
  every_start_stopped();
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    T(runbook_threadtime_circular),
    T(runbook_threadtime_aspnetcore),
    T(runbook_gc_collect_only),
    T(runbooks_with_the_default_sessions),
    T(windows7_uses_the_nt_kernel_logger),
    T(system_logger_refused_is_an_error),
    T(runbook_threadtime_system_providers),
    T(a_lost_group_is_named_and_recorded),
    T(a_switched_kernel_session_gets_its_events_back),
    T(a_query_that_raises_does_not_end_the_capture),
    T(the_real_query_under_wine_is_survivable),
    T(a_raising_query_reports_the_exception_code),
    T(stack_caching_without_sizes_is_accepted),
    T(profile_sources_are_read_as_traceevent_reads_them),
    T(eventsource_keyword_is_the_lowest_free_one),
    T(eventsource_keyword_query_that_raises_uses_44),
    T(eventsource_keyword_held_in_a_second_instance_is_seen),
    T(eventsource_keyword_of_a_pre_enabled_provider_is_seen),
    T(a_short_group_mask_answer_is_no_answer),
    T(cpu_counters_and_lbr_send_the_documented_buffers),
    T(unknown_cpu_counter_starts_nothing),
    T(optional_call_catches_only_what_nothing_continues_from),
    T(in_memory_flush_sends_perfviews_block),
    T(buffer_size_limit_follows_the_windows_version),
    T(enable_property_bits_follow_the_windows_version),
    T(access_denied),
    T(already_exists),
    T(an_earlier_capture_still_running),
    T(no_system_resources),
    T(disk_full),
    T(a_provider_at_its_session_limit_is_left_out),
    T(ctrl_c_in_the_middle),
    T(abort_leaves_other_tools_alone),
    T(list_sessions_through_query_all_traces),
    T(start_then_stop_in_two_processes),
    T(stop_asks_a_running_collect_to_finish),
    T(os_heap_process_starts_traceevents_heap_session),
    T(os_heap_exe_sets_and_clears_tracing_flags),
  };
  if (argc >= 4 && !strcmp(argv[1], "--etwcap"))
    return as_etwcap(argc, argv);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
