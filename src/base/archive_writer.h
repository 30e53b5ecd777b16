/* Writes a .etl.zip the safe way: into NAME.tmp next to the final name, then
 * re-reads every member and checks its size and CRC-32, and only then renames
 * it over the final name.  Any failure removes the temporary file; the final
 * name is either the old file or the complete new one, never half a zip.  The
 * inputs are only read: deleting them is the caller's decision, after this
 * returned 0.
 *
 * Large members are deflated on all cores (deflate_parallel.h) and stored
 * through minizip's raw mode; Zip64 records are written when a member or the
 * archive needs them. */
#ifndef ETWCAP_ARCHIVE_WRITER_H
#define ETWCAP_ARCHIVE_WRITER_H

#include "file_io.h"
#include "deflate_parallel.h"

#include <stddef.h>
#include <stdint.h>

struct archive_member {
  const char *name;   /* name in the zip, '/'-separated, UTF-8 */
  const char *path;   /* a file to store (UTF-8 path), or NULL ... */
  const void *data;   /* ... bytes in memory */
  size_t size;
};

struct archive_options {
  const struct file_io *io; /* NULL: plain files */
  int level;                   /* zlib level; 0 = 6, the level `zip` uses by default */
  unsigned threads;            /* 0 = one per CPU (/LowPriority passes 1) */
  deflate_progress_fn progress;
  void *progress_ctx;
  int64_t mtime_filetime;      /* entries' time (UTC FILETIME); 0 = now */
};

struct archive_stats {
  uint64_t in_bytes;  /* uncompressed bytes of all members */
  uint64_t zip_bytes; /* size of the zip */
};

/* Writes `count` members to `final_path`.  On error, `why` (if not NULL)
 * receives a message naming the file and what failed. */
int archive_write(const char *final_path, const struct archive_member *members, size_t count,
                  const struct archive_options *options, struct archive_stats *stats,
                  char *why, size_t why_size);

#endif
