/* Re-reads a zip just written and checks it holds exactly the expected
 * members, each inflating to the expected size and CRC-32.  Uses our own
 * Zip64-aware directory reader (zip_directory.h), so members over 4 GiB are
 * checked correctly on every OS. */
#ifndef ETWCAP_ARCHIVE_VERIFY_H
#define ETWCAP_ARCHIVE_VERIFY_H

#include <stddef.h>
#include <stdint.h>

struct archive_expect {
  const char *name;
  uint64_t size;
  uint32_t crc32;
};

/* 0, or ETWCAP_E_CORRUPT (or the read error) with `why` naming the member
 * and the mismatch. */
int archive_verify(const char *path, const struct archive_expect *expect, size_t count,
                   char *why, size_t why_size);

#endif
