/* Which segments of a rotating capture to delete (/KeepSegments,
 * /KeepDays, /MaxDiskMB).  A pure function of the list and the time, so the
 * limits are tested over simulated days without a disk or a clock.
 *
 * The rules, in order:
 *  - a segment that holds a trigger fire is never deleted: it is what the
 *    week-long capture waited for;
 *  - /KeepSegments:K keeps the newest K segments, fired or not, and
 *    deletes the older unfired ones;
 *  - /KeepDays:D deletes unfired segments that closed more than D days ago;
 *  - /MaxDiskMB:M deletes the oldest unfired segments until the rest hold
 *    at most M MB; the newest segment is kept even when alone it is more.
 * A limit of 0 is no limit. */
#ifndef ETWCAP_SEGMENT_RETENTION_H
#define ETWCAP_SEGMENT_RETENTION_H

#include <stddef.h>
#include <stdint.h>

struct segment {
  int64_t closed; /* FILETIME the segment ended */
  uint64_t bytes; /* its .etl.zip on disk */
  int fired;      /* its manifest names a trigger fire */
};

struct retention {
  int64_t keep_segments; /* 0: no limit */
  int64_t keep_days;
  int64_t max_disk_mb;
};

/* Sets doomed[i] for each segment to delete; `s` is sorted oldest first.
 * Returns how many. */
size_t retention_doomed(const struct segment *s, size_t n, const struct retention *r,
                        int64_t now, int *doomed);

#endif
