/* The per-CPU k-way merge behind etl_timeorder.h.  The heap holds one entry
 * per CPU stream that still has events; its key is the stream's current
 * event timestamp. */
#include "etw/etl/etl_timeorder.h"

#include "etw/etl/etl_decode.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

/* The decompressed buffers all CPU streams hold at once may take up to
 * ETL_TIMEORDER_EXPANSION times the bytes of buffers in the file, or
 * ETL_TIMEORDER_MIN_BUDGET whatever the file's size (eight buffers of ETW's
 * largest size, 16 MiB: BufferSize in EVENT_TRACE_PROPERTIES,
 * https://learn.microsoft.com/windows/win32/api/evntrace/ns-evntrace-event_trace_properties).
 * XPRESS ([MS-XCA] 2.3) shrinks event data a few times over; a run of
 * zeros shrinks thousands of times, so a file of a few kilobytes could
 * otherwise make each of hundreds of streams hold a 64 MiB buffer. */
#define ETL_TIMEORDER_EXPANSION 32u
#define ETL_TIMEORDER_MIN_BUDGET (UINT64_C(128) << 20)

struct buf_ref {
  uint64_t offset;
  uint64_t sequence;
  uint32_t index;
  uint32_t size;
  uint32_t expanded; /* decompressed size (Offset) of a compressed buffer, else 0 */
  uint16_t cpu;
};

struct stream {
  size_t first, count, next; /* range of refs[] and the next one to load */
  struct etl_buffer buf;     /* buf.pos is the stream's next record */
  int loaded;
  uint64_t key;              /* its timestamp, or the previous one's */
};

struct etl_timeorder {
  struct etl_reader *r;
  struct buf_ref *refs;
  size_t ref_count, ref_cap;
  struct stream *streams;
  size_t stream_count;
  size_t *heap;              /* stream indexes */
  size_t heap_len;
  int started;
  size_t last;               /* stream of the event returned last */
  int have_last;
};

static int collect(void *ctx, const struct etl_buffer_header *h, uint64_t offset,
                   uint32_t index)
{
  struct etl_timeorder *t = ctx;
  if (etwcap_grow((void **)&t->refs, &t->ref_cap, t->ref_count, sizeof(*t->refs), 64) != 0)
    return ETWCAP_E_NOMEM;
  t->refs[t->ref_count].offset = offset;
  t->refs[t->ref_count].sequence = h->sequence;
  t->refs[t->ref_count].index = index;
  t->refs[t->ref_count].cpu = h->cpu;
  t->refs[t->ref_count].size = h->buffer_size;
  t->refs[t->ref_count].expanded = (h->flags & ETL_BUFFER_FLAG_COMPRESSED) ? h->filled : 0;
  t->ref_count++;
  return 0;
}

static int by_cpu_then_sequence(const void *a, const void *b)
{
  const struct buf_ref *x = a, *y = b;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  /* The header buffer comes first whatever its number says. */
  if ((x->index == 0) != (y->index == 0))
    return x->index == 0 ? -1 : 1;
  if (x->sequence != y->sequence)
    return x->sequence < y->sequence ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Does stream a's head sort before stream b's? */
static int before(const struct etl_timeorder *t, size_t a, size_t b)
{
  const struct stream *x = &t->streams[a], *y = &t->streams[b];
  if (x->key != y->key)
    return x->key < y->key;
  return a < b; /* streams are in CPU order */
}

static void heap_push(struct etl_timeorder *t, size_t s)
{
  size_t i = t->heap_len++;
  t->heap[i] = s;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(t, t->heap[i], t->heap[parent]))
      break;
    s = t->heap[i];
    t->heap[i] = t->heap[parent];
    t->heap[parent] = s;
    i = parent;
  }
}

static size_t heap_pop(struct etl_timeorder *t)
{
  size_t top = t->heap[0], i = 0;
  t->heap[0] = t->heap[--t->heap_len];
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i, tmp;
    if (l < t->heap_len && before(t, t->heap[l], t->heap[m]))
      m = l;
    if (r < t->heap_len && before(t, t->heap[r], t->heap[m]))
      m = r;
    if (m == i)
      break;
    tmp = t->heap[i];
    t->heap[i] = t->heap[m];
    t->heap[m] = tmp;
    i = m;
  }
  return top;
}

/* Positions stream s on its next record and sets its key from a peek at
 * the timestamp (the full decode happens once, when the record is taken):
 * 1, 0 when the stream has no more records, < 0. */
static int stream_ready(struct etl_timeorder *t, size_t s)
{
  struct stream *st = &t->streams[s];
  for (;;) {
    int rc;
    if (st->loaded) {
      uint64_t ts;
      rc = etl_decode_peek_timestamp(st->buf.bytes, st->buf.end, st->buf.pos, &ts);
      if (rc == ETL_PEEK_TIMESTAMP) {
        st->key = ts;
        return 1;
      }
      if (rc == ETL_PEEK_NO_TIMESTAMP)
        return 1; /* sorts with the record before it */
      st->loaded = 0;
    }
    if (st->next >= st->count) {
      etl_buffer_release(&st->buf);
      return 0;
    }
    {
      const struct buf_ref *ref = &t->refs[st->first + st->next++];
      rc = etl_reader_load_buffer_sized(t->r, ref->offset, ref->index, ref->size, &st->buf);
      if (rc)
        return rc;
      st->loaded = 1;
    }
  }
}

