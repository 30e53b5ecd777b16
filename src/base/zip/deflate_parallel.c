/* Parallel raw deflate (design in deflate_parallel.h).
 *
 * The calling thread fills free slots and writes finished slots in order;
 * worker threads compress filled slots.  One mutex guards the slot states
 * and two condition variables wake the workers (work to do) and the caller
 * (a slot finished). */
#include "src/base/zip/deflate_parallel.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_thread.h"

#include "src/base/zip/deflate_seal.h"

#include <libdeflate.h>
#include <string.h>
#include <zlib.h>

/* Workers when the caller leaves it to us: more would only hold more
 * memory ((2n + 1) slots of about 8 MiB) than a disk can take output from. */
#define DEFAULT_MAX_THREADS 8
#define MAX_THREADS 64

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_BUSY, SLOT_DONE };

struct slot {
  enum slot_state state;
  uint64_t seq;
  unsigned char *in;
  size_t in_len;
  unsigned char *out;
  size_t out_cap, out_len;
  uint32_t crc;
  int error;
};

struct deflate_stream {
  struct deflate_params prm;
  os_mutex lock;
  os_cond work; /* a slot was filled, or stop */
  os_cond done; /* a slot finished */
  struct slot *slots;
  size_t nslots;
  int stop;
  os_thread threads[MAX_THREADS];
  unsigned started;
  struct slot *filling; /* the slot the caller's writes go to, or NULL */
  uint64_t next_fill, next_write;
  struct deflate_result result;
  size_t chunk_cap;
  int error; /* sticky */
};

/* A chunk becomes a whole deflate stream, then is sealed so the next chunk
 * can follow it.  The seal's walk proves the chunk decodes to its own
 * length. */
static int compress_slot(struct libdeflate_compressor *c, struct slot *s)
{
  /* out_cap is the compressor's bound plus DEFLATE_SEAL_EXTRA: never short. */
  size_t len = libdeflate_deflate_compress(c, s->in, s->in_len, s->out,
                                           s->out_cap - DEFLATE_SEAL_EXTRA);
  if (len == 0 || deflate_seal(s->out, len, s->out_cap, s->in_len, &s->out_len) != 0)
    return ETWCAP_E_INTERNAL;
  s->crc = libdeflate_crc32(0, s->in, s->in_len);
  return 0;
}

static void worker(void *arg)
{
  struct deflate_stream *d = arg;
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(d->prm.level);
  if (d->prm.low_priority)
    os_thread_lower_priority();
  os_mutex_lock(&d->lock);
  for (;;) {
    struct slot *s = NULL;
    size_t i;
    /* Oldest filled slot first, so the writer is never starved. */
    for (i = 0; i < d->nslots; i++)
      if (d->slots[i].state == SLOT_FILLED && (!s || d->slots[i].seq < s->seq))
        s = &d->slots[i];
    if (!s) {
      if (d->stop)
        break;
      os_cond_wait(&d->work, &d->lock);
      continue;
    }
    s->state = SLOT_BUSY;
    os_mutex_unlock(&d->lock);
    s->error = c ? compress_slot(c, s) : ETWCAP_E_NOMEM;
    os_mutex_lock(&d->lock);
    s->state = SLOT_DONE;
    os_cond_broadcast(&d->done);
  }
  os_mutex_unlock(&d->lock);
  libdeflate_free_compressor(c);
}

static int alloc_slots(struct deflate_stream *d, size_t n)
{
  size_t i;
  size_t bound = libdeflate_deflate_compress_bound(NULL, DEFLATE_CHUNK_BYTES) + DEFLATE_SEAL_EXTRA;
  d->slots = etwcap_calloc(n, sizeof(*d->slots));
  if (!d->slots)
    return ETWCAP_E_NOMEM;
  d->nslots = n;
  for (i = 0; i < n; i++) {
    d->slots[i].in = etwcap_malloc(DEFLATE_CHUNK_BYTES);
    d->slots[i].out = etwcap_malloc(bound);
    d->slots[i].out_cap = bound;
    if (!d->slots[i].in || !d->slots[i].out)
      return ETWCAP_E_NOMEM;
  }
  return 0;
}

