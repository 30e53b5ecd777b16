/* Zip archive access for the ETL reader (see etl_zip.h).  minizip reads the
 * archive through our own ioapi table, over os_fopen (UTF-8 paths on every
 * OS, no iowin32) or over memory (tests and fuzzing). */
#include "etl_zip.h"

#include "file_io.h"

#include "alloc.h"
#include "error.h"
#include "os_file.h"
#include "strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unzip.h>

#define SKIP_CHUNK (64u * 1024u)
#define HISTORY_SIZE (8u * 1024u * 1024u)

struct mem_stream {
  const uint8_t *data;
  size_t len;
  uint64_t pos;
};

struct etl_zip {
  unzFile uf;
  char *path;             /* for messages */
  struct mem_stream mem;  /* the memory source (when opened from memory) */
  int started;
  unz64_file_pos member;  /* position of the current member in the directory */
  uint64_t member_size;
  int member_open;
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

/* A zip on disk is read through file_io's minizip bridge (UTF-8 paths on
 * every OS); only memory needs its own ioapi functions here. */

static uLong ZCALLBACK no_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
  (void)opaque;
  (void)stream;
  (void)buf;
  (void)size;
  return 0;
}

/* --- ioapi over memory ----------------------------------------------------- */

static voidpf ZCALLBACK mem_open(voidpf opaque, const void *filename, int mode)
{
  struct mem_stream *m = opaque;
  (void)filename;
  if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ)
    return NULL;
  m->pos = 0;
  return m;
}

static uLong ZCALLBACK mem_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
  struct mem_stream *m = stream;
  uint64_t n = 0;
  (void)opaque;
  if (m->pos < m->len) {
    n = m->len - m->pos;
    if (n > size)
      n = size;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += n;
  }
  return (uLong)n;
}

static ZPOS64_T ZCALLBACK mem_tell(voidpf opaque, voidpf stream)
{
  (void)opaque;
  return ((struct mem_stream *)stream)->pos;
}

static long ZCALLBACK mem_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
  struct mem_stream *m = stream;
  uint64_t base = origin == ZLIB_FILEFUNC_SEEK_CUR   ? m->pos
                  : origin == ZLIB_FILEFUNC_SEEK_END ? m->len
                                                     : 0;
  (void)opaque;
  if (offset > UINT64_MAX - base || base + offset > m->len)
    return -1;
  m->pos = base + offset;
  return 0;
}

static int ZCALLBACK mem_close(voidpf opaque, voidpf stream)
{
  (void)opaque;
  (void)stream;
  return 0;
}

static int ZCALLBACK mem_error(voidpf opaque, voidpf stream)
{
  (void)opaque;
  (void)stream;
  return 0;
}

/* --- archive ---------------------------------------------------------------- */

static int open_common(struct etl_zip **out, const char *label, int memory, const char *path,
                       const void *data, size_t len)
{
  struct etl_zip *z = etwcap_calloc(1, sizeof(*z));
  zlib_filefunc64_def ff;
  *out = NULL;
  if (!z)
    return ETWCAP_E_NOMEM;
  z->path = etwcap_strdup(label);
  z->scratch = etwcap_malloc(SKIP_CHUNK);
  *out = z;
  if (!z->path || !z->scratch)
    return ETWCAP_E_NOMEM;
  memset(&ff, 0, sizeof(ff));
  if (memory) {
    z->mem.data = data;
    z->mem.len = len;
    ff.zopen64_file = mem_open;
    ff.zread_file = mem_read;
    ff.zwrite_file = no_write;
    ff.ztell64_file = mem_tell;
    ff.zseek64_file = mem_seek;
    ff.zclose_file = mem_close;
    ff.zerror_file = mem_error;
    ff.opaque = &z->mem;
  } else {
    file_io_to_minizip(&file_io_plain, &ff);
  }
  z->uf = unzOpen2_64(memory ? (const void *)"memory" : (const void *)path, &ff);
  if (!z->uf)
    return fail(z, ETWCAP_E_FORMAT, "not a readable zip archive (no valid central directory)");
  return 0;
}

int etl_zip_open_file(struct etl_zip **out, const char *path)
{
  int64_t size;
  int rc = os_file_size(path, &size);
  if (rc)
    return rc;
  return open_common(out, path, 0, path, NULL, 0);
}

int etl_zip_open_memory(struct etl_zip **out, const void *data, size_t len)
{
  return open_common(out, "(memory zip)", 1, NULL, data, len);
}

