/* Re-reads a zip just written and checks it holds exactly the expected
 * members, each inflating to the expected size and CRC-32.  Uses our own
 * Zip64-aware directory reader (zip_directory.h), so members over 4 GiB are
 * checked correctly on every OS.
 *
 * A member written by deflate_parallel comes with its chunk map: each chunk
 * starts on a byte boundary and decodes on its own, so the chunks are read
 * back from the file and decoded on all cores, each checked against its own
 * size and CRC-32, and the map against the directory's sizes and CRC-32
 * (the member's CRC-32 is the chunks' joined with zlib's crc32_combine,
 * which the deflate tests check against a CRC of the whole).  Other members
 * are inflated as one stream.  A stop asked for (cancel.h) ends the check
 * with ETWCAP_E_CANCELLED. */
#ifndef ETWCAP_ARCHIVE_VERIFY_H
#define ETWCAP_ARCHIVE_VERIFY_H

#include "src/base/zip/deflate_parallel.h"

#include <stddef.h>
#include <stdint.h>

struct archive_expect {
  const char *name;
  uint64_t size;
  uint32_t crc32;
  const struct deflate_chunk *chunks; /* NULL: inflate it as one stream */
  size_t chunk_count;
};

/* 0, or ETWCAP_E_CORRUPT (or the read error) with `why` naming the member
 * and the mismatch.  `threads`: decoders for chunked members; 0 = one per
 * CPU. */
int archive_verify(const char *path, const struct archive_expect *expect, size_t count,
                   unsigned threads, char *why, size_t why_size);

#endif
