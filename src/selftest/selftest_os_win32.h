/* The one Win32 call of the selftest's workload (selftest_os_win32.c) that
 * a unit test replaces: GetThreadTimes, whose answer for a thread that has
 * not been charged a clock tick is a real 0.  Only *_win32.c files include
 * this header. */
#ifndef ETWCAP_SELFTEST_OS_WIN32_H
#define ETWCAP_SELFTEST_OS_WIN32_H

#include "src/base/os/compat_win32.h"

#include "src/selftest/selftest_os.h"

typedef BOOL(WINAPI *thread_times_fn)(HANDLE thread, LPFILETIME created, LPFILETIME exited,
                                      LPFILETIME kernel, LPFILETIME user);

/* Replaces GetThreadTimes for the workload's spin; NULL puts it back.  For
 * tests: the product never calls it. */
void selftest_os_win32_set_thread_times(thread_times_fn fn);

#endif
