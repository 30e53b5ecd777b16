/* Raw deflate of one stream on several threads, for the zip writer.
 *
 * The input is cut into chunks that workers compress independently.  Each
 * chunk is primed with the last 32 KiB of the chunk before it as a preset
 * dictionary, so matches still reach back across chunk edges and the size
 * stays within a fraction of a percent of single-threaded deflate.  Chunks end
 * with a sync flush (byte aligned, not final) and the stream ends with an
 * empty final block, so the concatenation is one valid raw deflate stream
 * that any inflater reads.  The CRC-32 is computed per chunk and joined with
 * crc32_combine.  Memory is bounded: a few chunks per thread. */
#ifndef ETWCAP_DEFLATE_PARALLEL_H
#define ETWCAP_DEFLATE_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#define DEFLATE_CHUNK_BYTES (1024 * 1024)

/* Reads up to `cap` bytes; *got = 0 at the end.  Returns 0 or ETWCAP_E_*. */
typedef int (*deflate_read_fn)(void *ctx, void *buf, size_t cap, size_t *got);
/* Writes all `len` bytes.  Returns 0 or ETWCAP_E_*. */
typedef int (*deflate_write_fn)(void *ctx, const void *buf, size_t len);
/* Called after each chunk is written, for progress (may be NULL). */
typedef void (*deflate_progress_fn)(void *ctx, uint64_t in_bytes, uint64_t out_bytes);

struct deflate_result {
  uint64_t in_bytes;
  uint64_t out_bytes;
  uint32_t crc32;
};

struct deflate_params {
  int level;        /* zlib level 1..9 */
  unsigned threads; /* workers; 0 = one per CPU */
  deflate_read_fn read;
  void *read_ctx;
  deflate_write_fn write;
  void *write_ctx;
  deflate_progress_fn progress;
  void *progress_ctx;
};

/* Compresses everything `read` yields into `write`.  The first error (of a
 * read, a write, or zlib) stops the work and is returned; nothing further is
 * written after it. */
int deflate_parallel(const struct deflate_params *p, struct deflate_result *out);

#endif
