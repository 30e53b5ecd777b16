/* See etl_clock.h.  Conversions saturate instead of overflowing, so hostile
 * timestamps give odd dates, never undefined behaviour. */
#include "etw/etl/etl_clock.h"

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
                      (uint64_t)etl_clock_trunc(c->scale * (double)lf->header_timestamp));
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
