/* The running Windows version from ntdll!RtlGetVersion, looked up at run
 * time (it is always there, but it is not in the import libraries' public
 * headers for user mode), so the answer does not depend on the manifest. */
#include "src/base/os/os_version.h"

#include "src/base/error.h"

#include <windows.h>

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);

int os_windows_version(struct os_version *out)
{
  OSVERSIONINFOW info;
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  rtl_get_version_fn fn;
  if (!ntdll)
    return ETWCAP_E_UNSUPPORTED;
  fn = (rtl_get_version_fn)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion");
  if (!fn)
    return ETWCAP_E_UNSUPPORTED;
  memset(&info, 0, sizeof(info));
  info.dwOSVersionInfoSize = sizeof(info);
  if (fn(&info) != 0)
    return ETWCAP_E_UNSUPPORTED;
  out->major = info.dwMajorVersion;
  out->minor = info.dwMinorVersion;
  out->build = info.dwBuildNumber;
  return 0;
}
