/* See report_timeline.h. */
#include "report_timeline.h"

#include <string.h>

/* 10 ms: fine enough for a short trace, doubled as the range grows. */
#define FIRST_WIDTH 100000

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
  t->width *= 2;
}

void report_timeline_add(struct report_timeline *t, int series, int64_t filetime)
{
  int64_t bin;
  if (!t->started) {
    t->started = 1;
    t->width = FIRST_WIDTH;
    /* A quarter of the bins before the first event: file order is only
     * roughly time order. */
    t->origin = filetime - t->width * (REPORT_TIMELINE_BINS / 4);
  }
  /* A FILETIME spans at most 2^63 ticks: the loops end. */
  while (filetime < t->origin && t->width < INT64_MAX / (4 * REPORT_TIMELINE_BINS))
    widen(t, 1);
  while ((filetime - t->origin) / t->width >= REPORT_TIMELINE_BINS &&
         t->width < INT64_MAX / (4 * REPORT_TIMELINE_BINS))
    widen(t, 0);
  bin = (filetime - t->origin) / t->width;
  if (bin < 0)
    bin = 0;
  if (bin >= REPORT_TIMELINE_BINS)
    bin = REPORT_TIMELINE_BINS - 1;
  t->count[series][bin]++;
}
