/* See segment_retention.h. */
#include "src/capture/segment_retention.h"

#define TICKS_PER_DAY (INT64_C(10000000) * 86400)

size_t retention_doomed(const struct segment *s, size_t n, const struct retention *r,
                        int64_t now, int *doomed)
{
  uint64_t kept_bytes = 0, limit;
  size_t i, count = 0;
  for (i = 0; i < n; i++) {
    int old = r->keep_segments > 0 && n - i > (uint64_t)r->keep_segments;
    int stale = r->keep_days > 0 && now - s[i].closed > r->keep_days * TICKS_PER_DAY;
    doomed[i] = !s[i].fired && (old || stale);
    if (doomed[i])
      count++;
    else
      kept_bytes += s[i].bytes;
  }
  if (r->max_disk_mb <= 0)
    return count;
  limit = (uint64_t)r->max_disk_mb * 1048576u;
  /* Oldest first; never the newest, which the capture has just written. */
  for (i = 0; i + 1 < n && kept_bytes > limit; i++) {
    if (doomed[i] || s[i].fired)
      continue;
    doomed[i] = 1;
    kept_bytes -= s[i].bytes;
    count++;
  }
  return count;
}
