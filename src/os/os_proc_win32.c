/* os_proc.h on Windows. */
#include <windows.h>

#include "src/os/os_proc.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/cli/cmdline_windows.h"

#include <stdio.h>
#include <string.h>

void os_process_setup(void)
{
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
}

int os_get_utf8_argv(int *argc, char ***argv)
{
  struct token_list args = { NULL, 0 };
  char *cmdline = utf16_to_utf8(GetCommandLineW());
  int rc;
  if (!cmdline)
    return ETWCAP_E_NOMEM;
  rc = cmdline_split_windows(&args, cmdline);
  etwcap_free(cmdline);
  if (rc) {
    token_list_release(&args);
    return rc;
  }
  *argc = (int)args.count;
  *argv = args.items; /* released by os_free_utf8_argv */
  return 0;
}

void os_free_utf8_argv(int argc, char **argv)
{
  struct token_list args = { argv, (size_t)argc };
  token_list_release(&args);
}

int os_is_elevated(void)
{
  HANDLE token;
  TOKEN_ELEVATION elevation;
  DWORD size = sizeof(elevation);
  int elevated = 0;
  if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
    if (GetTokenInformation(token, TokenElevation, &elevation, size, &size))
      elevated = elevation.TokenIsElevated != 0;
    CloseHandle(token);
  }
  return elevated;
}

int os_is_windows(void)
{
  return 1;
}

/* RtlGetVersion reports the real version; GetVersionEx lies to processes
 * without a compatibility manifest. */
typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);

const char *os_describe(char *buf, unsigned size)
{
  OSVERSIONINFOW v = { sizeof(v) };
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  rtl_get_version_fn fn =
      ntdll ? (rtl_get_version_fn)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion") : NULL;
  if (fn && fn(&v) == 0)
    snprintf(buf, size, "Windows %lu.%lu build %lu", (unsigned long)v.dwMajorVersion,
             (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
  else
    snprintf(buf, size, "Windows");
  return buf;
}

const char *os_hostname(char *buf, unsigned size)
{
  wchar_t name[256];
  DWORD n = sizeof(name) / sizeof(name[0]);
  char *utf8;
  if (GetComputerNameExW(ComputerNameDnsHostname, name, &n) && (utf8 = utf16_to_utf8(name))) {
    snprintf(buf, size, "%s", utf8);
    etwcap_free(utf8);
  } else {
    snprintf(buf, size, "unknown");
  }
  return buf;
}

int os_stderr_is_terminal(void)
{
  DWORD mode;
  /* A console handle answers GetConsoleMode; a pipe or file does not. */
  return GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode) != 0;
}

/* A path Windows gave as UTF-16 into buf as UTF-8. */
static int path_to_utf8(const wchar_t *w, char *buf, unsigned size)
{
  char *u = utf16_to_utf8(w);
  if (!u)
    return ETWCAP_E_NOMEM;
  snprintf(buf, size, "%s", u);
  etwcap_free(u);
  return strlen(buf) + 1 < size ? 0 : ETWCAP_E_RANGE;
}

int os_exe_path(char *buf, unsigned size)
{
  wchar_t w[32768];
  DWORD n = GetModuleFileNameW(NULL, w, sizeof(w) / sizeof(w[0]));
  if (!n || n >= sizeof(w) / sizeof(w[0]))
    return ETWCAP_E_SYSTEM;
  return path_to_utf8(w, buf, size);
}

int os_current_dir(char *buf, unsigned size)
{
  wchar_t w[32768];
  DWORD n = GetCurrentDirectoryW(sizeof(w) / sizeof(w[0]), w);
  if (!n || n >= sizeof(w) / sizeof(w[0]))
    return ETWCAP_E_SYSTEM;
  return path_to_utf8(w, buf, size);
}