static void free_stream(struct deflate_stream *d)
{
  size_t i;
  unsigned t;
  os_mutex_lock(&d->lock);
  d->stop = 1;
  /* Slots nobody took yet are dropped: after an error or an abort their
   * output would never be written. */
  for (i = 0; d->slots && i < d->nslots; i++)
    if (d->slots[i].state == SLOT_FILLED)
      d->slots[i].state = SLOT_FREE;
  os_cond_broadcast(&d->work);
  os_mutex_unlock(&d->lock);
  for (t = 0; t < d->started; t++)
    os_thread_join(&d->threads[t]);
  for (i = 0; d->slots && i < d->nslots; i++) {
    etwcap_free(d->slots[i].in);
    etwcap_free(d->slots[i].out);
  }
  etwcap_free(d->slots);
  os_cond_destroy(&d->done);
  os_cond_destroy(&d->work);
  os_mutex_destroy(&d->lock);
  etwcap_free(d->result.chunks);
  etwcap_free(d);
}

int deflate_stream_open(struct deflate_stream **out, const struct deflate_params *params)
{
  struct deflate_stream *d = etwcap_calloc(1, sizeof(*d));
  unsigned nthreads = params->threads ? params->threads : os_cpu_count();
  if (!params->threads && nthreads > DEFAULT_MAX_THREADS)
    nthreads = DEFAULT_MAX_THREADS;
  int rc;

  *out = NULL;
  if (!d)
    return ETWCAP_E_NOMEM;
  if (nthreads > MAX_THREADS)
    nthreads = MAX_THREADS;
  d->prm = *params;
  os_mutex_init(&d->lock);
  os_cond_init(&d->work);
  os_cond_init(&d->done);
  rc = alloc_slots(d, (size_t)nthreads * 2 + 1);
  while (!rc && d->started < nthreads) {
    rc = os_thread_create(&d->threads[d->started], worker, d);
    if (!rc)
      d->started++;
  }
  if (rc) {
    free_stream(d);
    return rc;
  }
  *out = d;
  return 0;
}

static int fail(struct deflate_stream *d, int rc)
{
  if (!d->error)
    d->error = rc;
  return d->error;
}

static int add_chunk(struct deflate_stream *d, uint64_t in_len, uint64_t out_len, uint32_t crc)
{
  struct deflate_result *r = &d->result;
  if (etwcap_grow((void **)&r->chunks, &d->chunk_cap, r->chunk_count, sizeof(*r->chunks), 64))
    return fail(d, ETWCAP_E_NOMEM);
  r->chunks[r->chunk_count].in_len = in_len;
  r->chunks[r->chunk_count].out_len = out_len;
  r->chunks[r->chunk_count].crc = crc;
  r->chunk_count++;
  r->in_bytes += in_len;
  r->out_bytes += out_len;
  return 0;
}

static int emit(struct deflate_stream *d, const void *buf, size_t len)
{
  int rc = d->prm.write(d->prm.write_ctx, buf, len);
  return rc ? fail(d, rc) : 0;
}

static int write_slot(struct deflate_stream *d, struct slot *s)
{
  int rc = s->error ? fail(d, s->error) : emit(d, s->out, s->out_len);
  if (!rc)
    rc = add_chunk(d, s->in_len, s->out_len, s->crc);
  if (!rc && d->prm.progress)
    d->prm.progress(d->prm.progress_ctx, d->result.in_bytes, d->result.out_bytes);
  os_mutex_lock(&d->lock);
  s->state = SLOT_FREE;
  os_mutex_unlock(&d->lock);
  d->next_write++;
  return rc;
}

/* Writes finished slots in order until a slot is free (want_free) or, when
 * not, until every filled slot is written.  Returns the free slot. */
static struct slot *write_ready(struct deflate_stream *d, int want_free)
{
  for (;;) {
    struct slot *ready = NULL, *free_slot = NULL;
    size_t i;
    os_mutex_lock(&d->lock);
    for (;;) {
      for (i = 0; i < d->nslots; i++) {
        if (d->slots[i].state == SLOT_DONE && d->slots[i].seq == d->next_write)
          ready = &d->slots[i];
        if (want_free && d->slots[i].state == SLOT_FREE && !free_slot)
          free_slot = &d->slots[i];
      }
      if (ready || free_slot || (!want_free && d->next_write == d->next_fill))
        break;
      os_cond_wait(&d->done, &d->lock);
    }
    os_mutex_unlock(&d->lock);
    if (!ready)
      return free_slot;
    if (write_slot(d, ready))
      return NULL;
  }
}

static void queue_filling(struct deflate_stream *d)
{
  struct slot *s = d->filling;
  d->filling = NULL;
  os_mutex_lock(&d->lock);
  s->seq = d->next_fill++;
  s->state = SLOT_FILLED;
  os_cond_signal(&d->work);
  os_mutex_unlock(&d->lock);
}

