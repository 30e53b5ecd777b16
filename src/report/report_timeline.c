/* See report_timeline.h. */
#include "src/report/report_timeline.h"

#include <string.h>

/* 2^17 ticks, 13.1 ms: fine enough for a short trace, doubled as the range
 * grows.  Powers of two make the bin of an event a shift. */
#define FIRST_SHIFT 17
#define MAX_SHIFT 50 /* 2^50 ticks a bin cover any FILETIME below 2^62 */

/* Doubles the bin width.  to_left: the range grows towards earlier times
 * (old bins move to the upper half), else towards later times. */
static void widen(struct report_timeline *t, int to_left)
{
  int s, j;
  const int half = REPORT_TIMELINE_BINS / 2;
  for (s = 0; s < REPORT_TIMELINE_SERIES; s++) {
    uint32_t merged[REPORT_TIMELINE_BINS];
    memset(merged, 0, sizeof(merged));
    for (j = 0; j < half; j++)
      merged[(to_left ? half : 0) + j] = t->count[s][2 * j] + t->count[s][2 * j + 1];
    memcpy(t->count[s], merged, sizeof(merged));
  }
  if (to_left)
    t->origin -= t->width * REPORT_TIMELINE_BINS;
  t->shift++;
  t->width = (int64_t)1 << t->shift;
}

int report_timeline_place(struct report_timeline *t, int64_t filetime)
{
  int64_t bin;
  if (!t->started) {
    t->started = 1;
    t->shift = FIRST_SHIFT;
    t->width = (int64_t)1 << t->shift;
    /* A quarter of the bins before the first event: file order is only
     * roughly time order. */
    t->origin = filetime - t->width * (REPORT_TIMELINE_BINS / 4);
  }
  while (filetime < t->origin && t->shift < MAX_SHIFT)
    widen(t, 1);
  while (((filetime - t->origin) >> t->shift) >= REPORT_TIMELINE_BINS && t->shift < MAX_SHIFT)
    widen(t, 0);
  bin = filetime < t->origin ? 0 : (filetime - t->origin) >> t->shift;
  return bin >= REPORT_TIMELINE_BINS ? REPORT_TIMELINE_BINS - 1 : (int)bin;
}

uint64_t report_timeline_total(const struct report_timeline *t, int series)
{
  uint64_t n = 0;
  int i;
  for (i = 0; i < REPORT_TIMELINE_BINS; i++)
    n += t->count[series][i];
  return n;
}
