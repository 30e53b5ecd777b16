/* Verification of a freshly written zip (see archive_verify.h). */
#include "src/base/zip/archive_verify.h"

#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/cancel.h"
#include "src/base/error.h"
#include "src/base/os/os_thread.h"
#include "src/base/zip/deflate_seal.h"
#include "src/base/zip/zip_directory.h"

#include <libdeflate.h>
#include <stdio.h>
#include <string.h>

#define MAX_DECODERS 64

/* --- a chunked member, decoded chunk by chunk on all cores ----------------- */

struct chunk_check {
  const char *path;
  const struct archive_expect *e;
  const uint64_t *offsets; /* where each chunk starts in the file */
  os_mutex lock;
  size_t next;     /* the next chunk to take */
  size_t bad;      /* the first chunk that failed to decode */
  int rc;          /* what the first failure was (a chunk's, or a decoder's start) */
  int chunk_failed;
};

/* Decodes one chunk from `in` (its bytes, then room for the final block)
 * into `out` and checks its size and CRC-32. */
static int decode_chunk(struct libdeflate_decompressor *dec, const struct deflate_chunk *c,
                        uint8_t *in, uint8_t *out)
{
  size_t in_used = 0, out_got = 0;
  /* The chunk ends with a non-final block on a byte boundary: an empty
   * final block after it makes it a whole stream. */
  memcpy(in + c->out_len, deflate_seal_final_block, sizeof(deflate_seal_final_block));
  if (libdeflate_deflate_decompress_ex(dec, in, (size_t)c->out_len + 2, out, (size_t)c->in_len,
                                      &in_used, &out_got) != LIBDEFLATE_SUCCESS ||
      in_used != c->out_len + 2 || out_got != c->in_len ||
      libdeflate_crc32(0, out, out_got) != c->crc)
    return ETWCAP_E_CORRUPT;
  return 0;
}

/* Takes the next chunk, or returns 0 when none is left, one failed or the
 * user stopped the work. */
static int take_chunk(struct chunk_check *k, size_t *i)
{
  int more;
  os_mutex_lock(&k->lock);
  if (!k->rc && cancel_requested())
    k->rc = ETWCAP_E_CANCELLED;
  more = !k->rc && k->next < k->e->chunk_count;
  if (more)
    *i = k->next++;
  os_mutex_unlock(&k->lock);
  return more;
}

/* Keeps the first chunk that failed (the lowest), for the message. */
static void record_chunk_failure(struct chunk_check *k, size_t i, int rc)
{
  os_mutex_lock(&k->lock);
  if (!k->chunk_failed || i < k->bad) {
    k->rc = rc;
    k->bad = i;
    k->chunk_failed = 1;
  }
  os_mutex_unlock(&k->lock);
}

/* A decoder that could not start (no memory, the file not reopened). */
static void record_start_failure(struct chunk_check *k, int rc)
{
  os_mutex_lock(&k->lock);
  if (!k->rc)
    k->rc = rc;
  os_mutex_unlock(&k->lock);
}

/* Grows *buf to at least `need` bytes. */
static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
  uint8_t *grown;
  if (need <= *cap)
    return 0;
  grown = etwcap_realloc(*buf, need);
  if (!grown)
    return ETWCAP_E_NOMEM;
  *buf = grown;
  *cap = need;
  return 0;
}

static void decoder_thread(void *arg)
{
  struct chunk_check *k = arg;
  struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
  struct byte_source src;
  uint8_t *in = NULL, *out = NULL;
  size_t in_cap = 0, out_cap = 0, i;
  int rc = dec ? byte_source_open_file(&src, k->path) : ETWCAP_E_NOMEM, opened = !rc;

  if (rc)
    record_start_failure(k, rc);
  while (!rc && take_chunk(k, &i)) {
    const struct deflate_chunk *c = &k->e->chunks[i];
    rc = reserve(&in, &in_cap, (size_t)c->out_len + 2);
    if (!rc)
      rc = reserve(&out, &out_cap, c->in_len ? (size_t)c->in_len : 1);
    if (!rc)
      rc = byte_source_read_exact(&src, k->offsets[i], in, (size_t)c->out_len, NULL);
    if (!rc)
      rc = decode_chunk(dec, c, in, out);
    if (rc)
      record_chunk_failure(k, i, rc == ETWCAP_E_TRUNCATED ? ETWCAP_E_CORRUPT : rc);
  }
  if (opened)
    byte_source_close(&src);
  etwcap_free(in);
  etwcap_free(out);
  libdeflate_free_decompressor(dec);
}

/* The chunk map must tile the member: its chunks, then the final block. */
static int check_map(const struct byte_source *io, const struct zip_entry *z,
                     const struct archive_expect *e, uint64_t *offsets, char *why,
                     size_t why_size)
{
  uint64_t at = 0, decoded = 0;
  uint8_t tail[2];
  size_t i;
  for (i = 0; i < e->chunk_count; i++) {
    offsets[i] = z->data_offset + at;
    at += e->chunks[i].out_len;
    decoded += e->chunks[i].in_len;
  }
  if (z->method != 8 || at + 2 != z->compressed_size || decoded != e->size ||
      deflate_chunks_crc(e->chunks, e->chunk_count) != e->crc32) {
    snprintf(why, why_size, "member '%s' is not the %llu deflated bytes that were written",
             e->name, (unsigned long long)at + 2);
    return ETWCAP_E_CORRUPT;
  }
  if (byte_source_read_exact(io, z->data_offset + at, tail, 2, NULL) != 0 ||
      memcmp(tail, deflate_seal_final_block, 2) != 0) {
    snprintf(why, why_size, "member '%s' does not end with its final block", e->name);
    return ETWCAP_E_CORRUPT;
  }
  return 0;
}

