/* The zip reader (see zip_directory.h).  Layouts: PKWARE APPNOTE 6.3.10
 * 4.3.7 (local header), 4.3.9 (data descriptor), 4.3.12 (central header),
 * 4.3.14-4.3.16 (Zip64 end record and locator, end of directory), 4.4.4
 * (general purpose flags), 4.5.3 (Zip64 extra field).  Where the
 * specification leaves room, it accepts what both Python's zipfile and
 * `unzip -t` accept: a stub before the archive whose offsets do not count
 * it is refused (unzip warns; `zip -A` repairs it), as are members sharing
 * bytes. */
#include "src/base/zip/zip_directory.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define EOCD_SIG 0x06054b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP64_EOCD_SIG 0x06064b50u
#define CENTRAL_SIG 0x02014b50u
#define LOCAL_SIG 0x04034b50u
#define EOCD_SIZE 22u
#define ZIP64_LOCATOR_SIZE 20u
#define ZIP64_EOCD_SIZE 56u
#define CENTRAL_SIZE 46u
#define LOCAL_SIZE 30u
#define MAX_COMMENT 65535u
#define MAX_DIRECTORY (256u << 20)
#define CHUNK (256u * 1024u)

/* A buffer for n bytes, at most CHUNK and at least 1: a small member gets
 * a small one (one large allocation per member is most of the time taken
 * by an archive of thousands of small members). */
static size_t chunk_for(uint64_t n)
{
  return n < CHUNK ? (size_t)(n ? n : 1) : CHUNK;
}

#define FLAG_ENCRYPTED 0x0001u
#define FLAG_UTF8 0x0800u
#define FLAG_STRONG_ENCRYPTION 0x0040u
#define FLAG_MASKED_DIRECTORY 0x2000u

static uint16_t le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
  return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Messages show a member's name up to 200 bytes (%.200s): a name may hold
 * 65,535, and what is wrong with the member must still fit after it. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int bad(int rc, char *why, size_t why_size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, why_size, fmt, ap);
  va_end(ap);
  return rc;
}

static int read_at(const struct byte_source *src, uint64_t offset, void *buf, size_t len)
{
  return byte_source_read_exact(src, offset, buf, len, NULL);
}

/* --- the end records -------------------------------------------------------- */

struct directory_place {
  uint64_t start;   /* where the central directory is in the source */
  uint64_t size;
  uint64_t entries;
  uint64_t shift;   /* bytes before the archive: added to every offset */
  uint64_t comment_at;
  size_t comment_len;
};

/* The end-of-directory record: the last signature in the tail, with its
 * whole record and comment after it (bytes after the comment are tolerated,
 * as both reference readers do). */
static int find_eocd(const struct byte_source *src, uint8_t *eocd, uint64_t *eocd_pos,
                     char *why, size_t why_size)
{
  uint64_t size = (uint64_t)src->size, tail_start;
  size_t n = size < EOCD_SIZE + MAX_COMMENT ? (size_t)size : EOCD_SIZE + MAX_COMMENT, i;
  uint8_t *tail;
  if (size < EOCD_SIZE)
    return bad(ETWCAP_E_FORMAT, why, why_size, "too short to be a zip archive (%llu bytes)",
               (unsigned long long)size);
  tail = etwcap_malloc(n);
  if (!tail)
    return ETWCAP_E_NOMEM;
  tail_start = size - n;
  if (read_at(src, tail_start, tail, n)) {
    etwcap_free(tail);
    return bad(ETWCAP_E_IO, why, why_size, "cannot read the end of the archive");
  }
  for (i = n - EOCD_SIZE + 1; i-- > 0;)
    if (le32(tail + i) == EOCD_SIG) {
      memcpy(eocd, tail + i, EOCD_SIZE);
      *eocd_pos = tail_start + i;
      etwcap_free(tail);
      if (le16(eocd + 20) > n - i - EOCD_SIZE)
        return bad(ETWCAP_E_CORRUPT, why, why_size, "the archive comment (%u bytes) runs past "
                   "the end of the file", (unsigned)le16(eocd + 20));
      return 0;
    }
  etwcap_free(tail);
  return bad(ETWCAP_E_FORMAT, why, why_size, "no end-of-central-directory record");
}

