/* Raw event timestamps to UTC FILETIME, from the logfile header's clock
 * (docs/etl.md §5): QPC ticks, system time or CPU cycles.  Uses the exact
 * arithmetic of the golden listings, StartTime - trunc(S*hdr.ts) +
 * trunc(S*ts) in IEEE double, so `etwcap dump` agrees with them to the tick. */
#ifndef ETWCAP_ETL_CLOCK_H
#define ETWCAP_ETL_CLOCK_H

#include "etw/etl/etl_format.h"

#include <stdint.h>

struct etl_clock {
  double scale; /* 100-ns units per raw tick; 0 when the clock is unknown */
  int64_t base; /* StartTime - trunc(scale * header event's raw timestamp) */
};

/* "QPC (performance counter)", "system time", "CPU cycles" or "unknown",
 * for a logfile header's ClockType. */
const char *etl_clock_type_name(uint32_t clock_type);

void etl_clock_init(struct etl_clock *c, const struct etl_logfile *lf);

/* v truncated toward zero (as Python's int()), saturating; NaN gives 0. */
static inline int64_t etl_clock_trunc(double v)
{
  if (!(v == v))
    return 0;
  if (v >= 9.2e18)
    return INT64_MAX;
  if (v <= -9.2e18)
    return INT64_MIN;
  return (int64_t)v;
}

/* The FILETIME of a raw timestamp; it wraps rather than overflows.  Inline:
 * it runs once for every event a reader of times sees. */
static inline int64_t etl_clock_filetime(const struct etl_clock *c, uint64_t raw)
{
  return (int64_t)((uint64_t)c->base + (uint64_t)etl_clock_trunc(c->scale * (double)raw));
}

#endif