void etl_zip_close(struct etl_zip *z)
{
  if (!z)
    return;
  if (z->uf) {
    if (z->member_open)
      unzCloseCurrentFile(z->uf);
    unzClose(z->uf);
  }
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
  /* Backslashes are separators too; control characters become '?'. */
  for (; *src; src++)
    if (*src == '\\')
      *src = '/';
    else if ((unsigned char)*src < 0x20 || *src == 0x7F)
      *src = '?';
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

int etl_zip_next_etl(struct etl_zip *z, char *name, size_t cap)
{
  int rc;
  if (z->member_open) {
    unzCloseCurrentFile(z->uf);
    z->member_open = 0;
  }
  for (;;) {
    unz_file_info64 info;
    char raw[1024];
    rc = z->started ? unzGoToNextFile(z->uf) : unzGoToFirstFile(z->uf);
    z->started = 1;
    if (rc == UNZ_END_OF_LIST_OF_FILE)
      return 0;
    if (rc != UNZ_OK)
      return fail(z, ETWCAP_E_CORRUPT, "the zip directory is damaged (minizip error %d)", rc);
    rc = unzGetCurrentFileInfo64(z->uf, &info, raw, sizeof(raw), NULL, 0, NULL, 0);
    if (rc != UNZ_OK)
      return fail(z, ETWCAP_E_CORRUPT, "a zip directory entry is damaged (minizip error %d)",
                  rc);
    raw[sizeof(raw) - 1] = '\0';
    if (!str_ends_with_case(raw, ".etl"))
      continue;
    etl_zip_sanitize_name(raw);
    if (info.flag & 1) /* general purpose bit 0: encrypted */
      return fail(z, ETWCAP_E_UNSUPPORTED, "member %s is encrypted; etwcap reads only plain "
                  "zip members", raw);
    if (info.compression_method != 0 && info.compression_method != Z_DEFLATED)
      return fail(z, ETWCAP_E_UNSUPPORTED, "member %s uses zip compression method %lu; etwcap "
                  "reads stored and deflated members", raw, (unsigned long)info.compression_method);
    if (info.uncompressed_size > ETL_ZIP_MAX_MEMBER_SIZE)
      return fail(z, ETWCAP_E_UNSUPPORTED, "member %s is too large (%llu bytes)", raw,
                  (unsigned long long)info.uncompressed_size);
    if (unzGetFilePos64(z->uf, &z->member) != UNZ_OK)
      return fail(z, ETWCAP_E_CORRUPT, "cannot locate member %s", raw);
    z->member_size = info.uncompressed_size;
    z->pos = 0;
    snprintf(name, cap, "%s", raw);
    return 1;
  }
}

/* (Re)opens the current member at its start. */
static int member_restart(struct etl_zip *z)
{
  int rc;
  if (z->member_open) {
    unzCloseCurrentFile(z->uf);
    z->member_open = 0;
  }
  if (unzGoToFilePos64(z->uf, &z->member) != UNZ_OK)
    return ETWCAP_E_CORRUPT;
  /* The history ring, sized for this member (without it, backward reads
   * restart the member: slower, still correct). */
  {
    size_t want = z->member_size < HISTORY_SIZE ? (size_t)z->member_size : HISTORY_SIZE;
    if (want < SKIP_CHUNK)
      want = SKIP_CHUNK;
    if (want != z->history_cap) {
      etwcap_free(z->history);
      z->history = etwcap_malloc(want);
      z->history_cap = z->history ? want : 0;
    }
  }
  rc = unzOpenCurrentFile(z->uf);
  if (rc != UNZ_OK)
    return rc == UNZ_BADZIPFILE ? ETWCAP_E_UNSUPPORTED : ETWCAP_E_CORRUPT;
  z->member_open = 1;
  z->pos = 0;
  z->history_len = 0;
  return 0;
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

/* Reads up to len bytes at the member's current position. */
static int member_read(struct etl_zip *z, uint8_t *buf, size_t len, size_t *got)
{
  *got = 0;
  while (*got < len) {
    size_t want = len - *got;
    int n;
    if (want > (size_t)1 << 30)
      want = (size_t)1 << 30;
    n = unzReadCurrentFile(z->uf, buf + *got, (unsigned)want);
    if (n < 0)
      return ETWCAP_E_CORRUPT; /* bad deflate data or a CRC mismatch */
    if (n == 0)
      break;
    z->pos += (uint64_t)n;
    history_add(z, buf + *got, (size_t)n);
    z->history_len += (uint64_t)n;
    if (z->history_len > z->history_cap)
      z->history_len = z->history_cap;
    *got += (size_t)n;
  }
  return 0;
}

static int member_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  struct etl_zip *z = ctx;
  uint8_t *out = buf;
  int rc;
  *got = 0;
  if (z->member_open && offset < z->pos && z->pos - offset <= z->history_len) {
    /* Behind the stream but still remembered. */
    size_t n = z->pos - offset < len ? (size_t)(z->pos - offset) : len;
    history_get(z, offset, out, n);
    *got = n;
    if (n == len)
      return 0;
    out += n;
    len -= n;
    offset += n;
  } else if (!z->member_open || offset < z->pos) {
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

int etl_zip_member_io(struct etl_zip *z, struct etl_io *io)
{
  int rc;
  memset(io, 0, sizeof(*io));
  rc = member_restart(z);
  if (rc == ETWCAP_E_UNSUPPORTED)
    return fail(z, rc, "a member uses a compression method or encryption minizip cannot read");
  if (rc)
    return fail(z, rc, "cannot open a member (damaged local header)");
  io->read_at = member_read_at;
  io->close = NULL; /* the archive owns the member */
  io->ctx = z;
  io->size = (int64_t)z->member_size;
  return 0;
}