static int locate_directory(const struct byte_source *src, struct directory_place *at,
                            char *why, size_t why_size)
{
  uint8_t eocd[EOCD_SIZE] = { 0 }, loc[ZIP64_LOCATOR_SIZE], rec[ZIP64_EOCD_SIZE];
  uint64_t eocd_pos = 0, end, cd_offset;
  uint32_t disk, cd_disk;
  uint64_t entries_here;
  int rc = find_eocd(src, eocd, &eocd_pos, why, why_size), zip64 = 0;
  if (rc)
    return rc;
  disk = le16(eocd + 4);
  cd_disk = le16(eocd + 6);
  entries_here = le16(eocd + 8);
  at->entries = le16(eocd + 10);
  at->size = le32(eocd + 12);
  cd_offset = le32(eocd + 16);
  end = eocd_pos;
  at->comment_at = eocd_pos + EOCD_SIZE;
  at->comment_len = le16(eocd + 20);
  /* Zip64: a locator just before the end record, the Zip64 end record just
   * before the locator (4.3.14, 4.3.15). */
  if (eocd_pos >= ZIP64_LOCATOR_SIZE && !read_at(src, eocd_pos - ZIP64_LOCATOR_SIZE, loc,
                                                  sizeof(loc)) &&
      le32(loc) == ZIP64_LOCATOR_SIG) {
    uint64_t rec_pos = eocd_pos - ZIP64_LOCATOR_SIZE - ZIP64_EOCD_SIZE;
    if (le32(loc + 4) != 0 || le32(loc + 16) > 1)
      return bad(ETWCAP_E_CORRUPT, why, why_size, "the archive spans several disks");
    if (eocd_pos >= ZIP64_LOCATOR_SIZE + ZIP64_EOCD_SIZE &&
        !read_at(src, rec_pos, rec, sizeof(rec)) && le32(rec) == ZIP64_EOCD_SIG) {
      zip64 = 1;
      disk = le32(rec + 16);
      cd_disk = le32(rec + 20);
      entries_here = le64(rec + 24);
      at->entries = le64(rec + 32);
      at->size = le64(rec + 40);
      cd_offset = le64(rec + 48);
      end = rec_pos;
      if (le64(loc + 8) != cd_offset + at->size)
        return bad(ETWCAP_E_CORRUPT, why, why_size,
                   "the Zip64 locator points at byte %llu, not at the Zip64 end record",
                   (unsigned long long)le64(loc + 8));
    }
  }
  if (!zip64 && (at->entries == 0xFFFF || at->size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu))
    return bad(ETWCAP_E_CORRUPT, why, why_size,
               "the end record defers to a Zip64 end record that is not there");
  if (disk != 0 || cd_disk != 0 || entries_here != at->entries)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "the archive spans several disks");
  if (at->size > end || cd_offset > end - at->size)
    return bad(ETWCAP_E_CORRUPT, why, why_size,
               "the central directory (%llu bytes at %llu) does not fit before its end record",
               (unsigned long long)at->size, (unsigned long long)cd_offset);
  at->start = end - at->size;
  at->shift = at->start - cd_offset;
  /* Bytes before the archive (a self-extractor's stub) are fine when the
   * offsets count them (`zip -A`); when they do not, unzip -t calls the
   * archive damaged and so do we. */
  if (at->shift)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "%llu bytes before the archive that its offsets "
               "do not count (repair it with zip -A)", (unsigned long long)at->shift);
  /* Every entry takes at least a central header: a count the directory
   * cannot hold is refused before anything is allocated for it. */
  if (at->entries > ZIP_MAX_ENTRIES || at->size > MAX_DIRECTORY ||
      at->entries > at->size / CENTRAL_SIZE)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "the central directory is too large "
               "(%llu entries, %llu bytes)", (unsigned long long)at->entries,
               (unsigned long long)at->size);
  return 0;
}

/* --- the central directory -------------------------------------------------- */

/* Applies a Zip64 extra field (tag 1) to the fields the fixed part marked
 * 0xFFFFFFFF, in the order 4.5.3 gives; every extra field must fit. */
