/* process.h with CreateProcessW: cmd.exe from %SystemRoot%\SysNative (the
 * 64-bit System32 seen from a 32-bit process; absent for a 64-bit one),
 * else System32, as PerfView runs /StopCommand.  The command line is
 * passed as typed after "/c"; the console and environment are inherited. */
#include "compat_win32.h"

#include "process_shell.h"

#include "alloc.h"
#include "error.h"
#include "utf16_win32.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size)
{
  wchar_t root[MAX_PATH], cmd[MAX_PATH + 64], *wline = utf8_to_utf16(line), *full;
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  DWORD n, wait, code = 0;
  size_t len;
  int rc = 0;
  *exit_code = -1;
  if (!wline)
    return ETWCAP_E_NOMEM;
  n = GetEnvironmentVariableW(L"SystemRoot", root, MAX_PATH);
  if (!n || n >= MAX_PATH)
    wcscpy(root, L"C:\\Windows");
  swprintf(cmd, sizeof(cmd) / sizeof(cmd[0]), L"%ls\\SysNative\\cmd.exe", root);
  if (GetFileAttributesW(cmd) == INVALID_FILE_ATTRIBUTES)
    swprintf(cmd, sizeof(cmd) / sizeof(cmd[0]), L"%ls\\System32\\cmd.exe", root);
  len = wcslen(cmd) + wcslen(wline) + 16;
  if (!(full = etwcap_malloc(len * sizeof(wchar_t)))) {
    etwcap_free(wline);
    return ETWCAP_E_NOMEM;
  }
  swprintf(full, len, L"\"%ls\" /c %ls", cmd, wline);
  memset(&si, 0, sizeof(si));
  si.cb = sizeof(si);
  memset(&pi, 0, sizeof(pi));
  if (!CreateProcessW(cmd, full, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
    snprintf(why, why_size, "CreateProcessW: %lu", (unsigned long)GetLastError());
    rc = ETWCAP_E_SYSTEM;
  } else {
    wait = WaitForSingleObject(pi.hProcess, timeout_ms);
    if (wait == WAIT_OBJECT_0 && GetExitCodeProcess(pi.hProcess, &code))
      *exit_code = (int)code;
    else if (wait == WAIT_TIMEOUT)
      rc = ETWCAP_E_TIMEOUT;
    else {
      snprintf(why, why_size, "WaitForSingleObject: %lu", (unsigned long)GetLastError());
      rc = ETWCAP_E_SYSTEM;
    }
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
  }
  etwcap_free(full);
  etwcap_free(wline);
  return rc;
}
