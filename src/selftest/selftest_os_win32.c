/* The selftest's workload on Windows (selftest_os.h): a hidden child
 * process of etwcap itself, a .NET child (Windows PowerShell) that stays
 * until the capture ends, a system DLL loaded by full path, two threads
 * handing a token back and forth, and TraceLogging events written with
 * EventWriteTransfer.  The TraceLogging bytes come from selftest_tl.c; here
 * they travel as EVENT_DATA_DESCRIPTORs: [0] the provider traits (Type
 * PROVIDER_METADATA), [1] the event metadata (Type EVENT_METADATA), [2] the
 * payload — the order TraceLoggingProvider.h's TraceLoggingWrite uses. */
#include "src/selftest/selftest_os_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/compat_win32.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"
#include "src/os/own_provider_win32.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

/* A narrow string literal as a wide one, without a %hs conversion. */
#define WIDE2(s) L##s
#define WIDE(s) WIDE2(s)

/* How many names the .NET child's readiness event may try. */
#define SELFTEST_DOTNET_EVENT_NAMES 8u

static thread_times_fn thread_times = GetThreadTimes;

void selftest_os_win32_set_thread_times(thread_times_fn fn)
{
  thread_times = fn ? fn : GetThreadTimes;
}

struct win_ctx {
  HANDLE dotnet;       /* the .NET child, until stop_dotnet */
  struct tl_provider_win32 provider;
};

static int os_fail(char *why, size_t why_size, const char *api, DWORD code)
{
  snprintf(why, why_size, "%s failed (Win32 error %lu)", api, (unsigned long)code);
  return win32_error(code, ETWCAP_E_SYSTEM);
}

static int run_child(void *ctx, uint32_t *pid, int *exit_code, char *why, size_t why_size)
{
  wchar_t exe[MAX_PATH], line[MAX_PATH + 64];
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  DWORD n, code = 0, waited;
  (void)ctx;
  *pid = 0;
  *exit_code = -1;
  n = GetModuleFileNameW(NULL, exe, MAX_PATH);
  if (!n || n >= MAX_PATH)
    return os_fail(why, why_size, "GetModuleFileNameW", GetLastError());
  _snwprintf(line, sizeof(line) / sizeof(line[0]), L"\"%ls\" " WIDE(SELFTEST_CHILD_COMMAND), exe);
  line[sizeof(line) / sizeof(line[0]) - 1] = 0;
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  if (!CreateProcessW(exe, line, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi))
    return os_fail(why, why_size, "CreateProcessW", GetLastError());
  *pid = pi.dwProcessId;
  waited = WaitForSingleObject(pi.hProcess, SELFTEST_CHILD_WAIT_MS);
  if (waited == WAIT_OBJECT_0 && GetExitCodeProcess(pi.hProcess, &code))
    *exit_code = (int)code;
  if (waited != WAIT_OBJECT_0) {
    /* Closing the handle would leave it running: end it, as start_dotnet
     * does with a child that failed. */
    TerminateProcess(pi.hProcess, 1);
    WaitForSingleObject(pi.hProcess, 5000);
  }
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  if (waited != WAIT_OBJECT_0) {
    snprintf(why, why_size, "the child process %lu did not end within %u s",
             (unsigned long)*pid, SELFTEST_CHILD_WAIT_MS / 1000);
    return ETWCAP_E_TIMEOUT;
  }
  return 0;
}

static int exists(const wchar_t *path)
{
  return GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES;
}

/* A new unsignalled event under a name of this process.  CreateEventW
 * also succeeds on an event that exists already (GetLastError then says
 * ERROR_ALREADY_EXISTS: CreateEventW, return value), which may be set
 * already and would pass the readiness wait without the child: such a
 * name is passed over for the next. */
static int create_ready_event(HANDLE *ready, wchar_t *name, size_t name_len, char *why,
                              size_t why_size)
{
  unsigned attempt;
  DWORD err;
  for (attempt = 0; attempt < SELFTEST_DOTNET_EVENT_NAMES; attempt++) {
    _snwprintf(name, name_len, L"Local\\etwcapSelftestDotNet_%lu_%u",
               (unsigned long)GetCurrentProcessId(), attempt);
    name[name_len - 1] = 0;
    if (!(*ready = CreateEventW(NULL, TRUE, FALSE, name)))
      return os_fail(why, why_size, "CreateEventW", GetLastError());
    if ((err = GetLastError()) != ERROR_ALREADY_EXISTS)
      return 0;
    CloseHandle(*ready);
  }
  snprintf(why, why_size, "the %u event names Local\\etwcapSelftestDotNet_%lu_* all exist "
           "already (held by other processes): end them and run the selftest again",
           SELFTEST_DOTNET_EVENT_NAMES, (unsigned long)GetCurrentProcessId());
  *ready = NULL;
  return ETWCAP_E_EXIST;
}

