/* The ETL writer: lays events out as Windows does (docs/etl.md §1-§3, §8).
 *
 * Buffer 0 is the header buffer: the logfile-header event (SYSTEM hook
 * 0x0000 with TRACE_LOGFILE_HEADER) and any extra header-group events the
 * caller passes (e.g. hook 0x0050 of the input), then 0xFF padding.  Each
 * further buffer holds one CPU's events, 8-byte aligned, with the
 * PROC_INDEX flag, the CPU in ProcessorIndex, the flush order in
 * SequenceNumber and the last event's timestamp as flush time, padded with
 * 0xFF.  One buffer per CPU is kept in memory, so memory does not grow with
 * the trace.  At finish the header buffer is written again with the final
 * BuffersWritten, EndTime and lost counts.
 *
 * Events must come in time order per CPU; the writer copies their bytes as
 * they are (header included).  Errors are sticky: the first one is returned
 * by every later call. */
#ifndef ETWCAP_ETL_WRITER_H
#define ETWCAP_ETL_WRITER_H

#include "etw/etl/etl_format.h"
#include "src/base/file_io.h"

#include <stddef.h>
#include <stdint.h>

#define ETL_WRITER_DEFAULT_BUFFER_SIZE 65536u
#define ETL_WRITER_MAX_CPUS 4096u

struct etl_writer_config {
  uint32_t buffer_size;        /* 0 = 64 KiB; at least 4 KiB, a multiple of 8 */
  struct etl_logfile header;   /* the logfile header to write; buffer_size,
                                  buffers_written and cpus are filled in */
  const uint8_t *tz_raw;       /* 172-byte TIME_ZONE_INFORMATION to keep, or NULL */
  uint32_t header_pid, header_tid;
  uint16_t logger_id;
  const uint8_t *const *extra_header_events; /* raw records for buffer 0 */
  size_t extra_header_count;
  const struct file_io *io;    /* NULL: plain files */
};

struct etl_writer;

/* Creates `path` (truncating it).  On error nothing is left behind. */
int etl_writer_open(struct etl_writer **out, const char *path,
                    const struct etl_writer_config *config);

/* Appends one event record of `size` bytes to `cpu`'s stream. */
int etl_writer_write(struct etl_writer *w, uint16_t cpu, uint64_t timestamp, const void *record,
                     uint32_t size);

/* Adds a header-group record (a SYSTEM header: Size at offset 4) to buffer 0,
 * after the ones given at open.  Allowed until finish, which writes buffer 0
 * again. */
int etl_writer_add_header_event(struct etl_writer *w, const void *record);

/* The header the writer will write at finish; the caller may update
 * end_time, events_lost, buffers_lost until then. */
struct etl_logfile *etl_writer_header(struct etl_writer *w);

/* Events and data buffers written so far. */
uint64_t etl_writer_events(const struct etl_writer *w);

/* Flushes every buffer, rewrites the header buffer, closes the file and
 * frees the writer.  On error the partial file is removed. */
int etl_writer_finish(struct etl_writer *w);

/* Closes, removes the partial file and frees the writer. */
void etl_writer_abort(struct etl_writer *w);

#endif
