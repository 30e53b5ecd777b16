/* The streaming ETL reader (see etl_reader.h).  Buffer rules are from
 * docs/etl.md §1-§3 and §6: buffers follow each other at BufferSize
 * (which varies: small relogged header buffers, compressed sizes), events
 * end at Offset (not SavedOffset), then 0xFF padding. */
#include "etw/etl/etl_reader.h"

#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_decode.h"
#include "etw/etl/etl_decompress.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct etl_reader {
  struct byte_source io;
  char *name;
  struct etl_logfile lf;
  struct etl_clock clock;
  unsigned compression;
  struct etl_buffer cur;   /* file-order iteration */
  int have_cur;
  int at_end;
  uint64_t next_offset;
  uint32_t next_index;
  uint32_t buffers_seen;
  uint8_t *win;            /* read-ahead window of file-order iteration */
  size_t win_cap, win_len;
  uint64_t win_start;      /* file offset of win[0] */
  char error[512];
};

/* Size of the read-ahead window: big reads, bounded memory. */
#define ETL_READ_CHUNK (1024u * 1024u)

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(struct etl_reader *r, int rc, uint64_t offset, const char *fmt, ...)
{
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  snprintf(r->error, sizeof(r->error), "%s: byte offset %llu (0x%llx): %s", r->name,
           (unsigned long long)offset, (unsigned long long)offset, what);
  log_debug("etl reader: %s", r->error);
  return rc;
}

static int grow(uint8_t **p, size_t *cap, size_t need)
{
  uint8_t *n;
  if (*cap >= need)
    return 0;
  n = etwcap_realloc(*p, need);
  if (!n)
    return ETWCAP_E_NOMEM;
  *p = n;
  *cap = need;
  return 0;
}

int etl_reader_fail(struct etl_reader *r, int rc, uint64_t offset, const char *fmt, ...)
{
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  return fail(r, rc, offset, "%s", what);
}

void etl_buffer_release(struct etl_buffer *b)
{
  etwcap_free(b->raw);
  etwcap_free(b->dec);
  memset(b, 0, sizeof(*b));
}

int etl_reader_peek_buffer(struct etl_reader *r, uint64_t offset, uint32_t index,
                           struct etl_buffer_header *h)
{
  uint8_t head[ETL_BUFFER_HEADER_SIZE];
  size_t got = 0;
  int rc;
  if (r->io.size >= 0 && offset >= (uint64_t)r->io.size)
    return 0;
  rc = byte_source_read_exact(&r->io, offset, head, sizeof(head), &got);
  if (rc == ETWCAP_E_TRUNCATED && got == 0)
    return 0;
  if (rc == ETWCAP_E_TRUNCATED)
    return fail(r, rc, offset, "the file ends inside the header of buffer %u (%u of 72 bytes)",
                index, (unsigned)got);
  if (rc)
    return fail(r, rc, offset, "cannot read buffer %u: %s", index, etwcap_strerror(rc));
  etl_buffer_header_decode(head, h);
  return 1;
}

/* Checks a buffer header's sizes before anything is allocated from them. */
static int check_header(struct etl_reader *r, const struct etl_buffer_header *h,
                        uint64_t offset, uint32_t index)
{
  if (h->buffer_size < ETL_BUFFER_HEADER_SIZE || h->buffer_size > ETL_MAX_BUFFER_SIZE)
    return fail(r, ETWCAP_E_CORRUPT, offset, "buffer %u has an impossible BufferSize %u",
                index, h->buffer_size);
  if (h->filled < ETL_BUFFER_HEADER_SIZE || h->filled > ETL_MAX_BUFFER_SIZE)
    return fail(r, ETWCAP_E_CORRUPT, offset + 0x30,
                "buffer %u has an impossible filled length (Offset) %u", index, h->filled);
  /* A compressed buffer expands to at most the session's buffer size, so
   * a few bytes can never claim a huge allocation. */
  if ((h->flags & ETL_BUFFER_FLAG_COMPRESSED) && r->lf.buffer_size >= ETL_BUFFER_HEADER_SIZE &&
      h->filled > r->lf.buffer_size)
    return fail(r, ETWCAP_E_CORRUPT, offset + 0x30,
                "compressed buffer %u claims %u bytes, more than the session's BufferSize %u",
                index, h->filled, r->lf.buffer_size);
  if (!(h->flags & ETL_BUFFER_FLAG_COMPRESSED) && h->filled > h->buffer_size)
    return fail(r, ETWCAP_E_CORRUPT, offset + 0x30,
                "buffer %u is filled to %u bytes but is only %u bytes long", index, h->filled,
                h->buffer_size);
  if (r->io.size >= 0 && offset + h->buffer_size > (uint64_t)r->io.size)
    return fail(r, ETWCAP_E_TRUNCATED, offset,
                "buffer %u needs %u bytes but the file ends at byte %lld", index,
                h->buffer_size, (long long)r->io.size);
  return 0;
}

