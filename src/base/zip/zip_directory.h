/* The one zip reader: a zip's central directory, Zip64 included, read and
 * checked by our own code, and the members' data streamed out with their
 * CRC-32 and sizes checked as they are read.  Every read path (dump, info,
 * replay, merge /ImageIDsOnly, the verification of what we wrote) goes
 * through it; it knows nothing of what the members hold.
 *
 * What it accepts is what both Python's zipfile and Info-ZIP's `unzip -t`
 * accept (PKWARE APPNOTE 6.3.x): an archive comment up to 65,535 bytes,
 * bytes before the archive (a self-extractor's stub whose offsets count it,
 * as `zip -A` leaves them) or after it, folder entries, data descriptors, Zip64 end records and
 * Zip64 extra fields in local and central headers.  What it refuses is
 * ETWCAP_E_FORMAT (no end-of-directory record), ETWCAP_E_CORRUPT (bounds,
 * signatures, overlapping members, names that differ between the local and
 * the central header, a CRC-32 or size mismatch; the message names the
 * member) or ETWCAP_E_UNSUPPORTED (only an encrypted member or a compression
 * method other than stored and deflated).
 *
 * Why not minizip's reader: in Debian's minizip 1.1 the Zip64 sizes and
 * offsets are only read when a 32-bit field equals (unsigned long)-1, which is
 * never true where long has 64 bits (Linux), so members over 4 GiB read back
 * as 4294967295 bytes there. */
#ifndef ETWCAP_ZIP_DIRECTORY_H
#define ETWCAP_ZIP_DIRECTORY_H

#include "src/base/byte_source.h"

#include <stddef.h>
#include <stdint.h>

#define ZIP_NAME_MAX 1024
#define ZIP_MAX_ENTRIES 1000000

struct zip_entry {
  const char *name; /* as stored (NUL-terminated; the directory owns it) */
  uint16_t flags, method;
  uint32_t crc32;
  uint32_t dos_time;     /* last modified: MS-DOS date << 16 | time (4.4.6) */
  const uint8_t *extra;  /* the central header's extra fields (4.5; the directory owns them) */
  uint16_t extra_len;
  uint16_t local_extra_len; /* the local header's: the bytes just before data_offset */
  uint64_t compressed_size, uncompressed_size;
  uint64_t local_offset; /* where its local header is in the source */
  uint64_t data_offset;  /* where its data starts in the source */
  int shadowed;          /* a later entry has the same name */
};

struct zip_directory {
  struct zip_entry *entries;
  size_t count;
  char *names; /* every entry's name and extra fields, one block */
  char *comment; /* the archive comment: comment_len bytes, then a NUL */
  size_t comment_len;
};

/* 0, or ETWCAP_E_FORMAT / TRUNCATED / CORRUPT / NOMEM with a message in
 * why.  Checks the records and every member's place (inside the source,
 * before the directory, no two members sharing bytes); the members' local
 * headers and data are checked as they are read. */
int zip_directory_read(const struct byte_source *src, struct zip_directory *dir, char *why,
                       size_t why_size);
void zip_directory_release(struct zip_directory *dir);

/* 1 when a later entry has the same name as entry i: readers that go by
 * name take the last one, as extracting the archive would leave it. */
int zip_directory_is_shadowed(const struct zip_directory *dir, size_t i);

/* ETWCAP_E_UNSUPPORTED with a message when entry e is encrypted or uses a
 * method other than stored (0) or deflated (8); else 0. */
int zip_entry_supported(const struct zip_entry *e, char *why, size_t why_size);

/* One member's bytes, streamed: opened on its local header (checked against
 * the directory), inflated when deflated, and checked at its end: exactly
 * the directory's size and CRC-32, else ETWCAP_E_CORRUPT naming the member.
 * Forward only; the caller restarts by closing and opening again. */
struct zip_stream;
int zip_stream_open(struct zip_stream **out, const struct byte_source *src,
                    const struct zip_entry *e, char *why, size_t why_size);
/* Reads up to len bytes; *got = 0 only at the member's end, once its size
 * and CRC-32 have been checked. */
int zip_stream_read(struct zip_stream *s, void *buf, size_t len, size_t *got, char *why,
                    size_t why_size);
void zip_stream_close(struct zip_stream *s);

/* Receives the uncompressed bytes of a member, in order.  0 to go on. */
typedef int (*zip_sink_fn)(void *ctx, const void *data, size_t len);

/* Reads entry e whole through the stream above, passes its bytes to sink
 * (NULL: none) and sets *size and *crc to what it held. */
int zip_entry_read(const struct byte_source *src, const struct zip_entry *e, zip_sink_fn sink,
                   void *ctx, uint64_t *size, uint32_t *crc, char *why, size_t why_size);
/* zip_entry_read without a sink. */
int zip_entry_measure(const struct byte_source *src, const struct zip_entry *e, uint64_t *size,
                      uint32_t *crc, char *why, size_t why_size);

#endif
