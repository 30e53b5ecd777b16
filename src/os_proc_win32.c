/* os_proc.h on Windows. */
#include <windows.h>
#include <shellapi.h>

#include "os_proc.h"

#include "alloc.h"
#include "error.h"
#include "utf16_win32.h"

#include <stdio.h>

int os_get_utf8_argv(int *argc, char ***argv)
{
  int n, i;
  wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
  char **out;
  if (!wargv)
    return ETWCAP_E_SYSTEM;
  out = etwcap_calloc((size_t)n + 1, sizeof(char *));
  if (!out) {
    LocalFree(wargv);
    return ETWCAP_E_NOMEM;
  }
  for (i = 0; i < n; i++) {
    out[i] = utf16_to_utf8(wargv[i]);
    if (!out[i]) {
      LocalFree(wargv);
      os_free_utf8_argv(i, out);
      return ETWCAP_E_NOMEM;
    }
  }
  LocalFree(wargv);
  *argc = n;
  *argv = out;
  return 0;
}

void os_free_utf8_argv(int argc, char **argv)
{
  int i;
  for (i = 0; i < argc; i++)
    etwcap_free(argv[i]);
  etwcap_free(argv);
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
