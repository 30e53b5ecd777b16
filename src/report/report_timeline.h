/* Event rates over time for `etwcap report`'s timeline, in one pass over
 * events that come in file order (not time order) and whose time range is
 * not known in advance: a fixed number of bins whose width doubles, growing
 * the covered range to the left or right, whenever an event falls outside
 * it.  Memory is fixed: REPORT_TIMELINE_SERIES series of
 * REPORT_TIMELINE_BINS counters. */
#ifndef ETWCAP_REPORT_TIMELINE_H
#define ETWCAP_REPORT_TIMELINE_H

#include <stdint.h>

#define REPORT_TIMELINE_BINS 256
/* Series 0..REPORT_TIMELINE_PROVIDERS-1 follow the first providers the
 * summary numbers (its rows, before sorting); then the fixed series. */
#define REPORT_TIMELINE_PROVIDERS 64
enum report_series {
  REPORT_SERIES_ALL = REPORT_TIMELINE_PROVIDERS,
  REPORT_SERIES_CSWITCH,
  REPORT_SERIES_CPU_SAMPLES,
  REPORT_SERIES_EXCEPTIONS,
  REPORT_SERIES_GCS,
  REPORT_TIMELINE_SERIES
};

struct report_timeline {
  int started;
  int64_t origin; /* FILETIME of bin 0's start */
  int64_t width;  /* 100-ns ticks per bin: 1 << shift */
  unsigned shift;
  uint32_t count[REPORT_TIMELINE_SERIES][REPORT_TIMELINE_BINS];
};

/* The bin of `filetime` (100-ns units, 0 <= filetime < 2^62), widening the
 * bins first when it falls outside: report_timeline_bin's slow path. */
int report_timeline_place(struct report_timeline *t, int64_t filetime);

/* The same, inline for the times that fall inside (all but a few dozen of
 * a trace's events).  Every event's time goes through it once; then
 * count[series][bin]++ for each series it belongs to. */
static inline int report_timeline_bin(struct report_timeline *t, int64_t filetime)
{
  if (t->started && filetime >= t->origin &&
      ((filetime - t->origin) >> t->shift) < REPORT_TIMELINE_BINS)
    return (int)((filetime - t->origin) >> t->shift);
  return report_timeline_place(t, filetime);
}

/* The count of one series over every bin. */
uint64_t report_timeline_total(const struct report_timeline *t, int series);

#endif
