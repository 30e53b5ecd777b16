/* Zip archive access for the ETL reader (see etl_zip.h): the ETL glue over
 * the base layer's zip reader (zip_directory.h).  Members that are not read
 * as ETL files are checked when the archive is opened; an ETL member's size
 * and CRC-32 are checked as it streams, and at the latest when the next
 * member is asked for. */
#include "etw/etl/etl_zip.h"

#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/error.h"
#include "src/base/strutil.h"
#include "src/base/zip/zip_directory.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SKIP_CHUNK (64u * 1024u)
#define HISTORY_SIZE (8u * 1024u * 1024u)

struct etl_zip {
  struct byte_source src;
  struct zip_directory dir;
  char *path;             /* for messages */
  size_t next;            /* the next directory entry to consider */
  const struct zip_entry *member; /* the current member */
  struct zip_stream *stream;
  int member_checked;     /* its size and CRC-32 were proven */
  uint64_t pos;           /* bytes of the member consumed so far */
  uint8_t *scratch;
  /* The last bytes streamed, as a ring indexed by member offset: a read
   * a little behind the stream (the time-order merge going back to another
   * CPU's buffer) is served from here instead of restarting the member. */
  uint8_t *history;
  size_t history_cap;     /* ring size: HISTORY_SIZE or less for small members */
  uint64_t history_len;   /* valid bytes: offsets [pos - history_len, pos) */
  char error[512];
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(struct etl_zip *z, int rc, const char *fmt, ...)
{
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  snprintf(z->error, sizeof(z->error), "%s: %s", z->path, what);
  return rc;
}

int etl_zip_magic(const uint8_t *p, size_t len)
{
  return len >= 4 && p[0] == 'P' && p[1] == 'K' &&
         ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6));
}

int etl_zip_detect(const struct byte_source *io)
{
  struct byte_source src;
  struct zip_directory dir;
  uint8_t magic[4];
  size_t got = 0;
  char why[300];
  byte_source_read_exact(io, 0, magic, sizeof(magic), &got);
  if (etl_zip_magic(magic, got))
    return 1;
  /* A self-extractor's stub first: the end of the file says it is a zip. */
  src.read_at = io->read_at;
  src.close = NULL;
  src.ctx = io->ctx;
  src.size = io->size;
  if (zip_directory_read(&src, &dir, why, sizeof(why)) != 0)
    return 0;
  zip_directory_release(&dir);
  return 1;
}

int etl_zip_detect_memory(const void *data, size_t len)
{
  struct byte_source io;
  int zip;
  if (byte_source_open_memory(&io, data, len) != 0)
    return etl_zip_magic(data, len);
  zip = etl_zip_detect(&io);
  byte_source_close(&io);
  return zip;
}

/* Is entry i one the ETL reader will stream (an .etl file, not shadowed by
 * a later entry of the same name)? */
static int is_etl_member(const struct etl_zip *z, size_t i)
{
  return str_ends_with_case(z->dir.entries[i].name, ".etl") &&
         !zip_directory_is_shadowed(&z->dir, i);
}

/* Every member the ETL reader will not stream is read and checked now, so
 * a damaged archive is refused whichever member holds the damage. */
static int check_other_members(struct etl_zip *z)
{
  char why[300];
  size_t i;
  for (i = 0; i < z->dir.count; i++) {
    uint64_t size;
    uint32_t crc;
    int rc;
    if (is_etl_member(z, i))
      continue;
    rc = zip_entry_measure(&z->src, &z->dir.entries[i], &size, &crc, why, sizeof(why));
    if (rc)
      return fail(z, rc, "%s", why);
  }
  return 0;
}

static int open_common(struct etl_zip **out, const char *label)
{
  struct etl_zip *z = *out;
  char why[300];
  int rc;
  z->path = etwcap_strdup(label);
  z->scratch = etwcap_malloc(SKIP_CHUNK);
  if (!z->path || !z->scratch)
    return ETWCAP_E_NOMEM;
  rc = zip_directory_read(&z->src, &z->dir, why, sizeof(why));
  if (rc)
    return fail(z, rc, "not a readable zip archive: %s", why);
  return check_other_members(z);
}

int etl_zip_open_file(struct etl_zip **out, const char *path)
{
  int rc;
  *out = etwcap_calloc(1, sizeof(**out));
  if (!*out)
    return ETWCAP_E_NOMEM;
  rc = byte_source_open_file(&(*out)->src, path);
  if (rc) {
    etwcap_free(*out);
    *out = NULL;
    return rc;
  }
  return open_common(out, path);
}

