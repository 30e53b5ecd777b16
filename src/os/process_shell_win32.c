/* process_shell.h with CreateProcessW: cmd.exe from %SystemRoot%\SysNative
 * (the 64-bit System32 seen from a 32-bit process; absent for a 64-bit
 * one), else System32, as PerfView runs /StopCommand and wraps `run`'s
 * commands that are not programs.  Command lines are passed as typed; the
 * console and environment are inherited. */
#include "src/base/os/compat_win32.h"

#include "src/os/process_shell.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

struct process_child {
  HANDLE process;
};

/* A failed call's code as an error, never 0 (a call that failed without
 * setting one is still a failure). */
static int os_failure(DWORD code)
{
  int rc = win32_error(code, ETWCAP_E_SYSTEM);
  return rc ? rc : ETWCAP_E_SYSTEM;
}

static void cmd_exe_path(wchar_t *out, size_t cap)
{
  wchar_t root[MAX_PATH];
  DWORD n = GetEnvironmentVariableW(L"SystemRoot", root, MAX_PATH);
  if (!n || n >= MAX_PATH)
    wcscpy(root, L"C:\\Windows");
  swprintf(out, cap, L"%ls\\SysNative\\cmd.exe", root);
  if (GetFileAttributesW(out) == INVALID_FILE_ATTRIBUTES)
    swprintf(out, cap, L"%ls\\System32\\cmd.exe", root);
}

/* CreateProcessW of `app` (NULL: the first token of `line`, searched as
 * CreateProcessW searches) with the command line `prefix` + `line`.  Its
 * output and errors go to `out` when not NULL (then it gets no console
 * window), else to the console it shares. */
static int spawn_to(const wchar_t *app, const wchar_t *prefix, const char *line, HANDLE out,
                    PROCESS_INFORMATION *pi, char *why, unsigned why_size)
{
  wchar_t *wline = utf8_to_utf16(line), *full;
  STARTUPINFOW si;
  size_t len;
  int rc = 0;
  if (!wline)
    return ETWCAP_E_NOMEM;
  len = wcslen(prefix) + wcslen(wline) + 1;
  if (!(full = etwcap_malloc(len * sizeof(wchar_t)))) {
    etwcap_free(wline);
    return ETWCAP_E_NOMEM;
  }
  swprintf(full, len, L"%ls%ls", prefix, wline);
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  if (out) {
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = si.hStdError = out;
  }
  memset(pi, 0, sizeof(*pi));
  if (!CreateProcessW(app, full, NULL, NULL, out != NULL, out ? CREATE_NO_WINDOW : 0, NULL,
                      NULL, &si, pi)) {
    DWORD code = GetLastError();
    snprintf(why, why_size, "CreateProcessW: %s (%lu)",
             win32_error_name(code) ? win32_error_name(code) : "error", (unsigned long)code);
    rc = os_failure(code);
  }
  etwcap_free(full);
  etwcap_free(wline);
  return rc;
}

static int spawn(const wchar_t *app, const wchar_t *prefix, const char *line,
                 PROCESS_INFORMATION *pi, char *why, unsigned why_size)
{
  return spawn_to(app, prefix, line, NULL, pi, why, why_size);
}

/* Through cmd.exe: `"CMD" /c LINE`, or `"CMD" /c call LINE` for run. */
static int spawn_shell(int call, const char *line, PROCESS_INFORMATION *pi, char *why,
                       unsigned why_size)
{
  wchar_t cmd[MAX_PATH + 64], prefix[MAX_PATH + 96];
  cmd_exe_path(cmd, sizeof(cmd) / sizeof(cmd[0]));
  swprintf(prefix, sizeof(prefix) / sizeof(prefix[0]),
           call ? L"\"%ls\" /c call " : L"\"%ls\" /c ", cmd);
  return spawn(cmd, prefix, line, pi, why, why_size);
}

/* Waits for the process `pi` started, then closes its handles. */
static int wait_exit(PROCESS_INFORMATION *pi, unsigned timeout_ms, int *exit_code, char *why,
                     unsigned why_size)
{
  DWORD wait, code = 0;
  int rc = 0;
  wait = WaitForSingleObject(pi->hProcess, timeout_ms);
  if (wait == WAIT_OBJECT_0 && GetExitCodeProcess(pi->hProcess, &code)) {
    *exit_code = (int)code;
  } else if (wait == WAIT_TIMEOUT) {
    rc = ETWCAP_E_TIMEOUT;
  } else {
    code = GetLastError();
    snprintf(why, why_size, "WaitForSingleObject: %lu", (unsigned long)code);
    rc = os_failure(code);
  }
  CloseHandle(pi->hThread);
  CloseHandle(pi->hProcess);
  return rc;
}

