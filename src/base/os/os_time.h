/* The clock seam: time services the core needs from the OS.  Implemented by
 * os_time_posix.c and os_time_win32.c (chosen by CMake); the calendar
 * arithmetic on FILETIMEs is in src/base/civil_time.h. */
#ifndef ETWCAP_OS_TIME_H
#define ETWCAP_OS_TIME_H

#include <stddef.h>
#include <stdint.h>

/* 100-ns intervals since 1601-01-01 UTC (a Windows FILETIME). */
int64_t os_time_now_utc_filetime(void);
/* A monotonic clock in nanoseconds, for durations and progress rates. */
uint64_t os_time_monotonic_ns(void);
void os_time_sleep_ms(unsigned ms);

#define FILETIME_UNIX_EPOCH INT64_C(116444736000000000)

#endif
