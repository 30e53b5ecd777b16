/* A positional byte source: a small table of functions with an opaque
 * context, so the same reader reads a file or bytes in memory (tests and
 * fuzzing).  The zip container reads archives through it, the ETL reader
 * reads traces through it, the PE reader images.
 *
 * Lifetime: a byte_source is a value owned by whoever opened it;
 * byte_source_close releases its context. */
#ifndef ETWCAP_BYTE_SOURCE_H
#define ETWCAP_BYTE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct byte_source {
  /* Reads up to `len` bytes at `offset` into buf and sets *got; *got < len
   * only at the end of the input.  Returns 0 or a negative ETWCAP_E_*. */
  int (*read_at)(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got);
  void (*close)(void *ctx); /* releases ctx (may be NULL) */
  void *ctx;
  int64_t size; /* total size in bytes, or -1 when unknown */
};

/* A regular file (UTF-8 path; os_fopen_regular: a FIFO or device is
 * refused, never waited on): ETWCAP_E_NOENT / ISDIR / NOTFILE / IO / NOMEM. */
int byte_source_open_file(struct byte_source *s, const char *path);
/* The same, and the identity of the file opened (os_file.h), for a caller
 * that deletes it later only if it is still that file. */
struct os_file_id;
int byte_source_open_file_id(struct byte_source *s, const char *path, struct os_file_id *id);
/* `len` bytes at `data`, which must outlive the source; nothing is copied. */
int byte_source_open_memory(struct byte_source *s, const void *data, size_t len);
void byte_source_close(struct byte_source *s);

/* Reads exactly len bytes at offset: ETWCAP_E_TRUNCATED when the input ends
 * first (then *got, when not NULL, tells how many were there). */
int byte_source_read_exact(const struct byte_source *s, uint64_t offset, void *buf, size_t len,
                           size_t *got);

#endif