static int apply_extra(const uint8_t *extra, size_t len, struct zip_entry *z)
{
  size_t p = 0;
  while (p + 4 <= len) {
    uint16_t tag = le16(extra + p), size = le16(extra + p + 2);
    const uint8_t *d = extra + p + 4;
    size_t q = 0;
    if (size > len - p - 4)
      return -1;
    if (tag == 1) {
      uint64_t *field[3];
      size_t k, n = 0;
      if (z->uncompressed_size == 0xFFFFFFFFu)
        field[n++] = &z->uncompressed_size;
      if (z->compressed_size == 0xFFFFFFFFu)
        field[n++] = &z->compressed_size;
      if (z->local_offset == 0xFFFFFFFFu)
        field[n++] = &z->local_offset;
      for (k = 0; k < n; k++, q += 8) {
        if (q + 8 > size)
          return -1;
        *field[k] = le64(d + q);
      }
    }
    p += 4 + size;
  }
  return 0;
}

/* One central header at cd + p (cd_size bytes in all): fills z, puts its
 * name, a NUL and its extra fields at name_out, advances *p. */
static int parse_central(const uint8_t *cd, uint64_t cd_size, size_t *p, struct zip_entry *z,
                         char *name_out, char *why, size_t why_size)
{
  const uint8_t *h = cd + *p;
  size_t name_len, extra_len, comment_len;
  if (cd_size - *p < CENTRAL_SIZE || le32(h) != CENTRAL_SIG)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "bad central directory entry at byte %lu of the "
               "directory", (unsigned long)*p);
  z->flags = le16(h + 8);
  z->method = le16(h + 10);
  z->dos_time = le32(h + 12);
  z->crc32 = le32(h + 16);
  z->compressed_size = le32(h + 20);
  z->uncompressed_size = le32(h + 24);
  name_len = le16(h + 28);
  extra_len = le16(h + 30);
  comment_len = le16(h + 32);
  z->local_offset = le32(h + 42);
  if (CENTRAL_SIZE + name_len + extra_len + comment_len > cd_size - *p)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "a central directory entry runs past the "
               "directory");
  memcpy(name_out, h + CENTRAL_SIZE, name_len);
  name_out[name_len] = '\0';
  z->name = name_out;
  z->extra = (const uint8_t *)name_out + name_len + 1;
  z->extra_len = (uint16_t)extra_len;
  memcpy(name_out + name_len + 1, h + CENTRAL_SIZE + name_len, extra_len);
  if (memchr(name_out, '\0', name_len) || !name_len)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "a member has an empty name or a NUL in it");
  if ((z->flags & FLAG_UTF8) && !utf8_valid(h + CENTRAL_SIZE, name_len))
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member name flagged UTF-8 is not UTF-8");
  if (apply_extra(h + CENTRAL_SIZE + name_len, extra_len, z) != 0)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: bad extra field", name_out);
  *p += CENTRAL_SIZE + name_len + extra_len + comment_len;
  return 0;
}

struct span {
  uint64_t start, end;
  size_t index;
};

static int by_start(const void *a, const void *b)
{
  const struct span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* 1 when the len bytes at offset are the name: read a piece at a time, since
 * a name may hold up to 65,535 bytes (its length is a 16-bit field). */
static int local_name_matches(const struct byte_source *src, uint64_t offset, const char *name,
                              size_t len)
{
  uint8_t piece[512];
  size_t done = 0;
  while (done < len) {
    size_t n = len - done < sizeof(piece) ? len - done : sizeof(piece);
    if (read_at(src, offset + done, piece, n) || memcmp(piece, name + done, n))
      return 0;
    done += n;
  }
  return 1;
}

/* Each member's local header and data lie inside the archive, before the
 * directory, and share no byte with another member's (a member listed
 * twice or overlapping another is how zip bombs are built; unzip refuses
 * them).  Reads every local header once and checks it names the member. */
static int check_places(const struct byte_source *src, struct zip_directory *dir,
                        const struct directory_place *at, uint64_t *data_offsets, char *why,
                        size_t why_size)
{
  struct span *s = etwcap_calloc(dir->count ? dir->count : 1, sizeof(*s));
  uint8_t local[LOCAL_SIZE];
  size_t i;
  int rc = 0;
  if (!s)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < dir->count && !rc; i++) {
    struct zip_entry *z = &dir->entries[i];
    size_t name_len = strlen(z->name), local_name, local_extra;
    uint64_t at_local = z->local_offset + at->shift, data;
    if (z->local_offset > at->start || at_local > at->start ||
        at->start - at_local < LOCAL_SIZE ||
        read_at(src, at_local, local, sizeof(local)) || le32(local) != LOCAL_SIG) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: no local header at byte %llu",
               z->name, (unsigned long long)z->local_offset);
      break;
    }
    local_name = le16(local + 26);
    local_extra = le16(local + 28);
    data = at_local + LOCAL_SIZE + local_name + local_extra;
    if (local_name != name_len || data > at->start ||
        !local_name_matches(src, at_local + LOCAL_SIZE, z->name, name_len)) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: its local header names another "
               "file", z->name);
      break;
    }
    if (z->compressed_size > at->start - data) {
      rc = bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: its %llu bytes run past the start "
               "of the central directory", z->name, (unsigned long long)z->compressed_size);
      break;
    }
    data_offsets[i] = data;
    z->local_extra_len = (uint16_t)local_extra;
    s[i].start = at_local;
    s[i].end = data + z->compressed_size;
    s[i].index = i;
  }
  if (!rc) {
    qsort(s, dir->count, sizeof(*s), by_start);
    for (i = 1; i < dir->count && !rc; i++)
      if (s[i].start < s[i - 1].end)
        rc = bad(ETWCAP_E_CORRUPT, why, why_size, "members %.200s and %.200s share bytes (overlapping "
                 "members)", dir->entries[s[i - 1].index].name, dir->entries[s[i].index].name);
  }
  etwcap_free(s);
  return rc;
}