/* Makes b the buffer whose on-disk bytes (header included, h->buffer_size
 * of them) are at raw: decompresses when needed, else points at raw. */
static int finish_buffer(struct etl_reader *r, const struct etl_buffer_header *h,
                         uint64_t offset, uint32_t index, const uint8_t *raw,
                         struct etl_buffer *b)
{
  int rc;
  b->h = *h;
  b->offset = offset;
  b->index = index;
  b->end = h->filled;
  b->pos = ETL_BUFFER_HEADER_SIZE;
  if (!(h->flags & ETL_BUFFER_FLAG_COMPRESSED)) {
    b->bytes = raw;
    return 0;
  }
  {
    /* The header stays plain; BufferSize-72 compressed bytes expand to
     * exactly Offset-72 bytes of events (§6).  The header is copied in front
     * so event offsets and alignment are the same as in a plain buffer. */
    size_t out_len = 0;
    unsigned format = r->compression ? r->compression : ETL_COMPRESSION_XPRESS;
    if (grow(&b->dec, &b->dec_cap, h->filled))
      return fail(r, ETWCAP_E_NOMEM, offset, "no memory for buffer %u", index);
    memcpy(b->dec, raw, ETL_BUFFER_HEADER_SIZE);
    rc = etl_decompress(format, raw + ETL_BUFFER_HEADER_SIZE,
                        h->buffer_size - ETL_BUFFER_HEADER_SIZE, b->dec + ETL_BUFFER_HEADER_SIZE,
                        h->filled - ETL_BUFFER_HEADER_SIZE, &out_len);
    if (rc == ETWCAP_E_UNSUPPORTED)
      return fail(r, rc, offset,
                  "buffer %u is compressed with %s (format %u), which this build cannot "
                  "decompress", index, etl_compression_name(format), format);
    if (rc == ETWCAP_E_NOMEM)
      return fail(r, rc, offset, "no memory to decompress buffer %u", index);
    if (rc || out_len != h->filled - ETL_BUFFER_HEADER_SIZE)
      return fail(r, ETWCAP_E_CORRUPT, offset + ETL_BUFFER_HEADER_SIZE,
                  "compressed buffer %u does not decompress to its %u bytes (%s)", index,
                  h->filled - ETL_BUFFER_HEADER_SIZE, rc ? etwcap_strerror(rc) : "wrong length");
    b->bytes = b->dec;
  }
  return 0;
}

int etl_reader_load_buffer(struct etl_reader *r, uint64_t offset, uint32_t index,
                           struct etl_buffer *b)
{
  struct etl_buffer_header h;
  size_t got = 0;
  int rc;
  /* The header straight into the buffer's memory, then the rest right
   * after it: two sequential reads, no seeking back. */
  if (r->io.size >= 0 && offset >= (uint64_t)r->io.size)
    return fail(r, ETWCAP_E_TRUNCATED, offset, "buffer %u is missing: the file ends here",
                index);
  if (grow(&b->raw, &b->raw_cap, ETL_BUFFER_HEADER_SIZE))
    return fail(r, ETWCAP_E_NOMEM, offset, "no memory for buffer %u", index);
  rc = byte_source_read_exact(&r->io, offset, b->raw, ETL_BUFFER_HEADER_SIZE, &got);
  if (rc == ETWCAP_E_TRUNCATED)
    return fail(r, rc, offset, "the file ends inside the header of buffer %u (%u of 72 bytes)",
                index, (unsigned)got);
  if (rc)
    return fail(r, rc, offset, "cannot read buffer %u: %s", index, etwcap_strerror(rc));
  etl_buffer_header_decode(b->raw, &h);
  rc = check_header(r, &h, offset, index);
  if (rc)
    return rc;
  if (grow(&b->raw, &b->raw_cap, h.buffer_size))
    return fail(r, ETWCAP_E_NOMEM, offset, "no memory for buffer %u", index);
  rc = byte_source_read_exact(&r->io, offset + ETL_BUFFER_HEADER_SIZE,
                         b->raw + ETL_BUFFER_HEADER_SIZE,
                         h.buffer_size - ETL_BUFFER_HEADER_SIZE, &got);
  if (rc == ETWCAP_E_TRUNCATED)
    return fail(r, rc, offset + ETL_BUFFER_HEADER_SIZE + got,
                "the file ends inside buffer %u (%llu of %u bytes)", index,
                (unsigned long long)(ETL_BUFFER_HEADER_SIZE + got), h.buffer_size);
  if (rc)
    return fail(r, rc, offset, "cannot read buffer %u: %s", index, etwcap_strerror(rc));
  return finish_buffer(r, &h, offset, index, b->raw, b);
}