/* Windows PowerShell 5.1, a .NET Framework program that ships with every
 * supported Windows but Nano Server (and may be removed from Server
 * Core); where it is missing, whether a .NET Framework runtime is there
 * (clr.dll of 4.x, mscorwks.dll of 2.0/3.5) decides between "no .NET on
 * this host" and a failure to start one. */
static int start_dotnet(void *ctx, uint32_t *pid, char *what, size_t what_size, char *why,
                        size_t why_size)
{
  static const wchar_t *const runtimes[] = {
    L"\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll",
    L"\\Microsoft.NET\\Framework64\\v2.0.50727\\mscorwks.dll",
  };
  struct win_ctx *w = ctx;
  wchar_t sys[MAX_PATH], win[MAX_PATH], exe[MAX_PATH + 64], line[1024], name[64], rt[MAX_PATH + 64];
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  HANDLE ready;
  DWORD n, waited;
  int signalled, rc;
  size_t i;
  *pid = 0;
  if (what_size)
    what[0] = '\0';
  n = GetSystemDirectoryW(sys, MAX_PATH);
  if (!n || n >= MAX_PATH)
    return os_fail(why, why_size, "GetSystemDirectoryW", GetLastError());
  _snwprintf(exe, sizeof(exe) / sizeof(exe[0]), L"%ls\\WindowsPowerShell\\v1.0\\powershell.exe",
             sys);
  exe[sizeof(exe) / sizeof(exe[0]) - 1] = 0;
  snprintf(what, what_size, "Windows PowerShell");
  if (!exists(exe)) {
    n = GetSystemWindowsDirectoryW(win, MAX_PATH);
    for (i = 0; n && n < MAX_PATH && i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
      _snwprintf(rt, sizeof(rt) / sizeof(rt[0]), L"%ls%ls", win, runtimes[i]);
      rt[sizeof(rt) / sizeof(rt[0]) - 1] = 0;
      if (exists(rt)) {
        snprintf(why, why_size, "this host has the .NET Framework but no Windows PowerShell "
                                "to run as a managed child");
        return ETWCAP_E_UNSUPPORTED;
      }
    }
    snprintf(why, why_size, "no Windows PowerShell and no .NET Framework runtime (clr.dll, "
                            "mscorwks.dll) on this host");
    return ETWCAP_E_NOENT;
  }
  /* The child sets this event from managed code, then sleeps until it is
   * ended: its JIT and loader events are in the capture, and it still
   * runs at the CLR rundown. */
  if ((rc = create_ready_event(&ready, name, sizeof(name) / sizeof(name[0]), why, why_size)) != 0)
    return rc;
  _snwprintf(line, sizeof(line) / sizeof(line[0]),
             L"\"%ls\" -NoProfile -NonInteractive -Command \"$e = "
             L"[System.Threading.EventWaitHandle]::OpenExisting('%ls'); [void]$e.Set(); "
             L"Start-Sleep -Seconds %u\"",
             exe, name, SELFTEST_DOTNET_LIFE_SEC);
  line[sizeof(line) / sizeof(line[0]) - 1] = 0;
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  if (!CreateProcessW(exe, line, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi)) {
    CloseHandle(ready);
    return os_fail(why, why_size, "CreateProcessW", GetLastError());
  }
  CloseHandle(pi.hThread);
  *pid = pi.dwProcessId;
  /* Until the event is set, the child ends, or the wait is over. */
  for (waited = 0; waited < SELFTEST_DOTNET_READY_MS; waited += 100)
    if (WaitForSingleObject(ready, 100) == WAIT_OBJECT_0 ||
        WaitForSingleObject(pi.hProcess, 0) == WAIT_OBJECT_0)
      break;
  signalled = WaitForSingleObject(ready, 0) == WAIT_OBJECT_0;
  CloseHandle(ready);
  if (!signalled) {
    snprintf(why, why_size, "Windows PowerShell (process %lu) %s", (unsigned long)*pid,
             waited < SELFTEST_DOTNET_READY_MS ? "ended before its managed code ran"
                                               : "did not run its managed code in time");
    TerminateProcess(pi.hProcess, 1);
    CloseHandle(pi.hProcess);
    return waited < SELFTEST_DOTNET_READY_MS ? ETWCAP_E_SYSTEM : ETWCAP_E_TIMEOUT;
  }
  w->dotnet = pi.hProcess;
  return 0;
}

static void stop_dotnet(void *ctx)
{
  struct win_ctx *w = ctx;
  if (!w->dotnet)
    return;
  TerminateProcess(w->dotnet, 0);
  WaitForSingleObject(w->dotnet, 5000);
  CloseHandle(w->dotnet);
  w->dotnet = NULL;
}

