/* Re-reads a zip just written and checks it holds exactly the expected
 * members, each with the expected size and CRC-32 (minizip recomputes the CRC
 * while inflating).  Reads through a file_io, like the writer. */
#ifndef ETWCAP_ARCHIVE_VERIFY_H
#define ETWCAP_ARCHIVE_VERIFY_H

#include "file_io.h"

#include <stddef.h>
#include <stdint.h>

struct archive_expect {
  const char *name;
  uint64_t size;
  uint32_t crc32;
};

/* 0, or ETWCAP_E_CORRUPT with `why` naming the member and the mismatch. */
int archive_verify(const struct file_io *io, const char *path,
                   const struct archive_expect *expect, size_t count, char *why,
                   size_t why_size);

#endif
