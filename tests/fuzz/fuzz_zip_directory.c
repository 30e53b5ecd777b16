/* libFuzzer target: the zip central-directory reader and member check
 * (src/base/zip/zip_directory.c), in two modes chosen by the first byte.
 * Raw (any first byte but 'Z'): the input is the archive.
 * Structured ('Z'): the rest of the input drives a builder that writes a
 * well-formed archive (PKWARE APPNOTE 6.3.10: local headers 4.3.7, data
 * descriptors 4.3.9, central headers 4.3.12, Zip64 end record and locator
 * 4.3.14-4.3.15, end record 4.3.16, Zip64 extra field 4.5.3) with names,
 * extra fields and comments of any length up to 65,535 bytes, a long one
 * made from a few input bytes (a run of one byte), and local names equal
 * to the central ones or not.  Random bytes rarely get past the end record
 * and the directory's bounds checks, and never to a 60 KiB name; this mode
 * starts every input there.  An archive the builder made without a
 * deliberate flaw must be read back whole, with its sizes and CRC-32s. */
#include "src/base/byte_source.h"
#include "src/base/zip/zip_directory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEMBERS_MAX 4
#define FIELD_MAX 65535u
#define OUT_MAX (4u << 20)

/* --- the builder's input and output ---------------------------------------- */

struct input {
  const uint8_t *p;
  size_t n, pos;
};

static unsigned get8(struct input *in)
{
  return in->pos < in->n ? in->p[in->pos++] : 0;
}

static unsigned get16(struct input *in)
{
  unsigned lo = get8(in);
  return lo | get8(in) << 8;
}

/* A field length: small, a byte's worth, any 16-bit value, or at the
 * 16-bit limit. */
static size_t pick_len(struct input *in)
{
  unsigned k = get8(in);
  switch (k & 3) {
  case 0: return k >> 2;
  case 1: return get8(in);
  case 2: return get16(in);
  default: return FIELD_MAX - (k >> 2);
  }
}

/* len bytes: a run of one byte, or the input's next bytes (zeros once it
 * is used up).  A name never gets a NUL from a run (the reader refuses
 * one; the input's own bytes may still bring one). */
static void fill(struct input *in, uint8_t *out, size_t len, int is_name)
{
  unsigned mode = get8(in);
  size_t i;
  if (mode & 1) {
    uint8_t c = (uint8_t)get8(in);
    if (!c && is_name)
      c = 'n';
    memset(out, c, len);
    return;
  }
  for (i = 0; i < len; i++)
    out[i] = (uint8_t)get8(in);
}

struct out {
  uint8_t *p;
  size_t len;
  int full;
};

static void put(struct out *o, const void *b, size_t n)
{
  if (o->full || n > OUT_MAX - o->len) {
    o->full = 1;
    return;
  }
  memcpy(o->p + o->len, b, n);
  o->len += n;
}

static void put16(struct out *o, uint64_t v)
{
  uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
  put(o, b, 2);
}

static void put32(struct out *o, uint64_t v)
{
  put16(o, v & 0xFFFF);
  put16(o, v >> 16 & 0xFFFF);
}

static void put64(struct out *o, uint64_t v)
{
  put32(o, v & 0xFFFFFFFFu);
  put32(o, v >> 32);
}

static void put_run(struct out *o, uint8_t c, size_t n)
{
  if (o->full || n > OUT_MAX - o->len) {
    o->full = 1;
    return;
  }
  memset(o->p + o->len, c, n);
  o->len += n;
}

/* --- one archive ------------------------------------------------------------ */

struct member {
  uint8_t *name; /* FIELD_MAX bytes */
  size_t name_len;
  uint16_t flags, method;
  int zip64;
  uint32_t crc;
  uint64_t usize, csize, offset;
  size_t central_extra, comment;
  uint8_t fill_byte;
};

/* An extra field of len bytes: the Zip64 field (tag 1) when given, then
 * one block of filler (tag 0xCAFE) or, when it has no room for a block
 * header, as many zero bytes (4.5.1: a reader skips blocks it does not
 * know). */
static void put_extra(struct out *o, size_t len, const struct member *m, int zip64, int *valid)
{
  size_t z = zip64 ? 28 : 0;
  if (len < z)
    len = z;
  if (len > FIELD_MAX) {
    len = FIELD_MAX;
    *valid = 0;
  }
  if (zip64) {
    put16(o, 1);
    put16(o, 24);
    put64(o, m->usize);
    put64(o, m->csize);
    put64(o, m->offset);
  }
  len -= z;
  if (len >= 4) {
    put16(o, 0xCAFE);
    put16(o, len - 4);
    len -= 4;
  } else if (len) {
    *valid = 0; /* a block cut short: the reader may refuse it */
  }
  put_run(o, m->fill_byte, len);
}

