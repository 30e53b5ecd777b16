/* Events of one ETL in global time order: buffers are grouped per CPU and
 * sorted by their SequenceNumber (so a circular file that wrapped comes out
 * oldest first), then a k-way merge on each CPU's next event timestamp
 * (docs/etl.md §7).  Ties go to the lower CPU; within a CPU file order is
 * kept.  A MESSAGE event without a timestamp sorts with the event before it
 * on its CPU.
 *
 * Memory: one buffer per CPU stream plus a small index of buffer headers.
 * A file whose compressed buffers would expand to far more than the file
 * could hold (more than 32 times its size, beyond 128 MiB) is refused as
 * ETWCAP_E_CORRUPT before any buffer is loaded.
 * Lifetime: the iterator borrows the reader; an event it returns is valid
 * until the next etl_timeorder_next call (see etw_event.h).  Errors are
 * reported through etl_reader_error of the reader. */
#ifndef ETWCAP_ETL_TIMEORDER_H
#define ETWCAP_ETL_TIMEORDER_H

#include "etw/etl/etl_reader.h"

struct etl_timeorder;

/* Scans the buffer headers of r (without decoding events).  On failure
 * *out is NULL and the reader's error message says why: ETWCAP_E_CORRUPT
 * also for a logfile header's BufferSize above ETL_MAX_BUFFER_SIZE. */
int etl_timeorder_open(struct etl_timeorder **out, struct etl_reader *r);
/* 1 with *ev filled, 0 at the end, < 0 on error. */
int etl_timeorder_next(struct etl_timeorder *t, struct etw_event *ev);
void etl_timeorder_free(struct etl_timeorder *t);

#endif
