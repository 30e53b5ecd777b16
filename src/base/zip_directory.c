/* Reading a zip's central directory and measuring its members (see
 * zip_directory.h).  Layouts: PKWARE APPNOTE 4.3.7 (local header), 4.3.12
 * (central header), 4.3.14-4.3.16 (Zip64 end records, end of directory),
 * 4.5.3 (Zip64 extra field). */
#include "zip_directory.h"

#include "alloc.h"
#include "error.h"
#include "etl_bytes.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define EOCD_SIG 0x06054b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP64_EOCD_SIG 0x06064b50u
#define CENTRAL_SIG 0x02014b50u
#define LOCAL_SIG 0x04034b50u
#define EOCD_SIZE 22u
#define MAX_COMMENT 65535u
#define CHUNK (1u << 20)

static int bad(int rc, char *why, size_t why_size, const char *what, uint64_t offset)
{
  snprintf(why, why_size, "%s at byte %llu", what, (unsigned long long)offset);
  return rc;
}

static int read_at(const struct etl_io *io, uint64_t offset, void *buf, size_t len)
{
  size_t got;
  return etl_io_read_exact(io, offset, buf, len, &got);
}

/* The end-of-directory record: the last EOCD signature in the tail. */
static int find_eocd(const struct etl_io *io, uint8_t *tail, size_t *tail_len,
                     uint64_t *tail_start, size_t *eocd)
{
  uint64_t size = (uint64_t)io->size;
  size_t n = size < EOCD_SIZE + MAX_COMMENT ? (size_t)size : EOCD_SIZE + MAX_COMMENT, i;
  if (size < EOCD_SIZE)
    return ETWCAP_E_FORMAT;
  *tail_start = size - n;
  if (read_at(io, *tail_start, tail, n))
    return ETWCAP_E_IO;
  *tail_len = n;
  for (i = n - EOCD_SIZE + 1; i-- > 0;)
    if (etl_le32(tail + i) == EOCD_SIG) {
      *eocd = i;
      return 0;
    }
  return ETWCAP_E_FORMAT;
}

/* Where the central directory is and how many entries it holds. */
static int locate_directory(const struct etl_io *io, uint64_t *cd_offset, uint64_t *cd_size,
                            uint64_t *entries, char *why, size_t why_size)
{
  uint8_t *tail = etwcap_malloc(EOCD_SIZE + MAX_COMMENT), rec[56];
  uint64_t tail_start = 0;
  size_t tail_len = 0, e = 0;
  int rc;
  if (!tail)
    return ETWCAP_E_NOMEM;
  rc = find_eocd(io, tail, &tail_len, &tail_start, &e);
  if (rc) {
    etwcap_free(tail);
    return bad(rc, why, why_size, rc == ETWCAP_E_IO ? "read error" : "no end-of-directory record",
               tail_start);
  }
  *entries = etl_le16(tail + e + 10);
  *cd_size = etl_le32(tail + e + 12);
  *cd_offset = etl_le32(tail + e + 16);
  /* Zip64: the locator sits just before the EOCD and points at the record. */
  if ((*entries == 0xFFFF || *cd_size == 0xFFFFFFFFu || *cd_offset == 0xFFFFFFFFu) && e >= 20 &&
      etl_le32(tail + e - 20) == ZIP64_LOCATOR_SIG) {
    uint64_t at = etl_le64(tail + e - 20 + 8);
    if (read_at(io, at, rec, sizeof(rec)) || etl_le32(rec) != ZIP64_EOCD_SIG) {
      etwcap_free(tail);
      return bad(ETWCAP_E_CORRUPT, why, why_size, "bad Zip64 end-of-directory record", at);
    }
    *entries = etl_le64(rec + 32);
    *cd_size = etl_le64(rec + 40);
    *cd_offset = etl_le64(rec + 48);
  }
  etwcap_free(tail);
  if (*entries > ZIP_MAX_ENTRIES || *cd_offset + *cd_size < *cd_offset ||
      *cd_offset + *cd_size > (uint64_t)io->size)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "central directory out of bounds", *cd_offset);
  return 0;
}

/* Applies a Zip64 extra field (tag 1) to the fields the fixed part marked. */
static int apply_zip64(const uint8_t *extra, size_t len, struct zip_entry *z)
{
  size_t p = 0;
  while (p + 4 <= len) {
    uint16_t tag = etl_le16(extra + p), size = etl_le16(extra + p + 2);
    const uint8_t *d = extra + p + 4;
    size_t q = 0;
    if (p + 4 + size > len)
      return ETWCAP_E_CORRUPT;
    if (tag == 1) {
      if (z->uncompressed_size == 0xFFFFFFFFu) {
        if (q + 8 > size)
          return ETWCAP_E_CORRUPT;
        z->uncompressed_size = etl_le64(d + q);
        q += 8;
      }
      if (z->compressed_size == 0xFFFFFFFFu) {
        if (q + 8 > size)
          return ETWCAP_E_CORRUPT;
        z->compressed_size = etl_le64(d + q);
        q += 8;
      }
      if (z->local_offset == 0xFFFFFFFFu) {
        if (q + 8 > size)
          return ETWCAP_E_CORRUPT;
        z->local_offset = etl_le64(d + q);
      }
    }
    p += 4 + size;
  }
  return 0;
}

