/* os_time.h on POSIX systems. */
#define _POSIX_C_SOURCE 200809L
#include "src/base/os/os_time.h"

#include <errno.h>
#include <time.h>

int64_t os_time_now_utc_filetime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return FILETIME_UNIX_EPOCH + (int64_t)ts.tv_sec * 10000000 + ts.tv_nsec / 100;
}

uint64_t os_time_monotonic_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void os_time_sleep_ms(unsigned ms)
{
  struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}