int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size)
{
  PROCESS_INFORMATION pi;
  int rc;
  *exit_code = -1;
  rc = spawn_shell(0, line, &pi, why, why_size);
  return rc ? rc : wait_exit(&pi, timeout_ms, exit_code, why, why_size);
}

/* "C:\Windows\System32\NAME.exe" (quoted, with a space after) in `prefix`
 * and the bare path in `app`. */
static int system_tool_path(const char *name, wchar_t *app, size_t app_cap, wchar_t *prefix,
                            size_t prefix_cap, char *why, unsigned why_size)
{
  wchar_t dir[MAX_PATH], *wname;
  UINT n = GetSystemDirectoryW(dir, MAX_PATH);
  if (!n || n >= MAX_PATH) {
    DWORD code = GetLastError();
    snprintf(why, why_size, "GetSystemDirectoryW: %lu", (unsigned long)code);
    return os_failure(code);
  }
  if (!(wname = utf8_to_utf16(name)))
    return ETWCAP_E_NOMEM;
  swprintf(app, app_cap, L"%ls\\%ls.exe", dir, wname);
  etwcap_free(wname);
  swprintf(prefix, prefix_cap, L"\"%ls\" ", app);
  return 0;
}

int process_run_system_tool(const char *name, const char *args, unsigned timeout_ms,
                            int *exit_code, char *why, unsigned why_size)
{
  wchar_t app[MAX_PATH + 64], prefix[MAX_PATH + 96];
  PROCESS_INFORMATION pi;
  int rc;
  *exit_code = -1;
  rc = system_tool_path(name, app, sizeof(app) / sizeof(app[0]), prefix,
                        sizeof(prefix) / sizeof(prefix[0]), why, why_size);
  if (!rc)
    rc = spawn(app, prefix, args, &pi, why, why_size);
  return rc ? rc : wait_exit(&pi, timeout_ms, exit_code, why, why_size);
}

int process_run_program(const char *app, const char *args, unsigned timeout_ms, int *exit_code,
                        char *why, unsigned why_size)
{
  wchar_t *wapp = utf8_to_utf16(app), *prefix;
  PROCESS_INFORMATION pi;
  size_t len;
  int rc;
  *exit_code = -1;
  if (!wapp)
    return ETWCAP_E_NOMEM;
  len = wcslen(wapp) + 4;
  if (GetFileAttributesW(wapp) == INVALID_FILE_ATTRIBUTES) {
    snprintf(why, why_size, "%s does not exist", app);
    etwcap_free(wapp);
    return ETWCAP_E_NOENT;
  }
  if (!(prefix = etwcap_malloc(len * sizeof(wchar_t)))) {
    etwcap_free(wapp);
    return ETWCAP_E_NOMEM;
  }
  swprintf(prefix, len, L"\"%ls\" ", wapp);
  rc = spawn(wapp, prefix, args, &pi, why, why_size);
  etwcap_free(prefix);
  etwcap_free(wapp);
  return rc ? rc : wait_exit(&pi, timeout_ms, exit_code, why, why_size);
}

/* A new, empty file in the temporary folder that the child inherits as its
 * output and that goes away with the last handle: CREATE_NEW under a name
 * of our own, so it is never a file (or link) someone planted there. */