int etl_reader_load_buffer_sized(struct etl_reader *r, uint64_t offset, uint32_t index,
                                 uint32_t size, struct etl_buffer *b)
{
  struct etl_buffer_header h;
  size_t got = 0;
  int rc;
  /* One read of the size a scan already saw; anything unexpected falls back
   * to the careful path, which finds and words the problem. */
  if (size < ETL_BUFFER_HEADER_SIZE || size > ETL_MAX_BUFFER_SIZE ||
      grow(&b->raw, &b->raw_cap, size))
    return etl_reader_load_buffer(r, offset, index, b);
  rc = byte_source_read_exact(&r->io, offset, b->raw, size, &got);
  if (rc)
    return etl_reader_load_buffer(r, offset, index, b);
  etl_buffer_header_decode(b->raw, &h);
  if (h.buffer_size != size)
    return etl_reader_load_buffer(r, offset, index, b);
  rc = check_header(r, &h, offset, index);
  if (rc)
    return rc;
  return finish_buffer(r, &h, offset, index, b->raw, b);
}

/* --- the read-ahead window of file-order iteration ---------------------------
 * Sequential iteration reads big chunks and decodes uncompressed buffers in
 * place, straight from the chunk: one copy from the OS, no per-buffer seek. */

/* Makes [offset, offset+need) available in the window.  Returns 0, or
 * ETWCAP_E_TRUNCATED with *avail = the bytes that exist from offset. */
static int window_get(struct etl_reader *r, uint64_t offset, size_t need, size_t *avail)
{
  size_t keep = 0, want, got = 0;
  int rc;
  *avail = 0;
  if (offset >= r->win_start && offset - r->win_start <= r->win_len &&
      r->win_len - (size_t)(offset - r->win_start) >= need) {
    *avail = r->win_len - (size_t)(offset - r->win_start);
    return 0;
  }
  want = ETL_READ_CHUNK;
  /* Small files get a small window. */
  if (r->io.size >= 0 && (uint64_t)r->io.size > offset && (uint64_t)r->io.size - offset < want)
    want = (size_t)((uint64_t)r->io.size - offset);
  if (want < need)
    want = need;
  if (grow(&r->win, &r->win_cap, want))
    return ETWCAP_E_NOMEM;
  /* Keep the bytes of the window that are still ahead of us. */
  if (offset >= r->win_start && offset - r->win_start < r->win_len) {
    keep = r->win_len - (size_t)(offset - r->win_start);
    memmove(r->win, r->win + (offset - r->win_start), keep);
  }
  r->win_start = offset;
  r->win_len = keep;
  rc = byte_source_read_exact(&r->io, offset + keep, r->win + keep, r->win_cap - keep, &got);
  r->win_len = keep + got;
  if (rc && rc != ETWCAP_E_TRUNCATED)
    return rc;
  *avail = r->win_len;
  return r->win_len >= need ? 0 : ETWCAP_E_TRUNCATED;
}

/* etl_reader_peek_buffer through the window. */
static int window_peek(struct etl_reader *r, uint64_t offset, uint32_t index,
                       struct etl_buffer_header *h)
{
  size_t avail = 0;
  int rc;
  if (r->io.size >= 0 && offset >= (uint64_t)r->io.size)
    return 0;
  rc = window_get(r, offset, ETL_BUFFER_HEADER_SIZE, &avail);
  if (rc == ETWCAP_E_TRUNCATED && avail == 0)
    return 0;
  if (rc == ETWCAP_E_TRUNCATED)
    return fail(r, rc, offset, "the file ends inside the header of buffer %u (%u of 72 bytes)",
                index, (unsigned)avail);
  if (rc == ETWCAP_E_NOMEM)
    return fail(r, rc, offset, "no memory to read buffer %u", index);
  if (rc)
    return fail(r, rc, offset, "cannot read buffer %u: %s", index, etwcap_strerror(rc));
  etl_buffer_header_decode(r->win + (offset - r->win_start), h);
  return 1;
}