static uint8_t out_buf[OUT_MAX];
static uint8_t names[MEMBERS_MAX][FIELD_MAX];
static uint8_t local_name[FIELD_MAX];
static uint8_t content[FIELD_MAX];
static uint8_t packed[FIELD_MAX + FIELD_MAX / 8 + 64];

/* Deflates content[0..n) into packed; its length, or 0 when zlib fails. */
static size_t deflate_raw(size_t n)
{
  z_stream zs;
  size_t got;
  memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return 0;
  zs.next_in = content;
  zs.avail_in = (uInt)n;
  zs.next_out = packed;
  zs.avail_out = sizeof(packed);
  got = deflate(&zs, Z_FINISH) == Z_STREAM_END ? sizeof(packed) - zs.avail_out : 0;
  deflateEnd(&zs);
  return got;
}

static int has_nul(const uint8_t *p, size_t n)
{
  return memchr(p, '\0', n) != NULL;
}

static int is_ascii(const uint8_t *p, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (p[i] & 0x80)
      return 0;
  return 1;
}

/* The local header, the name it gives (the central one or another), its
 * extra field, the data and its descriptor. */
static void put_local(struct out *o, struct input *in, struct member *m, int *valid)
{
  unsigned how = get8(in);
  size_t len = m->name_len, extra = pick_len(in), n;
  const uint8_t *data;
  int descriptor = m->flags & 0x08;
  memcpy(local_name, m->name, m->name_len);
  if ((how & 7) == 6 && len) { /* one byte differs */
    local_name[get16(in) % len] ^= (uint8_t)(1 + get8(in) % 255);
    *valid = 0;
  } else if ((how & 7) == 7) { /* another length, same leading bytes */
    size_t other = pick_len(in);
    if (other > len)
      memset(local_name + len, m->name[len ? len - 1 : 0] | 1, other - len);
    *valid &= other == len;
    len = other;
  }
  put32(o, 0x04034b50u);
  put16(o, m->zip64 ? 45 : 20);
  put16(o, m->flags);
  put16(o, m->method);
  put32(o, 0); /* time, date */
  put32(o, descriptor ? 0 : m->crc);
  put32(o, descriptor ? 0 : m->zip64 ? 0xFFFFFFFFu : m->csize);
  put32(o, descriptor ? 0 : m->zip64 ? 0xFFFFFFFFu : m->usize);
  put16(o, len);
  put16(o, extra < FIELD_MAX ? extra : FIELD_MAX);
  put(o, local_name, len);
  put_extra(o, extra, m, 0, valid);
  data = m->method ? packed : content;
  n = (size_t)m->csize;
  put(o, data, n);
  if (descriptor) {
    put32(o, 0x08074b50u);
    put32(o, m->crc);
    if (m->zip64) {
      put64(o, m->csize);
      put64(o, m->usize);
    } else {
      put32(o, m->csize);
      put32(o, m->usize);
    }
  }
}

static void put_central(struct out *o, const struct member *m, int *valid)
{
  size_t extra = m->central_extra;
  put32(o, 0x02014b50u);
  put16(o, 0x0314); /* made by: Unix, 2.0 */
  put16(o, m->zip64 ? 45 : 20);
  put16(o, m->flags);
  put16(o, m->method);
  put32(o, 0);
  put32(o, m->crc);
  put32(o, m->zip64 ? 0xFFFFFFFFu : m->csize);
  put32(o, m->zip64 ? 0xFFFFFFFFu : m->usize);
  put16(o, m->name_len);
  if (m->zip64 && extra < 28)
    extra = 28;
  put16(o, extra < FIELD_MAX ? extra : FIELD_MAX);
  put16(o, m->comment);
  put16(o, 0);
  put16(o, 0);
  put32(o, 0);
  put32(o, m->zip64 ? 0xFFFFFFFFu : m->offset);
  put(o, m->name, m->name_len);
  put_extra(o, extra, m, m->zip64, valid);
  put_run(o, m->fill_byte, m->comment);
}

/* Builds an archive from the input into o; *count members, m[] their
 * expected contents; *valid stays 1 when no flaw was put in on purpose. */
