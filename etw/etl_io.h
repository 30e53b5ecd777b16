/* The byte source an ETL reader reads from: a small table of functions with
 * an opaque context (minizip's ioapi pattern), so the same reader reads a
 * file, a zip member streamed through minizip, or bytes in memory (tests and
 * fuzzing).  Reads are positional: the reader asks for `len` bytes at an
 * absolute offset; sources that can only stream (zip members) serve forward
 * reads cheaply and backward ones by restarting.
 *
 * Lifetime: an etl_io is a value owned by whoever opened it; etl_io_close
 * releases its context.  A reader borrows it and never closes it. */
#ifndef ETWCAP_ETL_IO_H
#define ETWCAP_ETL_IO_H

#include <stddef.h>
#include <stdint.h>

struct etl_io {
  /* Reads up to `len` bytes at `offset` into buf and sets *got; *got < len
   * only at the end of the input.  Returns 0 or a negative ETWCAP_E_*. */
  int (*read_at)(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got);
  /* Releases ctx (may be NULL). */
  void (*close)(void *ctx);
  void *ctx;
  /* Total size in bytes, or -1 when the source does not know it. */
  int64_t size;
};

/* Opens a file (UTF-8 path) for reading.  ETWCAP_E_NOENT / IO / NOMEM. */
int etl_io_open_file(struct etl_io *io, const char *path);
/* Reads `len` bytes at `data`, which must outlive the io; nothing is copied. */
int etl_io_open_memory(struct etl_io *io, const void *data, size_t len);
void etl_io_close(struct etl_io *io);

/* Reads exactly len bytes at offset: ETWCAP_E_TRUNCATED when the input ends
 * first (then *got tells how many were there). */
int etl_io_read_exact(const struct etl_io *io, uint64_t offset, void *buf, size_t len,
                      size_t *got);

#endif
