/* See etl_clock.h.  Conversions saturate instead of overflowing, so hostile
 * timestamps give odd dates, never undefined behaviour. */
#include "etl_clock.h"

static int64_t trunc_to_i64(double v)
{
  if (!(v == v)) /* NaN */
    return 0;
  if (v >= 9.2e18)
    return INT64_MAX;
  if (v <= -9.2e18)
    return INT64_MIN;
  return (int64_t)v; /* C truncates toward zero, as Python's int() does */
}

static int64_t add_wrap(int64_t a, int64_t b)
{
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

void etl_clock_init(struct etl_clock *c, const struct etl_logfile *lf)
{
  c->scale = 0.0;
  switch (lf->clock_type) {
  case ETL_CLOCK_QPC:
    if (lf->perf_freq > 0)
      c->scale = 10000000.0 / (double)lf->perf_freq;
    break;
  case ETL_CLOCK_SYSTEM_TIME:
    c->scale = 1.0;
    break;
  case ETL_CLOCK_CPU_CYCLES:
    if (lf->cpu_mhz > 0)
      c->scale = 10.0 / (double)lf->cpu_mhz;
    break;
  }
  c->base = (int64_t)((uint64_t)lf->start_time -
                      (uint64_t)trunc_to_i64(c->scale * (double)lf->header_timestamp));
}

int64_t etl_clock_filetime(const struct etl_clock *c, uint64_t raw)
{
  return add_wrap(c->base, trunc_to_i64(c->scale * (double)raw));
}

const char *etl_clock_type_name(uint32_t clock_type)
{
  switch (clock_type) {
  case ETL_CLOCK_QPC: return "QPC (performance counter)";
  case ETL_CLOCK_SYSTEM_TIME: return "system time";
  case ETL_CLOCK_CPU_CYCLES: return "CPU cycles";
  }
  return "unknown";
}