/* A stream keeps one buffer's memory at a time, grown to the largest it
 * loads: its largest on-disk buffer (all of them together fit in the file)
 * and its largest decompressed one, which must fit the budget above.
 * Refuses, naming the field, what no ETW session writes. */
static int check_memory(struct etl_timeorder *t)
{
  const struct etl_logfile *lf = etl_reader_logfile(t->r);
  uint64_t disk = 0, held = 0, budget, worst_offset = 0;
  uint32_t stream_max = 0, worst = 0;
  size_t i;
  if (lf->buffer_size > ETL_MAX_BUFFER_SIZE)
    return etl_reader_fail(t->r, ETWCAP_E_CORRUPT, ETL_BUFFER_HEADER_SIZE + 0x20,
                           "the logfile header's BufferSize is %u bytes, more than the %u "
                           "this reader accepts (ETW writes at most 16 MiB): the header is "
                           "damaged", lf->buffer_size, ETL_MAX_BUFFER_SIZE);
  for (i = 0; i < t->ref_count; i++) {
    const struct buf_ref *ref = &t->refs[i];
    if (i > 0 && ref->cpu != t->refs[i - 1].cpu) {
      held += stream_max;
      stream_max = 0;
    }
    disk += ref->size;
    if (ref->expanded > stream_max)
      stream_max = ref->expanded;
    if (ref->expanded > worst) {
      worst = ref->expanded;
      worst_offset = ref->offset;
    }
  }
  held += stream_max;
  budget = disk * ETL_TIMEORDER_EXPANSION;
  if (budget < ETL_TIMEORDER_MIN_BUDGET)
    budget = ETL_TIMEORDER_MIN_BUDGET;
  if (held > budget)
    return etl_reader_fail(t->r, ETWCAP_E_CORRUPT, worst_offset + 0x30,
                           "the compressed buffers of %u CPU streams claim %llu bytes once "
                           "decompressed (their filled length, Offset, up to %u here), more "
                           "than %u times the %llu bytes of buffers in the file: the buffer "
                           "headers are damaged", (unsigned)t->stream_count,
                           (unsigned long long)held, worst, ETL_TIMEORDER_EXPANSION,
                           (unsigned long long)disk);
  return 0;
}

int etl_timeorder_open(struct etl_timeorder **out, struct etl_reader *r)
{
  struct etl_timeorder *t;
  size_t i;
  int rc;
  *out = NULL;
  t = etwcap_calloc(1, sizeof(*t));
  if (!t)
    return ETWCAP_E_NOMEM;
  t->r = r;
  rc = etl_reader_scan_buffers(r, collect, t);
  if (rc == ETWCAP_E_NOMEM)
    etl_reader_fail(r, rc, 0, "no memory for the buffer index");
  if (rc)
    goto cleanup;
  qsort(t->refs, t->ref_count, sizeof(*t->refs), by_cpu_then_sequence);
  for (i = 0; i < t->ref_count; i++)
    if (i == 0 || t->refs[i].cpu != t->refs[i - 1].cpu)
      t->stream_count++;
  rc = check_memory(t);
  if (rc)
    goto cleanup;
  if (t->stream_count) {
    t->streams = etwcap_calloc(t->stream_count, sizeof(*t->streams));
    t->heap = etwcap_calloc(t->stream_count, sizeof(*t->heap));
    if (!t->streams || !t->heap) {
      rc = etl_reader_fail(r, ETWCAP_E_NOMEM, 0, "no memory for %u CPU streams",
                           (unsigned)t->stream_count);
      goto cleanup;
    }
  }
  {
    size_t s = 0;
    for (i = 0; i < t->ref_count; i++) {
      if (i > 0 && t->refs[i].cpu != t->refs[i - 1].cpu)
        s++;
      if (t->streams[s].count == 0)
        t->streams[s].first = i;
      t->streams[s].count++;
    }
  }
  *out = t;
  return 0;
cleanup:
  etl_timeorder_free(t);
  return rc;
}

int etl_timeorder_next(struct etl_timeorder *t, struct etw_event *ev)
{
  int rc;
  size_t s;
  if (!t->started) {
    t->started = 1;
    for (s = 0; s < t->stream_count; s++) {
      rc = stream_ready(t, s);
      if (rc < 0)
        return rc;
      if (rc == 1)
        heap_push(t, s);
    }
  } else if (t->have_last) {
    /* Only now may the stream of the last event move on to another
     * buffer: that event's bytes lived in its buffer until this call. */
    t->have_last = 0;
    rc = stream_ready(t, t->last);
    if (rc < 0)
      return rc;
    if (rc == 1)
      heap_push(t, t->last);
  }
  if (t->heap_len == 0)
    return 0;
  s = heap_pop(t);
  rc = etl_reader_buffer_next(t->r, &t->streams[s].buf, ev);
  if (rc <= 0) /* the peek saw a record, so this is an error */
    return rc < 0 ? rc : ETWCAP_E_INTERNAL;
  t->last = s;
  t->have_last = 1;
  return 1;
}

void etl_timeorder_free(struct etl_timeorder *t)
{
  size_t i;
  if (!t)
    return;
  for (i = 0; t->streams && i < t->stream_count; i++)
    etl_buffer_release(&t->streams[i].buf);
  etwcap_free(t->streams);
  etwcap_free(t->heap);
  etwcap_free(t->refs);
  etwcap_free(t);
}
