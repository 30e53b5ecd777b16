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

#include "deflate_seal.h"

#include <libdeflate.h>
#include <string.h>
#include <zlib.h>

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_BUSY, SLOT_DONE };

struct slot {
  enum slot_state state;
  uint64_t seq;
  int last;              /* the empty slot that ends the stream */
  unsigned char *in;
  size_t in_len;
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

/* A chunk becomes a whole deflate stream, then is sealed so the next chunk
 * can follow it; the slot that ends the stream holds the empty final block.
 * The seal's walk proves the chunk decodes to its own length. */
static int compress_slot(struct libdeflate_compressor *c, struct slot *s)
{
  size_t len;
  if (s->last) {
    memcpy(s->out, deflate_seal_final_block, sizeof(deflate_seal_final_block));
    s->out_len = sizeof(deflate_seal_final_block);
    s->crc = 0;
    return 0;
  }
  /* out_cap is the compressor's bound plus DEFLATE_SEAL_EXTRA: never short. */
  len = libdeflate_deflate_compress(c, s->in, s->in_len, s->out,
                                    s->out_cap - DEFLATE_SEAL_EXTRA);
  if (len == 0 || deflate_seal(s->out, len, s->out_cap, s->in_len, &s->out_len) != 0)
    return ETWCAP_E_INTERNAL;
  s->crc = libdeflate_crc32(0, s->in, s->in_len);
  return 0;
}

static void worker(void *arg)
{
  struct pool *p = arg;
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(p->level);
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
    s->error = c ? compress_slot(c, s) : ETWCAP_E_NOMEM;
    os_mutex_lock(&p->lock);
    s->state = SLOT_DONE;
    os_cond_broadcast(&p->done);
  }
  os_mutex_unlock(&p->lock);
  libdeflate_free_compressor(c);
}

static int alloc_slots(struct pool *p, size_t n)
{
  size_t i;
  size_t bound = libdeflate_deflate_compress_bound(NULL, DEFLATE_CHUNK_BYTES) + DEFLATE_SEAL_EXTRA;
  p->slots = etwcap_calloc(n, sizeof(*p->slots));
  if (!p->slots)
    return ETWCAP_E_NOMEM;
  p->nslots = n;
  for (i = 0; i < n; i++) {
    p->slots[i].in = etwcap_malloc(DEFLATE_CHUNK_BYTES);
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

/* Reads one chunk into a slot, looping over short reads. */
static int fill_slot(const struct deflate_params *prm, struct slot *s, int *eof)
{
  size_t got;
  int rc;
  s->in_len = 0;
  s->last = 0;
  while (!*eof && s->in_len < DEFLATE_CHUNK_BYTES) {
    rc = prm->read(prm->read_ctx, s->in + s->in_len, DEFLATE_CHUNK_BYTES - s->in_len, &got);
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
  rc = alloc_slots(&p, (size_t)nthreads * 2 + 1);
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
      free_slot->in_len = 0;
      free_slot->last = 1;
      queued_all = 1;
      queue_slot(&p, free_slot, &next_fill);
      continue;
    }
    rc = fill_slot(prm, free_slot, &eof);
    if (rc)
      break;
    if (free_slot->in_len == 0)
      continue; /* nothing read: the slot stays free and takes the final block */
    queue_slot(&p, free_slot, &next_fill);
  }

  os_mutex_lock(&p.lock);
  p.stop = 1;
  os_cond_broadcast(&p.work);
  os_mutex_unlock(&p.lock);
  for (t = 0; t < started; t++)
    os_thread_join(&threads[t]);
  free_slots(&p);
  os_cond_destroy(&p.done);
  os_cond_destroy(&p.work);
  os_mutex_destroy(&p.lock);
  return rc;
}