int zip_directory_read(const struct etl_io *io, struct zip_directory *dir, char *why,
                       size_t why_size)
{
  uint64_t cd_offset, cd_size, entries, i;
  uint8_t *cd = NULL;
  size_t p = 0;
  int rc;

  dir->entries = NULL;
  dir->count = 0;
  if (io->size < 0)
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "unknown size", 0);
  rc = locate_directory(io, &cd_offset, &cd_size, &entries, why, why_size);
  if (rc)
    return rc;
  if (cd_size > (256u << 20))
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "central directory over 256 MiB", cd_offset);
  cd = etwcap_malloc(cd_size ? (size_t)cd_size : 1);
  dir->entries = etwcap_calloc(entries ? (size_t)entries : 1, sizeof(*dir->entries));
  if (!cd || !dir->entries) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  if (read_at(io, cd_offset, cd, (size_t)cd_size)) {
    rc = bad(ETWCAP_E_TRUNCATED, why, why_size, "central directory cut short", cd_offset);
    goto cleanup;
  }
  for (i = 0; i < entries; i++) {
    struct zip_entry *z = &dir->entries[i];
    size_t name_len, extra_len, comment_len;
    if (p + 46 > cd_size || etl_le32(cd + p) != CENTRAL_SIG) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "bad central directory entry", cd_offset + p);
      goto cleanup;
    }
    z->flags = etl_le16(cd + p + 8);
    z->method = etl_le16(cd + p + 10);
    z->crc32 = etl_le32(cd + p + 16);
    z->compressed_size = etl_le32(cd + p + 20);
    z->uncompressed_size = etl_le32(cd + p + 24);
    name_len = etl_le16(cd + p + 28);
    extra_len = etl_le16(cd + p + 30);
    comment_len = etl_le16(cd + p + 32);
    z->local_offset = etl_le32(cd + p + 42);
    if (p + 46 + name_len + extra_len + comment_len > cd_size || name_len >= ZIP_NAME_MAX) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "central directory entry too long", cd_offset + p);
      goto cleanup;
    }
    memcpy(z->name, cd + p + 46, name_len);
    z->name[name_len] = '\0';
    if (apply_zip64(cd + p + 46 + name_len, extra_len, z) != 0) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "bad Zip64 extra field", cd_offset + p);
      goto cleanup;
    }
    p += 46 + name_len + extra_len + comment_len;
    dir->count++;
  }
cleanup:
  etwcap_free(cd);
  if (rc)
    zip_directory_release(dir);
  return rc;
}

void zip_directory_release(struct zip_directory *dir)
{
  etwcap_free(dir->entries);
  dir->entries = NULL;
  dir->count = 0;
}

int zip_entry_measure(const struct etl_io *io, const struct zip_entry *e, uint64_t *size,
                      uint32_t *crc, char *why, size_t why_size)
{
  return zip_entry_read(io, e, NULL, NULL, size, crc, why, why_size);
}

int zip_entry_read(const struct etl_io *io, const struct zip_entry *e, zip_sink_fn sink,
                   void *ctx, uint64_t *size, uint32_t *crc, char *why, size_t why_size)
{
  uint8_t local[30], *in = NULL, *out = NULL;
  uint64_t pos, left = e->compressed_size;
  z_stream zs;
  int rc = 0, zrc = Z_OK;

  *size = 0;
  *crc = (uint32_t)crc32(0, NULL, 0);
  if (read_at(io, e->local_offset, local, sizeof(local)) || etl_le32(local) != LOCAL_SIG)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "bad local header", e->local_offset);
  pos = e->local_offset + 30 + etl_le16(local + 26) + etl_le16(local + 28);
  if (pos + left < pos || pos + left > (uint64_t)io->size)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member data out of bounds", pos);
  if (e->method != 0 && e->method != 8)
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "unknown compression method", pos);
  memset(&zs, 0, sizeof(zs));
  in = etwcap_malloc(CHUNK);
  out = etwcap_malloc(CHUNK);
  if (!in || !out || (e->method == 8 && inflateInit2(&zs, -MAX_WBITS) != Z_OK)) {
    etwcap_free(in);
    etwcap_free(out);
    return ETWCAP_E_NOMEM;
  }
  while (left && !rc && zrc != Z_STREAM_END) {
    size_t n = left < CHUNK ? (size_t)left : CHUNK;
    if (read_at(io, pos, in, n)) {
      rc = bad(ETWCAP_E_TRUNCATED, why, why_size, "member data cut short", pos);
      break;
    }
    pos += n;
    left -= n;
    if (e->method == 0) {
      *crc = (uint32_t)crc32(*crc, in, (uInt)n);
      *size += n;
      if (sink && (rc = sink(ctx, in, n)) != 0)
        break;
      continue;
    }
    zs.next_in = in;
    zs.avail_in = (uInt)n;
    do {
      zs.next_out = out;
      zs.avail_out = CHUNK;
      zrc = inflate(&zs, Z_NO_FLUSH);
      if (zrc != Z_OK && zrc != Z_STREAM_END && zrc != Z_BUF_ERROR) {
        rc = bad(ETWCAP_E_CORRUPT, why, why_size, "member data does not inflate", pos);
        break;
      }
      *crc = (uint32_t)crc32(*crc, out, (uInt)(CHUNK - zs.avail_out));
      *size += CHUNK - zs.avail_out;
      if (sink && (rc = sink(ctx, out, CHUNK - zs.avail_out)) != 0)
        break;
    } while (zs.avail_out == 0 && zrc != Z_STREAM_END);
  }
  if (!rc && e->method == 8 && zrc != Z_STREAM_END)
    rc = bad(ETWCAP_E_CORRUPT, why, why_size, "member data ends inside the deflate stream", pos);
  if (e->method == 8)
    inflateEnd(&zs);
  etwcap_free(in);
  etwcap_free(out);
  return rc;
}