static int load_dll(void *ctx, char *path, size_t path_size, char *why, size_t why_size)
{
  wchar_t dir[MAX_PATH], full[MAX_PATH + 32];
  char *utf8;
  HMODULE m;
  UINT n = GetSystemDirectoryW(dir, MAX_PATH);
  (void)ctx;
  if (path_size)
    path[0] = '\0';
  if (!n || n >= MAX_PATH)
    return os_fail(why, why_size, "GetSystemDirectoryW", GetLastError());
  _snwprintf(full, sizeof(full) / sizeof(full[0]), L"%ls\\" WIDE(SELFTEST_DLL), dir);
  full[sizeof(full) / sizeof(full[0]) - 1] = 0;
  if ((utf8 = utf16_to_utf8(full)) != NULL) {
    snprintf(path, path_size, "%s", utf8);
    etwcap_free(utf8);
  }
  /* A full path: never a DLL of the same name from the current folder. */
  m = LoadLibraryExW(full, NULL, 0);
  if (!m)
    return os_fail(why, why_size, "LoadLibraryExW", GetLastError());
  FreeLibrary(m);
  return 0;
}

struct ping {
  HANDLE go[2];
  unsigned rounds;
};

static DWORD WINAPI pong(LPVOID arg)
{
  struct ping *p = arg;
  unsigned i;
  for (i = 0; i < p->rounds; i++) {
    if (WaitForSingleObject(p->go[1], 5000) != WAIT_OBJECT_0)
      break;
    SetEvent(p->go[0]);
  }
  return 0;
}

/* Kernel + user time of this thread, in 100 ns: 0 with *out, or -1 when
 * GetThreadTimes failed.  A thread that has mostly waited may have been
 * charged no clock tick yet, so 0 is a real answer, not a failure. */
static int thread_cpu_100ns(uint64_t *out)
{
  FILETIME created, exited, kernel, user;
  if (!thread_times(GetCurrentThread(), &created, &exited, &kernel, &user))
    return -1;
  *out = ((uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime) +
         ((uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime);
  return 0;
}

static int switch_threads(void *ctx, unsigned rounds, unsigned spin_ms,
                          struct selftest_spin *busy)
{
  struct ping p;
  HANDLE t;
  DWORD start;
  uint64_t cpu_before = 0, cpu_after = 0;
  int before_ok;
  unsigned i;
  volatile unsigned long spin = 0;
  int rc = 0;
  (void)ctx;
  p.rounds = rounds;
  p.go[0] = CreateEventW(NULL, FALSE, FALSE, NULL);
  p.go[1] = CreateEventW(NULL, FALSE, FALSE, NULL);
  t = p.go[0] && p.go[1] ? CreateThread(NULL, 0, pong, &p, 0, NULL) : NULL;
  if (!t) {
    rc = ETWCAP_E_SYSTEM;
  } else {
    for (i = 0; i < rounds; i++) {
      SetEvent(p.go[1]);
      if (WaitForSingleObject(p.go[0], 5000) != WAIT_OBJECT_0) {
        rc = ETWCAP_E_TIMEOUT;
        break;
      }
    }
    WaitForSingleObject(t, 5000);
    CloseHandle(t);
  }
  if (p.go[0])
    CloseHandle(p.go[0]);
  if (p.go[1])
    CloseHandle(p.go[1]);
  busy->tid = GetCurrentThreadId();
  before_ok = thread_cpu_100ns(&cpu_before) == 0;
  start = GetTickCount();
  while (GetTickCount() - start < spin_ms)
    spin++;
  busy->cpu_known = before_ok && thread_cpu_100ns(&cpu_after) == 0 && cpu_after >= cpu_before;
  busy->cpu_100ns = busy->cpu_known ? cpu_after - cpu_before : 0;
  return rc;
}

/* Registered as etwcap's own provider is (own_provider_win32.c), traits
 * and all: without EventSetInformation(EventProviderSetTraits) ETW would
 * record the metadata as payload and the own-events check would fail on a
 * sound capture. */
static int tl_register(void *ctx, const struct etw_guid *provider)
{
  struct win_ctx *w = ctx;
  char why[256];
  return tl_provider_win32_open(&w->provider, provider, SELFTEST_TL_PROVIDER, why, sizeof(why));
}

static int tl_write(void *ctx, const struct selftest_tl_event *e)
{
  struct win_ctx *w = ctx;
  char why[256];
  return tl_provider_win32_write(&w->provider, SELFTEST_TL_LEVEL, e->meta, e->meta_len,
                                 e->payload, e->payload_len, why, sizeof(why));
}

static void tl_unregister(void *ctx)
{
  struct win_ctx *w = ctx;
  tl_provider_win32_close(&w->provider);
}

void selftest_os_system(struct selftest_os *os)
{
  static struct win_ctx ctx; /* one workload per process */
  memset(&ctx, 0, sizeof(ctx));
  os->ctx = &ctx;
  os->run_child = run_child;
  os->start_dotnet = start_dotnet;
  os->stop_dotnet = stop_dotnet;
  os->load_dll = load_dll;
  os->switch_threads = switch_threads;
  os->tl_register = tl_register;
  os->tl_write = tl_write;
  os->tl_unregister = tl_unregister;
}
