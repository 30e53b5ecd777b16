/* Parallel raw deflate (design in deflate_parallel.h).
 *
 * The calling thread reads chunks into free slots and writes finished slots
 * in order; worker threads compress filled slots.  One mutex guards the slot
 * states and two condition variables wake the workers (work to do) and the
 * caller (a slot finished). */
#include "deflate_parallel.h"

#include "alloc.h"
#include "error.h"
#include "os_thread.h"

#include <string.h>
#include <zlib.h>

#define DICT_BYTES 32768

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_BUSY, SLOT_DONE };

struct slot {
  enum slot_state state;
  uint64_t seq;
  int last;              /* compress with Z_FINISH */
  unsigned char *in;     /* room for the dictionary, ending at DICT_BYTES, then the chunk */
  size_t dict_len, in_len;
  unsigned char *out;
  size_t out_cap, out_len;
  uint32_t crc;
  int error;
};

struct pool {
  os_mutex lock;
  os_cond work;  /* a slot was filled, or stop */
  os_cond done;  /* a slot finished */
  struct slot *slots;
  size_t nslots;
  int level;
  int stop;
};

static int compress_slot(z_stream *zs, struct slot *s)
{
  int flush = s->last ? Z_FINISH : Z_SYNC_FLUSH, rc;
  if (deflateReset(zs) != Z_OK)
    return ETWCAP_E_INTERNAL;
  if (s->dict_len &&
      deflateSetDictionary(zs, s->in + DICT_BYTES - s->dict_len, (uInt)s->dict_len) != Z_OK)
    return ETWCAP_E_INTERNAL;
  zs->next_in = s->in + DICT_BYTES;
  zs->avail_in = (uInt)s->in_len;
  zs->next_out = s->out;
  zs->avail_out = (uInt)s->out_cap;
  rc = deflate(zs, flush);
  /* out_cap is deflateBound plus room for the flush marker: one call suffices. */
  if ((flush == Z_FINISH && rc != Z_STREAM_END) || (flush != Z_FINISH && rc != Z_OK) ||
      zs->avail_in != 0)
    return ETWCAP_E_INTERNAL;
  s->out_len = s->out_cap - zs->avail_out;
  s->crc = (uint32_t)crc32(0L, s->in + DICT_BYTES, (uInt)s->in_len);
  return 0;
}

static void worker(void *arg)
{
  struct pool *p = arg;
  z_stream zs;
  int init_error;
  memset(&zs, 0, sizeof(zs));
  init_error = deflateInit2(&zs, p->level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) ==
                       Z_OK
                   ? 0
                   : ETWCAP_E_NOMEM;
  os_mutex_lock(&p->lock);
  for (;;) {
    struct slot *s = NULL;
    size_t i;
    /* Oldest filled slot first, so the writer is never starved. */
    for (i = 0; i < p->nslots; i++)
      if (p->slots[i].state == SLOT_FILLED && (!s || p->slots[i].seq < s->seq))
        s = &p->slots[i];
    if (!s) {
      if (p->stop)
        break;
      os_cond_wait(&p->work, &p->lock);
      continue;
    }
    s->state = SLOT_BUSY;
    os_mutex_unlock(&p->lock);
    s->error = init_error ? init_error : compress_slot(&zs, s);
    os_mutex_lock(&p->lock);
    s->state = SLOT_DONE;
    os_cond_broadcast(&p->done);
  }
  os_mutex_unlock(&p->lock);
  deflateEnd(&zs);
}

static int alloc_slots(struct pool *p, size_t n)
{
  size_t i;
  uLong bound = compressBound(DEFLATE_CHUNK_BYTES) + 64;
  p->slots = etwcap_calloc(n, sizeof(*p->slots));
  if (!p->slots)
    return ETWCAP_E_NOMEM;
  p->nslots = n;
  for (i = 0; i < n; i++) {
    p->slots[i].in = etwcap_malloc(DICT_BYTES + DEFLATE_CHUNK_BYTES);
    p->slots[i].out = etwcap_malloc(bound);
    p->slots[i].out_cap = bound;
    if (!p->slots[i].in || !p->slots[i].out)
      return ETWCAP_E_NOMEM;
  }
  return 0;
}

static void free_slots(struct pool *p)
{
  size_t i;
  for (i = 0; p->slots && i < p->nslots; i++) {
    etwcap_free(p->slots[i].in);
    etwcap_free(p->slots[i].out);
  }
  etwcap_free(p->slots);
}

/* Keeps the last DICT_BYTES of all input seen so far in `tail`. */
static void update_tail(unsigned char *tail, size_t *tail_len, const unsigned char *data,
                        size_t len)
{
  if (len >= DICT_BYTES) {
    memcpy(tail, data + len - DICT_BYTES, DICT_BYTES);
    *tail_len = DICT_BYTES;
    return;
  }
  if (*tail_len + len > DICT_BYTES) {
    size_t drop = *tail_len + len - DICT_BYTES;
    memmove(tail, tail + drop, *tail_len - drop);
    *tail_len -= drop;
  }
  memcpy(tail + *tail_len, data, len);
  *tail_len += len;
}

