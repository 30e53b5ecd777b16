/* Raw deflate of one stream on several threads, for the zip writer.
 *
 * The input is cut into chunks that workers compress independently with
 * libdeflate, each into a whole deflate stream.  Each stream is then sealed
 * (deflate_seal.h): its last block loses the final bit and an empty stored
 * block ends it on a byte boundary; the stream ends with an empty final
 * block, so the concatenation is one valid raw deflate stream that any
 * inflater reads.  Chunks are not primed with the previous chunk's tail
 * (libdeflate's compressor takes no preset dictionary), so matches do not
 * reach across chunk edges; chunks are large enough that this costs well
 * under a percent of size.  The CRC-32 is computed per chunk and joined with
 * zlib's crc32_combine.  Memory is bounded: a few chunks per thread. */
#ifndef ETWCAP_DEFLATE_PARALLEL_H
#define ETWCAP_DEFLATE_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#define DEFLATE_CHUNK_BYTES (4 * 1024 * 1024)

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
  int level;        /* libdeflate level 1..12; 6 trades like zip -6 */
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
