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
 * zlib's crc32_combine.  Memory is bounded: 2n + 1 slots of about 8 MiB
 * (a chunk in, its compressed bound out) for n workers, one per CPU up to 8
 * unless the caller says how many.
 *
 * Because every chunk starts on a byte boundary and needs nothing before it,
 * each one can be decoded on its own (followed by an empty final block):
 * the chunk map the stream returns lets a verifier check a member on all
 * cores (archive_verify.h). */
#ifndef ETWCAP_DEFLATE_PARALLEL_H
#define ETWCAP_DEFLATE_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#define DEFLATE_CHUNK_BYTES (4 * 1024 * 1024)
#define DEFLATE_STORE_MAX (1u << 30)

/* Reads up to `cap` bytes; *got = 0 at the end.  Returns 0 or ETWCAP_E_*. */
typedef int (*deflate_read_fn)(void *ctx, void *buf, size_t cap, size_t *got);
/* Writes all `len` bytes.  Returns 0 or ETWCAP_E_*. */
typedef int (*deflate_write_fn)(void *ctx, const void *buf, size_t len);
/* Called after each chunk is written, for progress (may be NULL). */
typedef void (*deflate_progress_fn)(void *ctx, uint64_t in_bytes, uint64_t out_bytes);

/* One piece of the stream: `out_len` bytes that start on a byte boundary,
 * end with a non-final block and decode, on their own, to `in_len` bytes
 * with CRC-32 `crc`. */
struct deflate_chunk {
  uint64_t in_len;
  uint64_t out_len;
  uint32_t crc;
};

struct deflate_result {
  uint64_t in_bytes;
  uint64_t out_bytes; /* the chunks and the final block */
  uint32_t crc32;
  struct deflate_chunk *chunks; /* in stream order; the caller frees it */
  size_t chunk_count;
};

struct deflate_params {
  int level;        /* libdeflate level 1..12; 6 trades like zip -6 */
  unsigned threads; /* workers; 0 = one per CPU, at most 8 */
  int low_priority; /* workers run below normal priority (/LowPriority) */
  deflate_write_fn write;
  void *write_ctx;
  deflate_progress_fn progress;
  void *progress_ctx;
};

/* --- pushing bytes ----------------------------------------------------------
 * The caller's thread copies what it writes into chunks and writes finished
 * chunks out, in order, through params->write; workers compress.  Errors
 * are sticky: the first one (of a write or of a worker) is returned by every
 * later call, and nothing more is written after it. */
struct deflate_stream;

int deflate_stream_open(struct deflate_stream **out, const struct deflate_params *params);
int deflate_stream_write(struct deflate_stream *d, const void *buf, size_t len);
/* Writes `len` bytes (at most DEFLATE_STORE_MAX) as stored blocks, after
 * everything written before: DEFLATE_STORED_SIZE(len) bytes of output, whose
 * data a caller that knows where they landed may later overwrite with other
 * bytes of the same length (deflate_stored_encode), updating the chunk's
 * CRC. */
int deflate_stream_store(struct deflate_stream *d, const void *buf, size_t len);
/* Ends the stream with the empty final block, fills *out and frees d. */
int deflate_stream_finish(struct deflate_stream *d, struct deflate_result *out);
/* Stops the workers and frees d without ending the stream. */
void deflate_stream_abort(struct deflate_stream *d);

/* --- pulling bytes ---------------------------------------------------------
 * Compresses everything `read` yields (on the caller's thread) into
 * params->write: deflate_stream_* in a loop. */
int deflate_parallel(const struct deflate_params *params, deflate_read_fn read, void *read_ctx,
                     struct deflate_result *out);

void deflate_result_release(struct deflate_result *r);

/* Stored blocks hold at most 65,535 bytes each, behind a 5-byte header. */
#define DEFLATE_STORED_BLOCK_MAX 65535u
#define DEFLATE_STORED_SIZE(len)                                                             \
  ((uint64_t)(len) + 5u * (((uint64_t)(len) + DEFLATE_STORED_BLOCK_MAX - 1u) /               \
                           DEFLATE_STORED_BLOCK_MAX))

/* Encodes in[0..len) as non-final stored blocks into out, which holds
 * DEFLATE_STORED_SIZE(len) bytes. */
void deflate_stored_encode(const uint8_t *in, size_t len, uint8_t *out);

/* The CRC-32 of the bytes the chunks decode to, from their CRCs. */
uint32_t deflate_chunks_crc(const struct deflate_chunk *chunks, size_t count);

#endif
