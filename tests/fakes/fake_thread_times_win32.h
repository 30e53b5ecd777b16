/* A model of GetThreadTimes for the selftest's spin (rules and sources in
 * tests/fakes/README.md, "fake_thread_times"): each call answers the next
 * scripted CPU time (kernel + user, 100 ns), or fails when scripted to. */
#ifndef ETWCAP_FAKE_THREAD_TIMES_WIN32_H
#define ETWCAP_FAKE_THREAD_TIMES_WIN32_H

#include "src/selftest/selftest_os_win32.h"

#include <stdint.h>

#define FAKE_THREAD_TIMES_MAX 4

struct fake_thread_times {
  /* Scripted: the answers in order; a call past them fails. */
  uint64_t cpu_100ns[FAKE_THREAD_TIMES_MAX];
  int fails[FAKE_THREAD_TIMES_MAX]; /* this call fails (ERROR_INVALID_HANDLE) */
  unsigned answers;
  /* Seen. */
  unsigned calls;
};

/* Resets the model and returns it; the function to hand to
 * selftest_os_win32_set_thread_times. */
struct fake_thread_times *fake_thread_times_reset(void);
BOOL WINAPI fake_thread_times(HANDLE thread, LPFILETIME created, LPFILETIME exited,
                              LPFILETIME kernel, LPFILETIME user);

#endif
