/* FILETIME (100-ns intervals since 1601-01-01 UTC) to and from the UTC
 * calendar and ISO 8601 text: pure arithmetic, the same on every OS (no
 * gmtime, which is limited to time_t's range and differs between C
 * libraries).  civil_time.c implements it. */
#ifndef ETWCAP_CIVIL_TIME_H
#define ETWCAP_CIVIL_TIME_H

#include "src/base/os/os_time.h"

#include <stddef.h>
#include <stdint.h>

/* "YYYY-MM-DDTHH:MM:SS.fffZ" (milliseconds).  Returns buf. */
char *os_time_format_utc(int64_t filetime, char *buf, size_t size);
/* "YYYY-MM-DDTHH:MM:SS.fffffffZ" (all seven FILETIME digits). */
char *filetime_format_iso7(int64_t filetime, char *buf, size_t size);

/* The UTC calendar fields of a FILETIME. */
struct civil_time {
  int year;
  unsigned month, day, hour, minute, second; /* month 1..12, day 1..31 */
  unsigned ticks;                            /* 100-ns units within the second */
};
void filetime_to_civil(int64_t filetime, struct civil_time *out);
/* The FILETIME of UTC calendar fields (the inverse). */
int64_t filetime_from_civil(const struct civil_time *t);

#endif
