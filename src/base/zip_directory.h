/* A zip's central directory, Zip64 included, read by our own code, and the
 * check of one member (inflate it, count its bytes, compute its CRC-32).
 *
 * Why not minizip's reader: in Debian's minizip 1.1 the Zip64 sizes and
 * offsets are only read when a 32-bit field equals (unsigned long)-1, which is
 * never true where long has 64 bits (Linux), so members over 4 GiB read back
 * as 4294967295 bytes there.  Verifying what we wrote must not depend on
 * that.  Reads go through an etl_io (a file, or memory for tests and
 * fuzzing); every size and offset is bounds-checked. */
#ifndef ETWCAP_ZIP_DIRECTORY_H
#define ETWCAP_ZIP_DIRECTORY_H

#include "etl_io.h"

#include <stddef.h>
#include <stdint.h>

#define ZIP_NAME_MAX 1024
#define ZIP_MAX_ENTRIES 100000

struct zip_entry {
  char name[ZIP_NAME_MAX];
  uint16_t flags, method;
  uint32_t crc32;
  uint64_t compressed_size, uncompressed_size, local_offset;
};

struct zip_directory {
  struct zip_entry *entries;
  size_t count;
};

/* 0, or ETWCAP_E_FORMAT / TRUNCATED / CORRUPT / UNSUPPORTED / NOMEM with a
 * message in why. */
int zip_directory_read(const struct etl_io *io, struct zip_directory *dir, char *why,
                       size_t why_size);
void zip_directory_release(struct zip_directory *dir);

/* Receives the uncompressed bytes of a member, in order.  0 to go on. */
typedef int (*zip_sink_fn)(void *ctx, const void *data, size_t len);

/* Reads entry e's data (stored or deflated), passes the uncompressed bytes to
 * sink (NULL: none) and sets *size and *crc to what it holds. */
int zip_entry_read(const struct etl_io *io, const struct zip_entry *e, zip_sink_fn sink,
                   void *ctx, uint64_t *size, uint32_t *crc, char *why, size_t why_size);
/* zip_entry_read without a sink. */
int zip_entry_measure(const struct etl_io *io, const struct zip_entry *e, uint64_t *size,
                      uint32_t *crc, char *why, size_t why_size);

#endif
