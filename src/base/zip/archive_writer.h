/* Writes a .etl.zip the safe way: into a temporary file next to the final
 * name, then re-reads every member and checks its size and CRC-32
 * (archive_verify.h), and only then renames it over the final name.  Any
 * failure removes the temporary file; the final name is either the old file
 * or the complete new one, never half a zip.  The inputs are only read:
 * deleting them is the caller's decision, after this returned 0.
 *
 * Members are deflated on all cores (deflate_parallel.h) and stored through
 * minizip's raw mode; Zip64 records are written when a member or the archive
 * needs them.  A member can be produced while it is compressed: the merge
 * writes the merged ETL straight into the zip (deflate_sink.h). */
#ifndef ETWCAP_ARCHIVE_WRITER_H
#define ETWCAP_ARCHIVE_WRITER_H

#include "src/base/file_io.h"
#include "src/base/zip/deflate_parallel.h"

#include <stddef.h>
#include <stdint.h>

/* Writes a member's bytes through `io`, as a writer writes a file:
 * deflate_sink.h says what it may do (open `path` once, write, rewrite its
 * first write, close).  `path` is the zip's final name, for messages.
 * Returns 0 or ETWCAP_E_*, with a message in why. */
typedef int (*archive_produce_fn)(void *ctx, const struct file_io *io, const char *path,
                                  char *why, size_t why_size);

struct archive_member {
  const char *name;   /* name in the zip, '/'-separated, UTF-8 */
  const char *path;   /* a file to store (UTF-8 path), or NULL ... */
  const void *data;   /* ... bytes in memory, or NULL ... */
  size_t size;
  archive_produce_fn produce; /* ... bytes a producer writes while they are zipped */
  void *produce_ctx;
  /* What a rewritten archive keeps of a member (all zero: nothing).  The
   * time is MS-DOS date << 16 | time (PKWARE APPNOTE 4.4.6; 0: the
   * archive's mtime_filetime).  The extra fields (APPNOTE 4.5) go to the
   * central and the local header; a Zip64 field among them (tag 1) is left
   * out, the writer writes its own where the sizes need one. */
  uint32_t dos_time;
  const void *extra, *local_extra;
  size_t extra_size, local_extra_size;
};
/* (name must stay valid until the archive is committed or aborted: the
 * verification reads the members back by it.)  A name ending in '/' is a
 * folder entry: it holds no bytes (path, data and produce are NULL). */

struct archive_options {
  const struct file_io *io; /* NULL: plain files */
  int level;                   /* libdeflate level; 0 = 6, which trades as `zip -6` */
  unsigned threads;            /* compressors and verifiers; 0 = one per CPU
                                  (/LowPriority passes 1) */
  int low_priority;            /* those threads below normal priority */
  deflate_progress_fn progress;
  void *progress_ctx;
  int64_t mtime_filetime;      /* entries' time (UTC FILETIME); 0 = now */
  const char *comment;         /* the archive comment, or NULL: none; valid
                                  until commit (minizip writes it up to its
                                  first NUL) */
};

struct archive_stats {
  uint64_t in_bytes;  /* uncompressed bytes of all members */
  uint64_t zip_bytes; /* size of the zip */
};

/* Step by step: open, add members (each may depend on what the ones before
 * it did), then commit (close, verify, rename) or abort (remove the
 * temporary file).  Every call that fails leaves a message in `why`; after
 * a failed archive_add the caller aborts.  Commit and abort free the
 * archive. */
struct archive;
int archive_open(struct archive **out, const char *final_path,
                 const struct archive_options *options, char *why, size_t why_size);
/* *bytes (when not NULL) receives the member's uncompressed size. */
int archive_add(struct archive *a, const struct archive_member *m, uint64_t *bytes, char *why,
                size_t why_size);
int archive_commit(struct archive *a, struct archive_stats *stats, char *why, size_t why_size);
void archive_abort(struct archive *a);

/* The steps above at once: writes `count` members to `final_path`.  On error, `why` (if not NULL)
 * receives a message naming the file and what failed. */
int archive_write(const char *final_path, const struct archive_member *members, size_t count,
                  const struct archive_options *options, struct archive_stats *stats,
                  char *why, size_t why_size);

#endif