struct named {
  const char *name;
  size_t index;
};

static int by_name(const void *a, const void *b)
{
  const struct named *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Marks every entry that a later one of the same name shadows: sorted by
 * name, then by place, all but the last of a run of equal names: O(n log n)
 * where asking each entry about every later one is O(n^2). */
static int mark_shadowed(struct zip_directory *dir)
{
  struct named *v = etwcap_calloc(dir->count ? dir->count : 1, sizeof(*v));
  size_t i;
  if (!v)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < dir->count; i++) {
    v[i].name = dir->entries[i].name;
    v[i].index = i;
  }
  qsort(v, dir->count, sizeof(*v), by_name);
  for (i = 1; i < dir->count; i++)
    if (!strcmp(v[i - 1].name, v[i].name))
      dir->entries[v[i - 1].index].shadowed = 1;
  etwcap_free(v);
  return 0;
}

int zip_directory_read(const struct byte_source *src, struct zip_directory *dir, char *why,
                       size_t why_size)
{
  struct directory_place at = { 0 };
  uint64_t *data_offsets = NULL, i;
  uint8_t *cd = NULL;
  size_t p = 0, names_used = 0;
  int rc;

  memset(dir, 0, sizeof(*dir));
  why[0] = '\0';
  if (src->size < 0)
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "the archive's size is unknown");
  rc = locate_directory(src, &at, why, why_size);
  if (rc)
    return rc;
  cd = etwcap_malloc(at.size ? (size_t)at.size : 1);
  dir->entries = etwcap_calloc(at.entries ? (size_t)at.entries : 1, sizeof(*dir->entries));
  /* A name, its NUL and its extra fields are shorter than their central
   * header: the directory's size bounds the names' block. */
  dir->names = etwcap_malloc((size_t)at.size + 1);
  dir->comment = etwcap_malloc(at.comment_len + 1);
  data_offsets = etwcap_calloc(at.entries ? (size_t)at.entries : 1, sizeof(*data_offsets));
  if (!cd || !dir->entries || !dir->names || !dir->comment || !data_offsets) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  if (read_at(src, at.start, cd, (size_t)at.size)) {
    rc = bad(ETWCAP_E_TRUNCATED, why, why_size, "the central directory is cut short");
    goto cleanup;
  }
  if (read_at(src, at.comment_at, dir->comment, at.comment_len)) {
    rc = bad(ETWCAP_E_IO, why, why_size, "cannot read the archive comment");
    goto cleanup;
  }
  dir->comment[at.comment_len] = '\0';
  dir->comment_len = at.comment_len;
  for (i = 0; i < at.entries && !rc; i++) {
    struct zip_entry *z = &dir->entries[i];
    rc = parse_central(cd, at.size, &p, z, dir->names + names_used, why, why_size);
    if (!rc) {
      names_used += strlen(z->name) + 1 + z->extra_len;
      dir->count++;
    }
  }
  if (!rc && p != at.size)
    rc = bad(ETWCAP_E_CORRUPT, why, why_size, "the central directory holds more than the %llu "
             "entries its end record counts", (unsigned long long)at.entries);
  if (!rc)
    rc = check_places(src, dir, &at, data_offsets, why, why_size);
  if (!rc)
    rc = mark_shadowed(dir);
  for (i = 0; !rc && i < dir->count; i++) {
    dir->entries[i].local_offset += at.shift;
    dir->entries[i].data_offset = data_offsets[i];
  }