int etl_zip_open_memory(struct etl_zip **out, const void *data, size_t len)
{
  int rc;
  *out = etwcap_calloc(1, sizeof(**out));
  if (!*out)
    return ETWCAP_E_NOMEM;
  rc = byte_source_open_memory(&(*out)->src, data, len);
  if (rc) {
    etwcap_free(*out);
    *out = NULL;
    return rc;
  }
  return open_common(out, "(memory zip)");
}

void etl_zip_close(struct etl_zip *z)
{
  if (!z)
    return;
  zip_stream_close(z->stream);
  zip_directory_release(&z->dir);
  byte_source_close(&z->src);
  etwcap_free(z->scratch);
  etwcap_free(z->history);
  etwcap_free(z->path);
  etwcap_free(z);
}

const char *etl_zip_error(const struct etl_zip *z)
{
  return z->error;
}

void etl_zip_sanitize_name(char *name)
{
  char *src = name, *dst = name;
  /* Shown on a terminal: no line breaks or escapes.  Backslashes are
   * separators too. */
  str_neutralise_controls(name);
  while ((src = strchr(src, '\\')) != NULL)
    *src = '/';
  src = name;
  /* Drop a drive letter and leading slashes: names stay relative. */
  if (((src[0] >= 'A' && src[0] <= 'Z') || (src[0] >= 'a' && src[0] <= 'z')) && src[1] == ':')
    src += 2;
  while (*src == '/')
    src++;
  /* Copy component by component, dropping "." and ".." and empty ones. */
  while (*src) {
    size_t n = strcspn(src, "/");
    if (!(n == 0 || (n == 1 && src[0] == '.') || (n == 2 && src[0] == '.' && src[1] == '.'))) {
      if (dst != name)
        *dst++ = '/';
      memmove(dst, src, n);
      dst += n;
    }
    src += n;
    while (*src == '/')
      src++;
  }
  *dst = '\0';
  if (!name[0])
    strcpy(name, "_");
}

/* (Re)opens the current member's stream at its start. */
static int member_restart(struct etl_zip *z)
{
  char why[300];
  size_t want;
  int rc;
  zip_stream_close(z->stream);
  z->stream = NULL;
  z->pos = 0;
  z->history_len = 0;
  /* The history ring, sized for this member (without it, backward reads
   * restart the member: slower, still correct). */
  want = z->member->uncompressed_size < HISTORY_SIZE ? (size_t)z->member->uncompressed_size
                                                     : HISTORY_SIZE;
  if (want < SKIP_CHUNK)
    want = SKIP_CHUNK;
  if (want != z->history_cap) {
    etwcap_free(z->history);
    z->history = etwcap_malloc(want);
    z->history_cap = z->history ? want : 0;
  }
  rc = zip_stream_open(&z->stream, &z->src, z->member, why, sizeof(why));
  return rc ? fail(z, rc, "%s", why) : 0;
}

/* Remembers bytes just streamed at offsets [pos - n, pos). */
static void history_add(struct etl_zip *z, const uint8_t *p, size_t n)
{
  uint64_t start;
  if (!z->history)
    return;
  if (n > z->history_cap) {
    p += n - z->history_cap;
    n = z->history_cap;
  }
  start = z->pos - n;
  while (n) {
    size_t at = (size_t)(start % z->history_cap), run = z->history_cap - at;
    if (run > n)
      run = n;
    memcpy(z->history + at, p, run);
    p += run;
    start += run;
    n -= run;
  }
}

/* Copies [offset, offset+len) out of the history (all of it must be there). */
static void history_get(const struct etl_zip *z, uint64_t offset, uint8_t *out, size_t len)
{
  while (len) {
    size_t at = (size_t)(offset % z->history_cap), run = z->history_cap - at;
    if (run > len)
      run = len;
    memcpy(out, z->history + at, run);
    out += run;
    offset += run;
    len -= run;
  }
}

/* Reads up to len bytes at the member's current position; reaching the
 * member's end proves its size and CRC-32. */