int deflate_stream_write(struct deflate_stream *d, const void *buf, size_t len)
{
  const unsigned char *p = buf;
  while (len && !d->error) {
    size_t room;
    if (!d->filling) {
      d->filling = write_ready(d, 1);
      if (!d->filling)
        break; /* a write failed */
      d->filling->in_len = 0;
    }
    room = DEFLATE_CHUNK_BYTES - d->filling->in_len;
    if (room > len)
      room = len;
    memcpy(d->filling->in + d->filling->in_len, p, room);
    d->filling->in_len += room;
    p += room;
    len -= room;
    if (d->filling->in_len == DEFLATE_CHUNK_BYTES)
      queue_filling(d);
  }
  return d->error;
}

/* Queues what is being filled and writes everything queued. */
static int drain(struct deflate_stream *d)
{
  if (d->filling && d->filling->in_len)
    queue_filling(d);
  d->filling = NULL; /* an empty slot stays free */
  if (!d->error)
    write_ready(d, 0);
  return d->error;
}

void deflate_stored_encode(const uint8_t *in, size_t len, uint8_t *out)
{
  while (len) {
    size_t n = len > DEFLATE_STORED_BLOCK_MAX ? DEFLATE_STORED_BLOCK_MAX : len;
    /* RFC 1951 3.2.4: BFINAL 0 and BTYPE 00 in the low bits of a byte whose
     * other bits are padding, then LEN and its complement NLEN. */
    out[0] = 0;
    out[1] = (uint8_t)n;
    out[2] = (uint8_t)(n >> 8);
    out[3] = (uint8_t)~n;
    out[4] = (uint8_t)(~n >> 8);
    memcpy(out + 5, in, n);
    out += 5 + n;
    in += n;
    len -= n;
  }
}

int deflate_stream_store(struct deflate_stream *d, const void *buf, size_t len)
{
  uint64_t size = DEFLATE_STORED_SIZE(len);
  uint8_t *encoded;
  int rc;
  if (drain(d) || len == 0)
    return d->error;
  if (len > DEFLATE_STORE_MAX)
    return fail(d, ETWCAP_E_RANGE);
  encoded = etwcap_malloc((size_t)size);
  if (!encoded)
    return fail(d, ETWCAP_E_NOMEM);
  deflate_stored_encode(buf, len, encoded);
  rc = emit(d, encoded, (size_t)size);
  etwcap_free(encoded);
  if (!rc)
    rc = add_chunk(d, len, size, (uint32_t)crc32(0, buf, (uInt)len));
  return rc;
}

uint32_t deflate_chunks_crc(const struct deflate_chunk *chunks, size_t count)
{
  uLong crc = 0;
  size_t i;
  /* A chunk holds at most DEFLATE_STORE_MAX bytes: z_off_t, 32 bits on
   * Windows, holds its length. */
  for (i = 0; i < count; i++)
    crc = crc32_combine(crc, chunks[i].crc, (z_off_t)chunks[i].in_len);
  return (uint32_t)crc;
}

int deflate_stream_finish(struct deflate_stream *d, struct deflate_result *out)
{
  int rc = drain(d);
  memset(out, 0, sizeof(*out));
  if (!rc)
    rc = emit(d, deflate_seal_final_block, sizeof(deflate_seal_final_block));
  if (!rc) {
    *out = d->result;
    out->out_bytes += sizeof(deflate_seal_final_block);
    out->crc32 = deflate_chunks_crc(out->chunks, out->chunk_count);
    d->result.chunks = NULL; /* the caller owns them now */
  }
  free_stream(d);
  return rc;
}

void deflate_stream_abort(struct deflate_stream *d)
{
  if (d)
    free_stream(d);
}

void deflate_result_release(struct deflate_result *r)
{
  etwcap_free(r->chunks);
  r->chunks = NULL;
  r->chunk_count = 0;
}

int deflate_parallel(const struct deflate_params *params, deflate_read_fn read, void *read_ctx,
                     struct deflate_result *out)
{
  struct deflate_stream *d;
  unsigned char *buf;
  int rc;

  memset(out, 0, sizeof(*out));
  buf = etwcap_malloc(DEFLATE_CHUNK_BYTES);
  if (!buf)
    return ETWCAP_E_NOMEM;
  rc = deflate_stream_open(&d, params);
  while (!rc) {
    size_t got = 0;
    rc = read(read_ctx, buf, DEFLATE_CHUNK_BYTES, &got);
    if (rc || got == 0)
      break;
    rc = deflate_stream_write(d, buf, got);
  }
  etwcap_free(buf);
  if (d && rc)
    deflate_stream_abort(d);
  else if (d)
    rc = deflate_stream_finish(d, out);
  return rc;
}