static HANDLE output_file(char *why, unsigned why_size)
{
  SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
  wchar_t dir[MAX_PATH], path[MAX_PATH + 64];
  DWORD n = GetTempPathW(MAX_PATH, dir), code = 0;
  unsigned attempt;
  if (!n || n >= MAX_PATH) {
    snprintf(why, why_size, "GetTempPathW: %lu", (unsigned long)GetLastError());
    return INVALID_HANDLE_VALUE;
  }
  for (attempt = 0; attempt < 16; attempt++) {
    HANDLE h;
    swprintf(path, sizeof(path) / sizeof(path[0]), L"%lsetwcap-tool-%lu-%lu-%u.txt", dir,
             (unsigned long)GetCurrentProcessId(), (unsigned long)GetTickCount(), attempt);
    h = CreateFileW(path, GENERIC_READ | GENERIC_WRITE,
                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa, CREATE_NEW,
                    FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (h != INVALID_HANDLE_VALUE)
      return h;
    if ((code = GetLastError()) != ERROR_FILE_EXISTS)
      break;
  }
  snprintf(why, why_size, "CreateFileW (the tool's output in %ls): %lu", dir,
           (unsigned long)code);
  return INVALID_HANDLE_VALUE;
}

/* What the child wrote to `h` (which it shares: rewind first). */
static void read_output(HANDLE h, char *output, size_t output_size)
{
  LARGE_INTEGER zero;
  DWORD got = 0;
  zero.QuadPart = 0;
  output[0] = '\0';
  if (output_size < 2 || !SetFilePointerEx(h, zero, NULL, FILE_BEGIN))
    return;
  if (!ReadFile(h, output, (DWORD)(output_size - 1 > 0x7FFFFFFF ? 0x7FFFFFFF : output_size - 1),
                &got, NULL))
    got = 0;
  output[got] = '\0';
}

int process_run_system_tool_output(const char *name, const char *args, unsigned timeout_ms,
                                   int *exit_code, char *output, size_t output_size, char *why,
                                   unsigned why_size)
{
  wchar_t app[MAX_PATH + 64], prefix[MAX_PATH + 96];
  PROCESS_INFORMATION pi;
  HANDLE out;
  int rc;
  *exit_code = -1;
  if (output_size)
    output[0] = '\0';
  rc = system_tool_path(name, app, sizeof(app) / sizeof(app[0]), prefix,
                        sizeof(prefix) / sizeof(prefix[0]), why, why_size);
  if (rc)
    return rc;
  if ((out = output_file(why, why_size)) == INVALID_HANDLE_VALUE)
    return ETWCAP_E_IO;
  rc = spawn_to(app, prefix, args, out, &pi, why, why_size);
  if (!rc)
    rc = wait_exit(&pi, timeout_ms, exit_code, why, why_size);
  if (!rc)
    read_output(out, output, output_size);
  CloseHandle(out);
  return rc;
}

/* Does `line` start with a program (*.exe, quoted or not) and hold no
 * redirection?  Then it runs as it is; anything else goes through cmd. */
static int names_a_program(const char *line)
{
  const char *end;
  char first[MAX_PATH];
  if (strpbrk(line, "<>&"))
    return 0;
  if (*line == '"') {
    end = strchr(line + 1, '"');
    if (!end)
      return 0;
    snprintf(first, sizeof(first), "%.*s", (int)(end - line - 1), line + 1);
  } else {
    end = strchr(line, ' ');
    snprintf(first, sizeof(first), "%.*s", end ? (int)(end - line) : (int)strlen(line), line);
  }
  return str_ends_with_case(first, ".exe");
}

int process_child_start(const char *line, struct process_child **out, char *why,
                        unsigned why_size)
{
  PROCESS_INFORMATION pi;
  int rc = names_a_program(line) ? spawn(NULL, L"", line, &pi, why, why_size)
                                 : spawn_shell(1, line, &pi, why, why_size);
  *out = NULL;
  if (rc)
    return rc;
  CloseHandle(pi.hThread);
  if (!(*out = etwcap_malloc(sizeof(**out)))) {
    TerminateProcess(pi.hProcess, 1);
    CloseHandle(pi.hProcess);
    return ETWCAP_E_NOMEM;
  }
  (*out)->process = pi.hProcess;
  return 0;
}

int process_child_exited(struct process_child *c, int *exit_code)
{
  DWORD code;
  DWORD wait = WaitForSingleObject(c->process, 0);
  if (wait == WAIT_TIMEOUT)
    return 0;
  if (wait != WAIT_OBJECT_0 || !GetExitCodeProcess(c->process, &code))
    return os_failure(GetLastError());
  *exit_code = (int)code;
  return 1;
}

void process_child_close(struct process_child *c, int kill)
{
  if (!c)
    return;
  if (kill && WaitForSingleObject(c->process, 0) == WAIT_TIMEOUT)
    TerminateProcess(c->process, 1);
  CloseHandle(c->process);
  etwcap_free(c);
}