/* Reads one chunk into a slot, looping over short reads; the dictionary (the
 * input just before the chunk) goes right in front of it. */
static int fill_slot(const struct deflate_params *prm, struct slot *s, const unsigned char *tail,
                     size_t tail_len, int *eof)
{
  size_t got;
  int rc;
  memcpy(s->in + DICT_BYTES - tail_len, tail, tail_len);
  s->dict_len = tail_len;
  s->in_len = 0;
  s->last = 0;
  while (!*eof && s->in_len < DEFLATE_CHUNK_BYTES) {
    rc = prm->read(prm->read_ctx, s->in + DICT_BYTES + s->in_len,
                   DEFLATE_CHUNK_BYTES - s->in_len, &got);
    if (rc)
      return rc;
    if (got == 0)
      *eof = 1;
    s->in_len += got;
  }
  return 0;
}

static void queue_slot(struct pool *p, struct slot *s, uint64_t *next_fill)
{
  os_mutex_lock(&p->lock);
  s->seq = (*next_fill)++;
  s->state = SLOT_FILLED;
  os_cond_signal(&p->work);
  os_mutex_unlock(&p->lock);
}

/* Waits until the next slot to write is done, or (unless everything is
 * queued) a slot is free to fill. */
static void wait_for_slot(struct pool *p, uint64_t next_write, int want_free,
                          struct slot **ready, struct slot **free_slot)
{
  size_t i;
  os_mutex_lock(&p->lock);
  for (;;) {
    *ready = *free_slot = NULL;
    for (i = 0; i < p->nslots; i++) {
      if (p->slots[i].state == SLOT_DONE && p->slots[i].seq == next_write)
        *ready = &p->slots[i];
      if (want_free && p->slots[i].state == SLOT_FREE && !*free_slot)
        *free_slot = &p->slots[i];
    }
    if (*ready || *free_slot)
      break;
    os_cond_wait(&p->done, &p->lock);
  }
  os_mutex_unlock(&p->lock);
}

static int write_slot(const struct deflate_params *prm, struct pool *p, struct slot *s,
                      struct deflate_result *out)
{
  int rc = s->error ? s->error : prm->write(prm->write_ctx, s->out, s->out_len);
  if (rc)
    return rc;
  out->crc32 = (uint32_t)crc32_combine(out->crc32, s->crc, (z_off_t)s->in_len);
  out->in_bytes += s->in_len;
  out->out_bytes += s->out_len;
  if (prm->progress)
    prm->progress(prm->progress_ctx, out->in_bytes, out->out_bytes);
  os_mutex_lock(&p->lock);
  s->state = SLOT_FREE;
  os_mutex_unlock(&p->lock);
  return 0;
}

int deflate_parallel(const struct deflate_params *prm, struct deflate_result *out)
{
  struct pool p;
  os_thread threads[64];
  unsigned nthreads = prm->threads ? prm->threads : os_cpu_count(), started = 0, t;
  unsigned char *tail = NULL;
  size_t tail_len = 0;
  uint64_t next_fill = 0, next_write = 0;
  int eof = 0, queued_all = 0, rc = 0;

  memset(out, 0, sizeof(*out));
  memset(&p, 0, sizeof(p));
  if (nthreads > 64)
    nthreads = 64;
  p.level = prm->level;
  os_mutex_init(&p.lock);
  os_cond_init(&p.work);
  os_cond_init(&p.done);
  tail = etwcap_malloc(DICT_BYTES);
  rc = tail ? alloc_slots(&p, (size_t)nthreads * 2 + 1) : ETWCAP_E_NOMEM;
  for (t = 0; !rc && t < nthreads; t++) {
    rc = os_thread_create(&threads[t], worker, &p);
    if (!rc)
      started++;
  }

  while (!rc) {
    struct slot *ready, *free_slot;
    wait_for_slot(&p, next_write, !queued_all, &ready, &free_slot);
    if (ready) {
      int last = ready->last;
      rc = write_slot(prm, &p, ready, out);
      next_write++;
      if (last)
        break;
      continue;
    }
    if (eof) {
      /* Input is exhausted: the stream ends with an empty final block. */
      free_slot->in_len = free_slot->dict_len = 0;
      free_slot->last = 1;
      queued_all = 1;
      queue_slot(&p, free_slot, &next_fill);
      continue;
    }
    rc = fill_slot(prm, free_slot, tail, tail_len, &eof);
    if (rc)
      break;
    if (free_slot->in_len == 0)
      continue; /* nothing read: the slot stays free and takes the final block */
    update_tail(tail, &tail_len, free_slot->in + DICT_BYTES, free_slot->in_len);
    queue_slot(&p, free_slot, &next_fill);
  }

  os_mutex_lock(&p.lock);
  p.stop = 1;
  os_cond_broadcast(&p.work);
  os_mutex_unlock(&p.lock);
  for (t = 0; t < started; t++)
    os_thread_join(&threads[t]);
  free_slots(&p);
  etwcap_free(tail);
  os_cond_destroy(&p.done);
  os_cond_destroy(&p.work);
  os_mutex_destroy(&p.lock);
  return rc;
}
