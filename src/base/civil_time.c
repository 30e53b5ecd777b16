/* See civil_time.h. */
#include "src/base/civil_time.h"

#include <stdio.h>

/* Days since 1970-01-01 to a civil date (proleptic Gregorian), after
 * Howard Hinnant's public-domain algorithm description. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
  int64_t era, yoe, doy, mp;
  z += 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  yoe = z - era * 146097;
  yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
  doy = (z - era * 146097) - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

/* The inverse: days since 1970-01-01 of a civil date (same description). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t filetime_from_civil(const struct civil_time *t)
{
  int64_t days = days_from_civil(t->year, t->month, t->day);
  int64_t secs = days * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
  return FILETIME_UNIX_EPOCH + secs * 10000000 + t->ticks;
}

/* 9999-12-31T23:59:59.9999999Z, .NET's DateTime.MaxValue: the last time
 * PerfView and TraceEvent can show.  A trace's times come from its bytes;
 * one outside 1601..9999 is shown at the nearer end, so the arithmetic
 * below never overflows. */
#define FILETIME_LAST INT64_C(2650467743999999999)

static void split(int64_t filetime, int64_t *y, unsigned *mo, unsigned *d,
                  unsigned *h, unsigned *mi, unsigned *s, int64_t *frac)
{
  int64_t ticks, secs, rem, days, sod;
  if (filetime < 0)
    filetime = 0;
  else if (filetime > FILETIME_LAST)
    filetime = FILETIME_LAST;
  ticks = filetime - FILETIME_UNIX_EPOCH;
  secs = ticks / 10000000;
  rem = ticks % 10000000;
  if (rem < 0) {
    rem += 10000000;
    secs--;
  }
  days = secs / 86400;
  sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days--;
  }
  civil_from_days(days, y, mo, d);
  *h = (unsigned)(sod / 3600);
  *mi = (unsigned)(sod / 60 % 60);
  *s = (unsigned)(sod % 60);
  *frac = rem;
}

void filetime_to_civil(int64_t filetime, struct civil_time *out)
{
  int64_t y, frac;
  split(filetime, &y, &out->month, &out->day, &out->hour, &out->minute, &out->second, &frac);
  out->year = (int)y;
  out->ticks = (unsigned)frac;
}

char *filetime_format_iso7(int64_t filetime, char *buf, size_t size)
{
  int64_t y, frac;
  unsigned mo, d, h, mi, s;
  split(filetime, &y, &mo, &d, &h, &mi, &s, &frac);
  snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02u.%07lldZ", (long long)y, mo, d, h,
           mi, s, (long long)frac);
  return buf;
}

char *os_time_format_utc(int64_t filetime, char *buf, size_t size)
{
  int64_t y, frac;
  unsigned mo, d, h, mi, s;
  split(filetime, &y, &mo, &d, &h, &mi, &s, &frac);
  snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02u.%03lldZ", (long long)y, mo, d, h,
           mi, s, (long long)(frac / 10000));
  return buf;
}