int etl_reader_buffer_next(struct etl_reader *r, struct etl_buffer *b, struct etw_event *ev)
{
  uint32_t next = 0;
  const char *why = NULL;
  int rc = etl_decode_event(b->bytes, b->end, b->pos, ev, &next, &why);
  if (rc == ETL_DECODE_END) {
    b->pos = b->end;
    return 0;
  }
  if (rc < 0) {
    if (b->h.flags & ETL_BUFFER_FLAG_COMPRESSED)
      return fail(r, rc, b->offset,
                  "compressed buffer %u, decompressed offset %u: %s (marker 0x%08x)", b->index,
                  b->pos, why, etl_le32(b->bytes + b->pos));
    return fail(r, rc, b->offset + b->pos, "buffer %u: %s (marker 0x%08x)", b->index, why,
                etl_le32(b->bytes + b->pos));
  }
  ev->cpu = b->h.cpu;
  ev->buffer_index = b->index;
  b->pos = next;
  return 1;
}

int etl_reader_open(struct etl_reader **out, const struct byte_source *io, const char *name)
{
  struct etl_reader *r;
  struct etw_event ev;
  const char *why = NULL;
  uint32_t next = 0;
  int rc;

  *out = NULL;
  r = etwcap_calloc(1, sizeof(*r));
  if (!r)
    return ETWCAP_E_NOMEM;
  r->io = *io;
  r->name = etwcap_strdup(name ? name : "(trace)");
  if (!r->name) {
    etwcap_free(r);
    return ETWCAP_E_NOMEM;
  }
  *out = r; /* so the caller can read the error message; freed by the caller */

  if (io->size >= 0 && io->size < (int64_t)ETL_BUFFER_HEADER_SIZE + 0x20)
    return fail(r, ETWCAP_E_FORMAT, 0, "not an ETL file: only %lld bytes",
                (long long)io->size);
  rc = etl_reader_load_buffer(r, 0, 0, &r->cur);
  if (rc) {
    /* A first buffer that makes no sense means this is not an ETL file. */
    if (rc == ETWCAP_E_CORRUPT || rc == ETWCAP_E_TRUNCATED) {
      static const char prefix[] = "not an ETL file: ";
      size_t keep = sizeof(r->error) - sizeof(prefix);
      memmove(r->error + sizeof(prefix) - 1, r->error, keep);
      r->error[sizeof(r->error) - 1] = '\0';
      memcpy(r->error, prefix, sizeof(prefix) - 1);
      return ETWCAP_E_FORMAT;
    }
    return rc;
  }
  if (r->cur.h.flags & ETL_BUFFER_FLAG_COMPRESSED)
    return fail(r, ETWCAP_E_FORMAT, 0x34, "not an ETL file: the first buffer is compressed");
  /* The first event must be the logfile header: a SYSTEM32/64 header with
   * hook 0x0000 (§3). */
  rc = etl_decode_event(r->cur.bytes, r->cur.end, ETL_BUFFER_HEADER_SIZE, &ev, &next, &why);
  if (rc != ETL_DECODE_EVENT ||
      (ev.header_type != ETW_HDR_SYSTEM64 && ev.header_type != ETW_HDR_SYSTEM32) ||
      ev.hook_id != 0)
    return fail(r, ETWCAP_E_FORMAT, ETL_BUFFER_HEADER_SIZE,
                "not an ETL file: no logfile header event (marker 0x%08x)",
                etl_le32(r->cur.bytes + ETL_BUFFER_HEADER_SIZE));
  rc = etl_logfile_decode(ev.user_data, ev.user_len, ev.header_type == ETW_HDR_SYSTEM64,
                          &r->lf);
  if (rc)
    return fail(r, ETWCAP_E_CORRUPT, ETL_BUFFER_HEADER_SIZE,
                "the logfile header is too short (%u bytes)", ev.user_len);
  r->lf.header_timestamp = ev.timestamp;
  r->lf.header_pid = ev.pid;
  r->lf.header_tid = ev.tid;
  etl_clock_init(&r->clock, &r->lf);
  if (r->lf.log_file_mode & ETL_MODE_COMPRESSED)
    r->compression = r->cur.h.state & 0xFFFFu;
  r->have_cur = 1;
  r->buffers_seen = 1;
  r->next_offset = r->cur.h.buffer_size;
  r->next_index = 1;
  return 0;
}