static int check_chunks(const char *path, const struct byte_source *io,
                        const struct zip_entry *z, const struct archive_expect *e,
                        unsigned threads, char *why, size_t why_size)
{
  struct chunk_check k;
  os_thread t[MAX_DECODERS];
  unsigned n = threads ? threads : os_cpu_count(), started = 0, i;
  uint64_t *offsets = etwcap_calloc(e->chunk_count ? e->chunk_count : 1, sizeof(*offsets));
  int rc = offsets ? check_map(io, z, e, offsets, why, why_size) : ETWCAP_E_NOMEM;

  if (rc) {
    etwcap_free(offsets);
    return rc;
  }
  memset(&k, 0, sizeof(k));
  k.path = path;
  k.e = e;
  k.offsets = offsets;
  os_mutex_init(&k.lock);
  if (n > MAX_DECODERS)
    n = MAX_DECODERS;
  if (n > e->chunk_count)
    n = e->chunk_count ? (unsigned)e->chunk_count : 1;
  /* The calling thread decodes too; the others join it. */
  for (i = 1; i < n && os_thread_create(&t[started], decoder_thread, &k) == 0; i++)
    started++;
  decoder_thread(&k);
  for (i = 0; i < started; i++)
    os_thread_join(&t[i]);
  os_mutex_destroy(&k.lock);
  if (k.chunk_failed && k.rc == ETWCAP_E_CORRUPT)
    snprintf(why, why_size, "member '%s' does not read back: chunk %lu of %lu at offset %llu "
             "does not decode to its %llu bytes with CRC %08lx", e->name,
             (unsigned long)k.bad + 1, (unsigned long)e->chunk_count,
             (unsigned long long)offsets[k.bad], (unsigned long long)e->chunks[k.bad].in_len,
             (unsigned long)e->chunks[k.bad].crc);
  else if (k.rc)
    snprintf(why, why_size, "cannot read member '%s' back: %s", e->name, etwcap_strerror(k.rc));
  etwcap_free(offsets);
  return k.rc;
}

/* --- any member ------------------------------------------------------------ */

static int check_member(const char *path, const struct byte_source *io,
                        const struct zip_entry *z, const struct archive_expect *e,
                        unsigned threads, char *why, size_t why_size)
{
  char detail[256];
  uint64_t size;
  uint32_t crc;
  int rc;
  if (strcmp(z->name, e->name) != 0 || z->uncompressed_size != e->size || z->crc32 != e->crc32) {
    snprintf(why, why_size,
             "member '%s' is listed as '%s' (%llu bytes, CRC %08lx), expected %llu bytes, "
             "CRC %08lx",
             e->name, z->name, (unsigned long long)z->uncompressed_size, (unsigned long)z->crc32,
             (unsigned long long)e->size, (unsigned long)e->crc32);
    return ETWCAP_E_CORRUPT;
  }
  if (e->chunks)
    return check_chunks(path, io, z, e, threads, why, why_size);
  rc = zip_entry_measure(io, z, &size, &crc, detail, sizeof(detail));
  if (rc || size != e->size || crc != e->crc32) {
    snprintf(why, why_size, "member '%s' does not read back as its %llu bytes with CRC %08lx%s%s",
             e->name, (unsigned long long)e->size, (unsigned long)e->crc32, rc ? ": " : "",
             rc ? detail : "");
    return rc ? rc : ETWCAP_E_CORRUPT;
  }
  return 0;
}

int archive_verify(const char *path, const struct archive_expect *expect, size_t count,
                   unsigned threads, char *why, size_t why_size)
{
  struct byte_source io;
  struct zip_directory dir;
  char detail[256];
  size_t i;
  int rc = byte_source_open_file(&io, path);
  if (rc) {
    snprintf(why, why_size, "cannot reopen '%s' to verify it: %s", path, etwcap_strerror(rc));
    return rc;
  }
  rc = zip_directory_read(&io, &dir, detail, sizeof(detail));
  if (rc) {
    snprintf(why, why_size, "'%s' does not read back as a zip: %s", path, detail);
    byte_source_close(&io);
    return ETWCAP_E_CORRUPT;
  }
  if (dir.count != count) {
    snprintf(why, why_size, "'%s' lists %lu members, %lu were written", path,
             (unsigned long)dir.count, (unsigned long)count);
    rc = ETWCAP_E_CORRUPT;
  }
  for (i = 0; i < count && !rc; i++)
    rc = check_member(path, &io, &dir.entries[i], &expect[i], threads, why, why_size);
  zip_directory_release(&dir);
  byte_source_close(&io);
  return rc;
}