cleanup:
  etwcap_free(cd);
  etwcap_free(data_offsets);
  if (rc)
    zip_directory_release(dir);
  return rc;
}

void zip_directory_release(struct zip_directory *dir)
{
  etwcap_free(dir->entries);
  etwcap_free(dir->names);
  etwcap_free(dir->comment);
  memset(dir, 0, sizeof(*dir));
}

int zip_directory_is_shadowed(const struct zip_directory *dir, size_t i)
{
  return dir->entries[i].shadowed;
}

int zip_entry_supported(const struct zip_entry *e, char *why, size_t why_size)
{
  if (e->flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_DIRECTORY))
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "member %.200s is encrypted; etwcap reads only "
               "plain zip members", e->name);
  if (e->method != 0 && e->method != Z_DEFLATED)
    return bad(ETWCAP_E_UNSUPPORTED, why, why_size, "member %.200s uses zip compression method %u; "
               "etwcap reads stored (0) and deflated (8) members", e->name, (unsigned)e->method);
  return 0;
}

/* --- one member's bytes ------------------------------------------------------ */

struct zip_stream {
  const struct byte_source *src;
  const struct zip_entry *e;
  uint64_t in_pos, in_left; /* compressed bytes still to read */
  uint64_t out;             /* uncompressed bytes handed out */
  uint32_t crc;
  int inflating, ended;
  z_stream zs;
  uint8_t *in;
  size_t in_cap;
};

int zip_stream_open(struct zip_stream **out, const struct byte_source *src,
                    const struct zip_entry *e, char *why, size_t why_size)
{
  struct zip_stream *s;
  int rc = zip_entry_supported(e, why, why_size);
  *out = NULL;
  if (rc)
    return rc;
  if (e->method == 0 && e->compressed_size != e->uncompressed_size)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s is stored with %llu bytes but "
               "lists %llu", e->name, (unsigned long long)e->compressed_size,
               (unsigned long long)e->uncompressed_size);
  s = etwcap_calloc(1, sizeof(*s));
  if (s) {
    s->in_cap = chunk_for(e->compressed_size);
    s->in = etwcap_malloc(s->in_cap);
  }
  if (!s || !s->in) {
    etwcap_free(s);
    return ETWCAP_E_NOMEM;
  }
  s->src = src;
  s->e = e;
  s->in_pos = e->data_offset;
  s->in_left = e->compressed_size;
  s->crc = (uint32_t)crc32(0, NULL, 0);
  if (e->method == Z_DEFLATED) {
    if (inflateInit2(&s->zs, -MAX_WBITS) != Z_OK) {
      etwcap_free(s->in);
      etwcap_free(s);
      return ETWCAP_E_NOMEM;
    }
    s->inflating = 1;
  }
  *out = s;
  return 0;
}

void zip_stream_close(struct zip_stream *s)
{
  if (!s)
    return;
  if (s->inflating)
    inflateEnd(&s->zs);
  etwcap_free(s->in);
  etwcap_free(s);
}

/* Refills the input buffer with the next compressed bytes. */
static int refill(struct zip_stream *s, char *why, size_t why_size)
{
  size_t n = s->in_left < s->in_cap ? (size_t)s->in_left : s->in_cap;
  if (read_at(s->src, s->in_pos, s->in, n))
    return bad(ETWCAP_E_TRUNCATED, why, why_size, "member %.200s: its data is cut short",
               s->e->name);
  s->in_pos += n;
  s->in_left -= n;
  s->zs.next_in = s->in;
  s->zs.avail_in = (uInt)n;
  return 0;
}