static void build(struct input *in, struct out *o, struct member *m, size_t *count, int *valid)
{
  size_t n = 1 + get8(in) % MEMBERS_MAX, i, cd_start, cd_size, comment;
  unsigned end = get8(in);
  int zip64_end = end & 1;
  *valid = 1;
  for (i = 0; i < n; i++) {
    unsigned kind = get8(in);
    size_t size;
    m[i].name = names[i];
    m[i].name_len = pick_len(in);
    fill(in, m[i].name, m[i].name_len, 1);
    if (!m[i].name_len || has_nul(m[i].name, m[i].name_len))
      *valid = 0;
    m[i].flags = (kind & 2 ? 0x08 : 0) |
                 (kind & 4 && is_ascii(m[i].name, m[i].name_len) ? 0x0800 : 0);
    m[i].method = kind & 8 ? 8 : 0;
    m[i].zip64 = (kind & 0x30) == 0x30;
    m[i].fill_byte = (uint8_t)get8(in);
    size = pick_len(in);
    fill(in, content, size, 0);
    m[i].usize = size;
    m[i].crc = (uint32_t)crc32(0, content, (uInt)size);
    m[i].csize = m[i].method ? deflate_raw(size) : size;
    if (m[i].method && !m[i].csize) {
      m[i].method = 0;
      m[i].csize = size;
    }
    if (kind & 0x40) { /* a wrong CRC-32 in both headers */
      m[i].crc ^= 1;
      *valid = 0;
    }
    m[i].central_extra = pick_len(in);
    m[i].comment = pick_len(in);
    m[i].offset = o->len;
    put_local(o, in, &m[i], valid);
  }
  cd_start = o->len;
  for (i = 0; i < n; i++)
    put_central(o, &m[i], valid);
  cd_size = o->len - cd_start;
  if (zip64_end) {
    put32(o, 0x06064b50u);
    put64(o, 44);
    put16(o, 45);
    put16(o, 45);
    put32(o, 0);
    put32(o, 0);
    put64(o, n);
    put64(o, n);
    put64(o, cd_size);
    put64(o, cd_start);
    put32(o, 0x07064b50u);
    put32(o, 0);
    put64(o, cd_start + cd_size);
    put32(o, 1);
  }
  /* A locator signature where one would be looked for (the directory's
   * last bytes came from the input) makes the archive ambiguous. */
  if (!zip64_end && o->len >= 20 && !memcmp(o->p + o->len - 20, "PK\x06\x07", 4))
    *valid = 0;
  comment = end & 2 ? pick_len(in) : 0;
  put32(o, 0x06054b50u);
  put16(o, 0);
  put16(o, 0);
  put16(o, zip64_end ? 0xFFFF : n);
  put16(o, zip64_end ? 0xFFFF : n);
  put32(o, zip64_end ? 0xFFFFFFFFu : cd_size);
  put32(o, zip64_end ? 0xFFFFFFFFu : cd_start);
  put16(o, comment);
  put_run(o, 'z', comment); /* no signature in it */
  *count = n;
  if (o->full)
    *valid = 0;
}

/* --- the reader over the bytes ------------------------------------------------ */

/* Reads the directory and streams up to 16 members.  With want (the
 * builder's flawless archive), everything must come back as built. */
static void read_archive(const uint8_t *bytes, size_t size, const struct member *want,
                         size_t want_count)
{
  struct byte_source io;
  struct zip_directory dir;
  char why[256];
  size_t i;
  int rc;
  if (byte_source_open_memory(&io, bytes, size) != 0)
    return;
  rc = zip_directory_read(&io, &dir, why, sizeof(why));
  if (want && (rc != 0 || dir.count != want_count))
    abort();
  if (rc == 0) {
    for (i = 0; i < dir.count && i < 16; i++) {
      uint64_t n;
      uint32_t crc;
      rc = zip_entry_measure(&io, &dir.entries[i], &n, &crc, why, sizeof(why));
      if (want && (rc != 0 || n != want[i].usize || crc != want[i].crc ||
                   strlen(dir.entries[i].name) != want[i].name_len ||
                   memcmp(dir.entries[i].name, want[i].name, want[i].name_len)))
        abort();
    }
    zip_directory_release(&dir);
  }
  byte_source_close(&io);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct input in;
  struct out o;
  struct member m[MEMBERS_MAX];
  size_t count = 0;
  int valid = 0;
  if (size < 1 || data[0] != 'Z') {
    read_archive(data, size, NULL, 0);
    return 0;
  }
  in.p = data + 1;
  in.n = size - 1;
  in.pos = 0;
  o.p = out_buf;
  o.len = 0;
  o.full = 0;
  memset(m, 0, sizeof(m));
  build(&in, &o, m, &count, &valid);
  read_archive(o.p, o.len, valid ? m : NULL, count);
  return 0;
}
