/* Time services the core needs from the OS, plus pure FILETIME formatting.
 * Implemented by os_time_posix.c and os_time_win32.c (chosen by CMake). */
#ifndef ETWCAP_OS_TIME_H
#define ETWCAP_OS_TIME_H

#include <stddef.h>
#include <stdint.h>

/* 100-ns intervals since 1601-01-01 UTC (a Windows FILETIME). */
int64_t os_time_now_utc_filetime(void);
/* A monotonic clock in nanoseconds, for durations and progress rates. */
uint64_t os_time_monotonic_ns(void);
void os_time_sleep_ms(unsigned ms);

/* Pure: "YYYY-MM-DDTHH:MM:SS.fffZ" (milliseconds).  Returns buf. */
char *os_time_format_utc(int64_t filetime, char *buf, size_t size);
/* Pure: "YYYY-MM-DDTHH:MM:SS.fffffffZ" (all seven FILETIME digits). */
char *filetime_format_iso7(int64_t filetime, char *buf, size_t size);

/* Pure: the UTC calendar fields of a FILETIME. */
struct civil_time {
  int year;
  unsigned month, day, hour, minute, second; /* month 1..12, day 1..31 */
  unsigned ticks;                            /* 100-ns units within the second */
};
void filetime_to_civil(int64_t filetime, struct civil_time *out);
/* Pure: the FILETIME of UTC calendar fields (the inverse). */
int64_t filetime_from_civil(const struct civil_time *t);

#define FILETIME_UNIX_EPOCH INT64_C(116444736000000000)

#endif