void etl_reader_free(struct etl_reader *r)
{
  if (!r)
    return;
  etl_buffer_release(&r->cur);
  etwcap_free(r->win);
  etwcap_free(r->name);
  etwcap_free(r);
}

const struct etl_logfile *etl_reader_logfile(const struct etl_reader *r)
{
  return &r->lf;
}

const struct etl_clock *etl_reader_clock(const struct etl_reader *r)
{
  return &r->clock;
}

unsigned etl_reader_compression(const struct etl_reader *r)
{
  return r->compression;
}

const char *etl_reader_error(const struct etl_reader *r)
{
  return r->error;
}

const struct etl_buffer *etl_reader_current_buffer(const struct etl_reader *r)
{
  return &r->cur;
}

uint32_t etl_reader_buffers_seen(const struct etl_reader *r)
{
  return r->buffers_seen;
}

/* The header of the buffer at offset, with the end-of-file rules of
 * file-order iteration: 1 (checked header in *h), 0 at the end, < 0. */
static int next_header(struct etl_reader *r, uint64_t offset, uint32_t index,
                       struct etl_buffer_header *h, int through_window)
{
  int rc = through_window ? window_peek(r, offset, index, h)
                          : etl_reader_peek_buffer(r, offset, index, h);
  if (rc < 0)
    return rc;
  /* A zero-filled tail after the buffers the header counts (preallocated
   * files) ends the trace quietly. */
  if (rc == 1 && h->buffer_size == 0 && index >= r->lf.buffers_written)
    rc = 0;
  if (rc == 0) {
    if (index < r->lf.buffers_written && !(r->lf.log_file_mode & ETL_MODE_CIRCULAR))
      return fail(r, ETWCAP_E_TRUNCATED, offset,
                  "the file ends after %u buffers but its header says %u were written", index,
                  r->lf.buffers_written);
    return 0;
  }
  rc = check_header(r, h, offset, index);
  return rc ? rc : 1;
}

int etl_reader_scan_buffers(struct etl_reader *r, etl_buffer_fn fn, void *ctx)
{
  uint64_t offset = 0;
  uint32_t index = 0;
  for (;;) {
    struct etl_buffer_header h;
    int rc = next_header(r, offset, index, &h, 0);
    if (rc <= 0)
      return rc;
    rc = fn(ctx, &h, offset, index);
    if (rc)
      return rc;
    offset += h.buffer_size;
    if (index == UINT32_MAX)
      return fail(r, ETWCAP_E_CORRUPT, offset, "too many buffers");
    index++;
  }
}

/* Moves file-order iteration to the next buffer: 1, 0 at the end, < 0. */
static int advance_buffer(struct etl_reader *r)
{
  struct etl_buffer_header h;
  size_t avail = 0;
  int rc = next_header(r, r->next_offset, r->next_index, &h, 1);
  if (rc <= 0)
    return rc;
  rc = window_get(r, r->next_offset, h.buffer_size, &avail);
  if (rc == ETWCAP_E_TRUNCATED)
    return fail(r, rc, r->next_offset + avail,
                "the file ends inside buffer %u (%llu of %u bytes)", r->next_index,
                (unsigned long long)avail, h.buffer_size);
  if (rc == ETWCAP_E_NOMEM)
    return fail(r, rc, r->next_offset, "no memory to read buffer %u", r->next_index);
  if (rc)
    return fail(r, rc, r->next_offset, "cannot read buffer %u: %s", r->next_index,
                etwcap_strerror(rc));
  rc = finish_buffer(r, &h, r->next_offset, r->next_index,
                     r->win + (r->next_offset - r->win_start), &r->cur);
  if (rc)
    return rc;
  r->next_offset += h.buffer_size;
  r->next_index++;
  r->buffers_seen++;
  return 1;
}

int etl_reader_next(struct etl_reader *r, struct etw_event *ev)
{
  int rc;
  if (r->at_end)
    return 0;
  for (;;) {
    if (r->have_cur) {
      rc = etl_reader_buffer_next(r, &r->cur, ev);
      if (rc != 0) {
        if (rc < 0)
          r->at_end = 1;
        return rc;
      }
      r->have_cur = 0;
    }
    rc = advance_buffer(r);
    if (rc <= 0) {
      r->at_end = 1;
      return rc;
    }
    r->have_cur = 1;
  }
}
