/* The file operations of everything that writes outputs (the ETL writer, the
 * zip writer and its verifier), as a table with an opaque first argument
 * (minizip's ioapi pattern).  The product uses plain files; tests put a layer
 * in between that fails on demand (short write, ENOSPC on the Nth write,
 * failing rename), which is how the "no half-written output under the final
 * name, inputs intact" promise is tested.
 *
 * Errors are sticky per stream: the first one is kept and reported by close. */
#ifndef ETWCAP_FILE_IO_H
#define ETWCAP_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

struct file_io {
  /* Opens `path` (UTF-8) to read, or to write (created or truncated).
   * Returns a stream, or NULL with *err set to an ETWCAP_E_* code. */
  void *(*open)(void *opaque, const char *path, int for_write, int *err);
  size_t (*read)(void *opaque, void *stream, void *buf, size_t n);
  size_t (*write)(void *opaque, void *stream, const void *buf, size_t n);
  int (*seek)(void *opaque, void *stream, int64_t offset, int whence);
  int64_t (*tell)(void *opaque, void *stream);
  /* The stream's first error so far (0 when none). */
  int (*error)(void *opaque, void *stream);
  /* Flushes and closes; returns the stream's first error, a flush error, or 0. */
  int (*close)(void *opaque, void *stream);
  int (*rename)(void *opaque, const char *from, const char *to);
  int (*remove)(void *opaque, const char *path);
  void *opaque;
};

/* Plain files through src/os_file.h (UTF-8 paths everywhere). */
extern const struct file_io file_io_plain;

/* Fills minizip's zlib_filefunc64_def (pass it as void * to keep minizip's
 * headers out of this one) so minizip does its I/O through `io`. */
void file_io_to_minizip(const struct file_io *io, void *zlib_filefunc64_def);

#endif