/* The member is over: it must be exactly what the directory says. */
static int finish(struct zip_stream *s, char *why, size_t why_size)
{
  s->ended = 1;
  /* Fewer bytes than listed, with the right CRC-32, is what both reference
   * readers accept (neither checks the listed size); more is refused as it
   * reads.  A stored member has exactly its listed size. */
  if (s->out != s->e->uncompressed_size && s->e->method == 0)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s holds %llu bytes, the directory "
               "says %llu", s->e->name, (unsigned long long)s->out,
               (unsigned long long)s->e->uncompressed_size);
  if (s->crc != s->e->crc32)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s fails its CRC-32 check (%08lx, "
               "the directory says %08lx)", s->e->name, (unsigned long)s->crc,
               (unsigned long)s->e->crc32);
  return 0;
}

static int read_stored(struct zip_stream *s, uint8_t *buf, size_t len, size_t *got, char *why,
                       size_t why_size)
{
  size_t n = s->in_left < len ? (size_t)s->in_left : len;
  if (n && read_at(s->src, s->in_pos, buf, n))
    return bad(ETWCAP_E_TRUNCATED, why, why_size, "member %.200s: its data is cut short",
               s->e->name);
  s->in_pos += n;
  s->in_left -= n;
  *got = n;
  return 0;
}

static int read_deflated(struct zip_stream *s, uint8_t *buf, size_t len, size_t *got,
                         char *why, size_t why_size)
{
  int zrc;
  if (len > UINT32_MAX)
    len = UINT32_MAX;
  s->zs.next_out = buf;
  s->zs.avail_out = (uInt)len;
  do {
    if (s->zs.avail_in == 0) {
      if (!s->in_left)
        return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: its deflate stream does not "
                   "end where its data does", s->e->name);
      if ((zrc = refill(s, why, why_size)) != 0)
        return zrc;
    }
    zrc = inflate(&s->zs, Z_NO_FLUSH);
    if (zrc == Z_STREAM_END) {
      s->inflating = 0;
      inflateEnd(&s->zs);
      break;
    }
    if (zrc != Z_OK && zrc != Z_BUF_ERROR)
      return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s: its data does not inflate (%s)",
                 s->e->name, s->zs.msg ? s->zs.msg : "bad deflate data");
  } while (s->zs.avail_out == len);
  *got = len - s->zs.avail_out;
  return 0;
}

int zip_stream_read(struct zip_stream *s, void *buf, size_t len, size_t *got, char *why,
                    size_t why_size)
{
  int rc = 0;
  *got = 0;
  if (s->ended || !len)
    return 0;
  if (s->e->method == 0)
    rc = read_stored(s, buf, len, got, why, why_size);
  else if (s->inflating)
    rc = read_deflated(s, buf, len, got, why, why_size);
  if (rc)
    return rc;
  if (*got > s->e->uncompressed_size - s->out)
    return bad(ETWCAP_E_CORRUPT, why, why_size, "member %.200s holds more than the %llu bytes the "
               "directory says", s->e->name, (unsigned long long)s->e->uncompressed_size);
  s->crc = (uint32_t)crc32_z(s->crc, buf, *got);
  s->out += *got;
  if (*got == 0)
    return finish(s, why, why_size);
  return 0;
}

int zip_entry_read(const struct byte_source *src, const struct zip_entry *e, zip_sink_fn sink,
                   void *ctx, uint64_t *size, uint32_t *crc, char *why, size_t why_size)
{
  struct zip_stream *s = NULL;
  uint8_t *buf = NULL;
  size_t got = 1, cap = chunk_for(e->uncompressed_size);
  int rc;
  *size = 0;
  *crc = 0;
  rc = zip_stream_open(&s, src, e, why, why_size);
  if (!rc && !(buf = etwcap_malloc(cap)))
    rc = ETWCAP_E_NOMEM;
  while (!rc && got) {
    rc = zip_stream_read(s, buf, cap, &got, why, why_size);
    if (!rc && got && sink)
      rc = sink(ctx, buf, got);
  }
  if (s) {
    *size = s->out;
    *crc = s->crc;
  }
  etwcap_free(buf);
  zip_stream_close(s);
  return rc;
}

int zip_entry_measure(const struct byte_source *src, const struct zip_entry *e, uint64_t *size,
                      uint32_t *crc, char *why, size_t why_size)
{
  return zip_entry_read(src, e, NULL, NULL, size, crc, why, why_size);
}
