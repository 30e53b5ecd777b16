/* Merging the session files of one collection into one ETL (the job
 * KernelTraceControl's CreateMergedTraceFile does for PerfView).
 *
 * Every input event appears once, in global time order, so each CPU's
 * stream is in time order too; the events are re-packed into per-CPU buffers
 * by the writer.  The output has one logfile header: the earliest StartTime
 * (with its header timestamp), the latest EndTime, events and buffers lost
 * summed, the most CPUs, the RELOG mode bit.  Header-buffer events are not
 * duplicated: the writer makes the logfile-header event and the first
 * input's other header-group events (e.g. hook 0x0050) are kept.
 *
 * Inputs must share a clock: the same clock type, PerfFreq and boot (raw
 * ticks are compared across files, docs/etl.md §5, §7); anything else is
 * refused with a message naming both files.  Memory is bounded: one buffer
 * per CPU per input, and one per CPU for the output. */
#ifndef ETWCAP_ETL_MERGE_H
#define ETWCAP_ETL_MERGE_H

#include "etw/etl/etl_format.h"
#include "etw/etl/etl_writer.h"
#include "etw/event/etw_event.h"
#include "src/base/byte_source.h"
#include "src/base/file_io.h"

#include <stddef.h>
#include <stdint.h>

struct etl_merge_input {
  const char *name;  /* for messages */
  struct byte_source io;  /* borrowed; the caller closes it */
};

/* Called for each event before it is written; may write records of its
 * own first (image identity).  Returns 0 or an ETWCAP_E_* code. */
typedef int (*etl_merge_inject_fn)(void *ctx, const struct etw_event *ev, struct etl_writer *w);
typedef void (*etl_merge_progress_fn)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);

struct etl_merge_options {
  const struct file_io *io;    /* output; NULL = plain files */
  etl_merge_inject_fn inject;  /* NULL = none */
  void *inject_ctx;
  etl_merge_progress_fn progress;
  void *progress_ctx;
};

#define ETL_MERGE_MAX_INPUTS 64

/* What the merge read of each input's header, for the capture manifest. */
struct etl_merge_input_stats {
  uint64_t events; /* header buffers excluded */
  uint32_t events_lost, buffers_lost;
  char logger[ETL_NAME_MAX];
};

struct etl_merge_stats {
  struct etl_merge_input_stats input[ETL_MERGE_MAX_INPUTS];
  struct etl_logfile header; /* the merged header (BuffersWritten and the CPU
                                count are settled only as the file is finished) */
  uint64_t events_in;  /* events read (header-buffer events excluded) */
  uint64_t events_out; /* events written (injected ones included) */
  uint64_t bytes_in;
};

/* Merges `count` (at most ETL_MERGE_MAX_INPUTS) inputs into `out_path`.  On error `why` names the input or
 * the output and what failed, and no output file is left. */
int etl_merge(const struct etl_merge_input *inputs, size_t count, const char *out_path,
              const struct etl_merge_options *options, struct etl_merge_stats *stats, char *why,
              size_t why_size);

#endif
