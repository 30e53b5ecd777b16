/* ETL files inside zip archives (.etl.zip from PerfView or etwcap, and any
 * zip holding .etl members), read through the base layer's zip reader
 * (zip_directory.h) without extracting anything to disk: a member is
 * streamed through a bounded buffer and offered to the ETL reader as a byte
 * source.  Every member's size and CRC-32 is checked: the others' when the
 * archive is opened, an ETL member's as it streams (ETWCAP_E_CORRUPT naming
 * it).  Of members sharing a name the last one counts, as extracting the
 * archive would leave it.
 *
 * Member names are sanitised for display (no absolute paths, no "..", no
 * control characters); sizes are bounded before anything is read.
 * Lifetime: the byte source of a member is valid until the next
 * etl_zip_next_etl call or etl_zip_close. */
#ifndef ETWCAP_ETL_ZIP_H
#define ETWCAP_ETL_ZIP_H

#include "src/base/byte_source.h"

#include <stddef.h>
#include <stdint.h>

/* Largest member accepted (declared uncompressed size). */
#define ETL_ZIP_MAX_MEMBER_SIZE (UINT64_C(1) << 40)

struct etl_zip;

/* 1 when the 4 bytes at p start a zip archive ("PK\3\4" or an empty "PK\5\6"). */
int etl_zip_magic(const uint8_t *p, size_t len);
/* 1 when io holds a zip archive: it starts like one, or its end holds a
 * zip directory that reads (an archive behind a self-extractor's stub). */
int etl_zip_detect(const struct byte_source *io);
int etl_zip_detect_memory(const void *data, size_t len);

/* Opens an archive from a file (UTF-8 path) or from memory (not copied).
 * On failure *out may still be set so etl_zip_error can be read; free it
 * with etl_zip_close. */
int etl_zip_open_file(struct etl_zip **out, const char *path);
int etl_zip_open_memory(struct etl_zip **out, const void *data, size_t len);
void etl_zip_close(struct etl_zip *z);

/* Advances to the next member whose name ends in ".etl" (the first one on
 * the first call): 1 with its sanitised name in `name`, 0 when there are no
 * more, < 0 on error. */
int etl_zip_next_etl(struct etl_zip *z, char *name, size_t cap);
/* Goes straight to the k-th (0-based) ".etl" member, as k + 1 calls of
 * etl_zip_next_etl would, without streaming the members before it: for a
 * reader that has proven those already (replay opens each member of one
 * archive on a handle of its own).  Same returns. */
int etl_zip_next_etl_at(struct etl_zip *z, unsigned k, char *name, size_t cap);
/* A byte source reading the current member.  Forward reads stream; a read
 * before the current position restarts the member. */
int etl_zip_member_io(struct etl_zip *z, struct byte_source *io);
/* Reads the current member to its end if the reader stopped short and
 * checks its size and CRC-32 (etl_zip_next_etl does it too). */
int etl_zip_finish_member(struct etl_zip *z);

const char *etl_zip_error(const struct etl_zip *z);

/* Sanitises a member name for display in place (exposed for tests). */
void etl_zip_sanitize_name(char *name);

#endif