static int member_read(struct etl_zip *z, uint8_t *buf, size_t len, size_t *got)
{
  char why[300];
  int rc = 0;
  *got = 0;
  while (*got < len && !rc) {
    size_t n = 0;
    rc = zip_stream_read(z->stream, buf + *got, len - *got, &n, why, sizeof(why));
    if (rc || n == 0)
      break;
    z->pos += n;
    history_add(z, buf + *got, n);
    z->history_len += n;
    if (z->history_len > z->history_cap)
      z->history_len = z->history_cap;
    *got += n;
  }
  if (!rc && z->pos == z->member->uncompressed_size && !z->member_checked) {
    size_t n;
    /* At the declared end: one more read meets the end of the data and
     * checks it (more data than declared is an error there too). */
    rc = zip_stream_read(z->stream, z->scratch, 1, &n, why, sizeof(why));
    z->member_checked = !rc;
  }
  return rc ? fail(z, rc, "%s", why) : 0;
}

/* Streams the current member to its end if the reader stopped short, so
 * every member handed out is proven before the next one. */
static int finish_member(struct etl_zip *z)
{
  size_t n = 1;
  int rc = 0;
  if (!z->member || z->member_checked)
    return 0;
  if (!z->stream)
    rc = member_restart(z);
  while (!rc && !z->member_checked && n)
    rc = member_read(z, z->scratch, SKIP_CHUNK, &n);
  return rc;
}

int etl_zip_finish_member(struct etl_zip *z)
{
  return finish_member(z);
}

int etl_zip_next_etl(struct etl_zip *z, char *name, size_t cap)
{
  char why[300];
  int rc = finish_member(z);
  if (rc)
    return rc;
  zip_stream_close(z->stream);
  z->stream = NULL;
  z->member = NULL;
  for (; z->next < z->dir.count; z->next++) {
    const struct zip_entry *e = &z->dir.entries[z->next];
    char shown[ZIP_NAME_MAX];
    if (!is_etl_member(z, z->next))
      continue;
    snprintf(shown, sizeof(shown), "%s", e->name);
    etl_zip_sanitize_name(shown);
    rc = zip_entry_supported(e, why, sizeof(why));
    if (rc)
      return fail(z, rc, "%s", why);
    if (e->uncompressed_size > ETL_ZIP_MAX_MEMBER_SIZE)
      return fail(z, ETWCAP_E_UNSUPPORTED, "member %s is too large (%llu bytes)", shown,
                  (unsigned long long)e->uncompressed_size);
    z->member = e;
    z->member_checked = 0;
    z->next++;
    snprintf(name, cap, "%s", shown);
    return 1;
  }
  return 0;
}

int etl_zip_next_etl_at(struct etl_zip *z, unsigned k, char *name, size_t cap)
{
  unsigned seen = 0;
  zip_stream_close(z->stream);
  z->stream = NULL;
  z->member = NULL;
  for (z->next = 0; z->next < z->dir.count; z->next++)
    if (is_etl_member(z, z->next) && seen++ == k)
      break;
  return etl_zip_next_etl(z, name, cap);
}

static int member_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  struct etl_zip *z = ctx;
  uint8_t *out = buf;
  int rc;
  *got = 0;
  if (z->stream && offset < z->pos && z->pos - offset <= z->history_len) {
    /* Behind the stream but still remembered. */
    size_t n = z->pos - offset < len ? (size_t)(z->pos - offset) : len;
    history_get(z, offset, out, n);
    *got = n;
    if (n == len)
      return 0;
    out += n;
    len -= n;
    offset += n;
  } else if (!z->stream || offset < z->pos) {
    rc = member_restart(z);
    if (rc)
      return rc;
  }
  while (z->pos < offset) { /* stream forward to the offset */
    size_t step = SKIP_CHUNK, n = 0;
    if (offset - z->pos < step)
      step = (size_t)(offset - z->pos);
    rc = member_read(z, z->scratch, step, &n);
    if (rc)
      return rc;
    if (n == 0)
      return 0; /* the member ends before offset */
  }
  {
    size_t n = 0;
    rc = member_read(z, out, len, &n);
    *got += n;
    return rc;
  }
}

int etl_zip_member_io(struct etl_zip *z, struct byte_source *io)
{
  int rc;
  memset(io, 0, sizeof(*io));
  if (!z->member)
    return fail(z, ETWCAP_E_INTERNAL, "no current member");
  rc = member_restart(z);
  if (rc)
    return rc;
  io->read_at = member_read_at;
  io->close = NULL; /* the archive owns the member */
  io->ctx = z;
  io->size = (int64_t)z->member->uncompressed_size;
  return 0;
}
