/* session_record.h's process checks on Windows: a pid and its creation
 * time (GetProcessTimes) name one process, even after the pid is reused. */
#include "src/base/os/compat_win32.h" /* windows.h without its provider_entry clash */

#include "src/capture/session_record.h"

static int64_t filetime_of(const FILETIME *ft)
{
  return (int64_t)(((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime);
}

static int created_at(HANDLE h, int64_t *created)
{
  FILETIME c, e, k, u;
  if (!GetProcessTimes(h, &c, &e, &k, &u))
    return 0;
  *created = filetime_of(&c);
  return 1;
}

void session_record_self(unsigned long *pid, int64_t *created)
{
  *pid = GetCurrentProcessId();
  if (!created_at(GetCurrentProcess(), created))
    *created = 0;
}

int session_record_owner_alive(unsigned long pid, int64_t created)
{
  HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
  DWORD code = 0;
  int64_t when = 0;
  int alive;
  if (!h) {
    /* Access denied means it exists (another user's process). */
    return GetLastError() == ERROR_ACCESS_DENIED;
  }
  alive = GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
  if (alive && created && created_at(h, &when) && when != created)
    alive = 0;
  CloseHandle(h);
  return alive;
}
