/* The streaming ETL reader: opens an ETL through a byte source, decodes the
 * logfile header, and hands out events in file order (buffer by buffer,
 * event by event), decompressing compressed buffers.  File order reads the
 * input in 1 MiB chunks and decodes uncompressed buffers in place; memory is
 * that chunk plus one decompressed buffer whatever the file size, and
 * nothing is allocated per event.  Global time order is etl_timeorder.h.
 *
 * Errors are ETWCAP_E_* codes; etl_reader_error() then gives a message that
 * names the file, the byte offset and what was wrong, for the CLI to print.
 *
 * Lifetime: the reader borrows the byte source (the caller closes it after
 * etl_reader_free).  Events point into the reader's buffer: see etw_event.h. */
#ifndef ETWCAP_ETL_READER_H
#define ETWCAP_ETL_READER_H

#include "etw/etl/etl_clock.h"
#include "etw/etl/etl_format.h"
#include "etw/event/etw_event.h"
#include "src/base/byte_source.h"

#include <stddef.h>
#include <stdint.h>

/* Largest buffer accepted (on disk or decompressed).  ETW's own limit is
 * far lower; this only keeps hostile sizes from driving allocations. */
#define ETL_MAX_BUFFER_SIZE (64u * 1024u * 1024u)

struct etl_reader;

/* One buffer's bytes and a position in it.  Owned by its user; release with
 * etl_buffer_release.  `bytes` holds the 72-byte header and the events up
 * to `end` (decompressed when the buffer was compressed). */
struct etl_buffer {
  struct etl_buffer_header h;
  uint64_t offset;  /* file offset of the buffer */
  uint32_t index;   /* 0 = the header buffer */
  const uint8_t *bytes;
  uint32_t end;     /* filled length */
  uint32_t pos;     /* next record */
  uint8_t *raw, *dec;
  size_t raw_cap, dec_cap;
};

/* Opens the ETL in `io` and decodes its logfile header; `name` appears in
 * every error message.  On failure *out is still set (when memory allowed)
 * so etl_reader_error can be read: free it with etl_reader_free. */
int etl_reader_open(struct etl_reader **out, const struct byte_source *io, const char *name);
void etl_reader_free(struct etl_reader *r);

const struct etl_logfile *etl_reader_logfile(const struct etl_reader *r);
const struct etl_clock *etl_reader_clock(const struct etl_reader *r);
/* COMPRESSION_FORMAT_* of the file, 0 when it is not compressed. */
unsigned etl_reader_compression(const struct etl_reader *r);
/* Message of the last error ("" when none). */
const char *etl_reader_error(const struct etl_reader *r);
/* Records an error found by code built on the reader (the time-order
 * iterator) in the same "NAME: byte offset N: what" form; returns rc. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int etl_reader_fail(struct etl_reader *r, int rc, uint64_t offset, const char *fmt, ...);

/* Next event in file order: 1 with *ev filled, 0 at the end, or < 0. */
int etl_reader_next(struct etl_reader *r, struct etw_event *ev);
/* The buffer the last event came from (file-order iteration). */
const struct etl_buffer *etl_reader_current_buffer(const struct etl_reader *r);
/* Buffers entered so far by etl_reader_next (header buffer included). */
uint32_t etl_reader_buffers_seen(const struct etl_reader *r);

/* Buffer-level access, for iterators that visit buffers in another order.
 * etl_reader_peek_buffer reads only the 72-byte header of the buffer at
 * `offset`: 1 when there is one, 0 at a clean end of the file, < 0 on error.
 * etl_reader_load_buffer reads (and decompresses) the whole buffer into b.
 * etl_reader_buffer_next decodes b's next event like etl_reader_next. */
int etl_reader_peek_buffer(struct etl_reader *r, uint64_t offset, uint32_t index,
                           struct etl_buffer_header *h);
int etl_reader_load_buffer(struct etl_reader *r, uint64_t offset, uint32_t index,
                           struct etl_buffer *b);
int etl_reader_buffer_next(struct etl_reader *r, struct etl_buffer *b, struct etw_event *ev);
/* etl_reader_load_buffer when the buffer's size is already known (from a
 * scan): one read instead of two. */
int etl_reader_load_buffer_sized(struct etl_reader *r, uint64_t offset, uint32_t index,
                                 uint32_t size, struct etl_buffer *b);
void etl_buffer_release(struct etl_buffer *b);

/* Walks the buffer headers from the start of the file, without reading
 * events, with the end-of-file rules of etl_reader_next; calls fn for each
 * (a non-zero return stops the walk and is returned).  0 at the end. */
typedef int (*etl_buffer_fn)(void *ctx, const struct etl_buffer_header *h, uint64_t offset,
                             uint32_t index);
int etl_reader_scan_buffers(struct etl_reader *r, etl_buffer_fn fn, void *ctx);

#endif
