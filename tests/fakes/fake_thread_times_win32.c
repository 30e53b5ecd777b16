/* The model of GetThreadTimes (see fake_thread_times_win32.h). */
#include "tests/fakes/fake_thread_times_win32.h"

#include <string.h>

static struct fake_thread_times tt;

struct fake_thread_times *fake_thread_times_reset(void)
{
  memset(&tt, 0, sizeof(tt));
  return &tt;
}

static void set_time(LPFILETIME f, uint64_t v)
{
  f->dwLowDateTime = (DWORD)v;
  f->dwHighDateTime = (DWORD)(v >> 32);
}

/* GetThreadTimes: nonzero on success, zero on failure with the error in
 * GetLastError; the times are FILETIMEs in 100 ns units.  A thread's CPU
 * time grows by whole clock ticks, so one that has mostly waited may
 * answer 0 with success.  Here all of it is user time. */
BOOL WINAPI fake_thread_times(HANDLE thread, LPFILETIME created, LPFILETIME exited,
                              LPFILETIME kernel, LPFILETIME user)
{
  unsigned i = tt.calls++;
  (void)thread;
  if (i >= tt.answers || tt.fails[i]) {
    SetLastError(ERROR_INVALID_HANDLE);
    return FALSE;
  }
  set_time(created, 0);
  set_time(exited, 0);
  set_time(kernel, 0);
  set_time(user, tt.cpu_100ns[i]);
  return TRUE;
}
