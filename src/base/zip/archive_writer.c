/* The zip writer: temporary file, parallel deflate, verify, rename. */
#include "src/base/zip/archive_writer.h"

#include "src/base/alloc.h"
#include "src/base/cancel.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/file_error.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/utf8.h"
#include "src/base/zip/archive_verify.h"
#include "src/base/zip/deflate_sink.h"

#include <stdio.h>
#include <string.h>
#include <zip.h>

/* Wraps the caller's io to remember the first error of any stream, so a
 * minizip failure ("error writing") can be reported as what it was (disk
 * full, access denied...). */
struct tracker {
  const struct file_io *base;
  void *stream; /* the zip, once minizip opened it */
  int first_error;
};

static int note(struct tracker *t, int rc)
{
  if (rc && !t->first_error)
    t->first_error = rc;
  return rc;
}

static void *t_open(void *o, const char *path, int w, int *err)
{
  struct tracker *t = o;
  void *s = t->base->open(t->base->opaque, path, w, err);
  if (!s)
    note(t, *err);
  else if (w)
    t->stream = s;
  return s;
}

static size_t t_read(void *o, void *s, void *b, size_t n)
{
  struct tracker *t = o;
  size_t got = t->base->read(t->base->opaque, s, b, n);
  note(t, t->base->error(t->base->opaque, s));
  return got;
}

static size_t t_write(void *o, void *s, const void *b, size_t n)
{
  struct tracker *t = o;
  size_t put = t->base->write(t->base->opaque, s, b, n);
  if (put < n)
    note(t, t->base->error(t->base->opaque, s) ? t->base->error(t->base->opaque, s)
                                               : ETWCAP_E_IO);
  return put;
}

static int t_seek(void *o, void *s, int64_t off, int whence)
{
  struct tracker *t = o;
  return note(t, t->base->seek(t->base->opaque, s, off, whence));
}

static int64_t t_tell(void *o, void *s)
{
  struct tracker *t = o;
  return t->base->tell(t->base->opaque, s);
}

static int t_error(void *o, void *s)
{
  struct tracker *t = o;
  return t->base->error(t->base->opaque, s);
}

static int t_close(void *o, void *s)
{
  struct tracker *t = o;
  return note(t, t->base->close(t->base->opaque, s));
}

static int t_rename(void *o, const char *a, const char *b)
{
  struct tracker *t = o;
  return t->base->rename(t->base->opaque, a, b);
}

static int t_remove(void *o, const char *p)
{
  struct tracker *t = o;
  return t->base->remove(t->base->opaque, p);
}

/* --- one member ----------------------------------------------------------- */

struct member_source {
  FILE *f;
  const unsigned char *data;
  size_t size, pos;
};

static int member_read(void *ctx, void *buf, size_t cap, size_t *got)
{
  struct member_source *m = ctx;
  if (cancel_requested())
    return ETWCAP_E_CANCELLED;
  if (m->f) {
    *got = fread(buf, 1, cap, m->f);
    if (*got < cap && ferror(m->f))
      return os_last_error();
    return 0;
  }
  *got = m->size - m->pos < cap ? m->size - m->pos : cap;
  memcpy(buf, m->data + m->pos, *got);
  m->pos += *got;
  return 0;
}

struct zip_sink {
  zipFile zf;
  struct tracker *tracker;
};

static int zip_write(void *ctx, const void *buf, size_t len)
{
  struct zip_sink *z = ctx;
  if (cancel_requested())
    return ETWCAP_E_CANCELLED;
  /* minizip takes an unsigned count: feed it in pieces below 2 GiB. */
  while (len) {
    unsigned piece = len > (1u << 30) ? (1u << 30) : (unsigned)len;
    if (zipWriteInFileInZip(z->zf, buf, piece) != ZIP_OK)
      return z->tracker->first_error ? z->tracker->first_error : ETWCAP_E_IO;
    buf = (const char *)buf + piece;
    len -= piece;
  }
  return 0;
}

static void dos_time(int64_t filetime, zip_fileinfo *info)
{
  struct civil_time c;
  filetime_to_civil(filetime ? filetime : os_time_now_utc_filetime(), &c);
  info->tmz_date.tm_sec = c.second;
  info->tmz_date.tm_min = c.minute;
  info->tmz_date.tm_hour = c.hour;
  info->tmz_date.tm_mday = c.day;
  info->tmz_date.tm_mon = c.month - 1;
  info->tmz_date.tm_year = c.year < 1980 ? 1980 : (unsigned)c.year;
}

static int non_ascii(const char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80)
      return 1;
  return 0;
}

static int is_folder(const char *name)
{
  size_t len = strlen(name);
  return len && name[len - 1] == '/';
}

/* Copies the extra fields (APPNOTE 4.5: tag, size, data) of in to out but
 * a Zip64 one (tag 1, 4.5.3), whose sizes and offset would no longer be
 * the member's; bytes too few to be a field end the list.  Returns the
 * length copied. */
static size_t without_zip64(const uint8_t *in, size_t len, uint8_t *out)
{
  size_t p = 0, n = 0;
  while (p + 4 <= len) {
    size_t size = (size_t)in[p + 2] | (size_t)in[p + 3] << 8;
    if (size > len - p - 4)
      break;
    if ((in[p] | in[p + 1] << 8) != 1) {
      memcpy(out + n, in + p, 4 + size);
      n += 4 + size;
    }
    p += 4 + size;
  }
  return n;
}

/* Starts a raw (already deflated) entry, or a stored empty one for a
 * folder.  Zip64 extra fields only where they can be needed, so small
 * members stay readable by the oldest unzip. */
static int open_entry(zipFile zf, struct tracker *tracker, const struct archive_member *m,
                      const struct archive_options *o, int zip64)
{
  int folder = is_folder(m->name), rc = 0;
  uint8_t *extra = etwcap_malloc(m->extra_size + m->local_extra_size + 1);
  size_t central, local;
  zip_fileinfo info;
  if (!extra)
    return ETWCAP_E_NOMEM;
  central = without_zip64(m->extra, m->extra_size, extra);
  local = without_zip64(m->local_extra, m->local_extra_size, extra + central);
  memset(&info, 0, sizeof(info));
  if (m->dos_time)
    info.dosDate = m->dos_time;
  else
    dos_time(o->mtime_filetime, &info);
  /* The MS-DOS directory attribute (APPNOTE 4.4.15; FILE_ATTRIBUTE_DIRECTORY). */
  info.external_fa = folder ? 0x10 : 0;
  /* A header's extra fields take at most 65,535 bytes, with room for the
   * Zip64 field minizip may add (at most 32 bytes). */
  if (central > 0xFFFF - 32 || local > 0xFFFF - 32)
    rc = ETWCAP_E_RANGE;
  else if (zipOpenNewFileInZip4_64(zf, m->name, &info, extra + central, (uInt)local, extra,
                                   (uInt)central, NULL, folder ? 0 : Z_DEFLATED,
                                   o->level ? o->level : 6, 1, -MAX_WBITS, 8,
                                   Z_DEFAULT_STRATEGY, NULL, 0, 0,
                                   non_ascii(m->name) ? 0x800 : 0, zip64) != ZIP_OK)
    rc = tracker->first_error ? tracker->first_error : ETWCAP_E_IO;
  etwcap_free(extra);
  return rc;
}

static void deflate_params_for(struct deflate_params *p, const struct archive_options *o,
                               struct zip_sink *sink)
{
  memset(p, 0, sizeof(*p));
  p->level = o->level ? o->level : 6;
  p->threads = o->threads;
  p->low_priority = o->low_priority;
  p->write = zip_write;
  p->write_ctx = sink;
  p->progress = o->progress;
  p->progress_ctx = o->progress_ctx;
}

/* A file or bytes in memory. */
static int add_stored_bytes(zipFile zf, struct tracker *tracker, const struct archive_member *m,
                            const struct archive_options *o, struct deflate_result *r,
                            char *why, size_t why_size)
{
  struct member_source src = { NULL, m->data, m->size, 0 };
  struct zip_sink sink = { zf, tracker };
  struct deflate_params p;
  int64_t size = (int64_t)m->size;
  int rc = 0;

  if (m->path) {
    rc = os_file_size(m->path, &size);
    if (!rc) {
      src.f = os_fopen(m->path, "rb");
      if (!src.f)
        rc = os_last_error();
    }
    if (rc) {
      snprintf(why, why_size, "cannot read '%s': %s", m->path, etwcap_strerror(rc));
      return rc;
    }
  }
  /* Zip64 fields from 1 MiB below 4 GiB: deflate adds at most about 330
   * bytes to each 4 MiB chunk of data it cannot shrink (under 400 KB at
   * 4 GiB), so a member that fits without them stays under 2^32 - 1 bytes
   * both compressed and not. */
  rc = open_entry(zf, tracker, m, o, size >= 0xFFFFFFFFLL - (1 << 20));
  if (!rc) {
    deflate_params_for(&p, o, &sink);
    rc = deflate_parallel(&p, member_read, &src, r);
  }
  if (!rc && m->path && (int64_t)r->in_bytes != size)
    rc = ETWCAP_E_IO; /* the input changed while we read it */
  if (src.f)
    fclose(src.f);
  return rc;
}

/* Overwrites the stored head of the entry whose data starts at data_start
 * with its final bytes, and comes back to where the zip goes on. */
static int patch_head(const struct file_io *tio, void *stream, int64_t data_start,
                      const struct deflate_sink *sink)
{
  uint64_t size = DEFLATE_STORED_SIZE(sink->head_len);
  int64_t end = tio->tell(tio->opaque, stream);
  uint8_t *encoded;
  int rc;
  if (end < 0)
    return tio->error(tio->opaque, stream) ? tio->error(tio->opaque, stream) : ETWCAP_E_IO;
  encoded = etwcap_malloc((size_t)size);
  if (!encoded)
    return ETWCAP_E_NOMEM;
  deflate_stored_encode(sink->head, sink->head_len, encoded);
  rc = tio->seek(tio->opaque, stream, data_start, SEEK_SET);
  if (!rc && tio->write(tio->opaque, stream, encoded, (size_t)size) != size)
    rc = tio->error(tio->opaque, stream) ? tio->error(tio->opaque, stream) : ETWCAP_E_IO;
  if (!rc)
    rc = tio->seek(tio->opaque, stream, end, SEEK_SET);
  etwcap_free(encoded);
  return rc;
}

/* Bytes a producer writes through a deflate_sink, compressed as they come;
 * its head is stored first and patched once the producer is done.  Its size
 * is known only at the end (the merge of compressed session files can be
 * several times their size), so its entry always reserves Zip64 fields. */
static int add_produced(zipFile zf, struct tracker *tracker, const struct file_io *tio,
                        const char *zip_path, const struct archive_member *m,
                        const struct archive_options *o, struct deflate_result *r, char *why,
                        size_t why_size)
{
  struct zip_sink zsink = { zf, tracker };
  struct deflate_sink sink;
  struct deflate_stream *d = NULL;
  struct deflate_params p;
  int64_t data_start;
  int rc = open_entry(zf, tracker, m, o, 1);

  /* minizip writes the local header straight to the file: the data starts
   * where the file is now. */
  data_start = rc ? -1 : tio->tell(tio->opaque, tracker->stream);
  if (!rc) {
    deflate_params_for(&p, o, &zsink);
    rc = deflate_stream_open(&d, &p);
  }
  if (rc)
    return rc;
  deflate_sink_init(&sink, d);
  /* The producer's messages name the zip: that is the file it writes. */
  rc = m->produce(m->produce_ctx, &sink.io, zip_path, why, why_size);
  if (!rc && (sink.error || !sink.closed || sink.abandoned))
    rc = sink.error ? sink.error : ETWCAP_E_INTERNAL;
  if (rc) {
    deflate_stream_abort(d);
  } else {
    rc = deflate_stream_finish(d, r);
    if (!rc && sink.head) {
      r->chunks[0].crc = (uint32_t)crc32(0, sink.head, (uInt)sink.head_len);
      r->crc32 = deflate_chunks_crc(r->chunks, r->chunk_count);
    }
  }
  if (!rc && zipCloseFileInZipRaw64(zf, r->in_bytes, r->crc32) != ZIP_OK)
    rc = tracker->first_error ? tracker->first_error : ETWCAP_E_IO;
  /* The patch comes after the close, which writes out minizip's buffer and
   * leaves the file at its end. */
  if (!rc && sink.head)
    rc = patch_head(tio, tracker->stream, data_start, &sink);
  deflate_sink_release(&sink);
  return rc;
}

static int add_member(zipFile zf, struct tracker *tracker, const struct file_io *tio,
                      const char *zip_path, const struct archive_member *m,
                      const struct archive_options *o, struct archive_expect *expect, char *why,
                      size_t why_size)
{
  struct deflate_result r;
  int rc;

  memset(&r, 0, sizeof(r));
  if (m->produce) {
    rc = add_produced(zf, tracker, tio, zip_path, m, o, &r, why, why_size);
  } else {
    rc = is_folder(m->name) ? open_entry(zf, tracker, m, o, 0)
                            : add_stored_bytes(zf, tracker, m, o, &r, why, why_size);
    if (zipCloseFileInZipRaw64(zf, r.in_bytes, r.crc32) != ZIP_OK && !rc)
      rc = tracker->first_error ? tracker->first_error : ETWCAP_E_IO;
  }
  expect->name = m->name;
  expect->size = r.in_bytes;
  expect->crc32 = r.crc32;
  expect->chunks = r.chunks; /* archive_write frees them */
  expect->chunk_count = r.chunk_count;
  if (rc && !why[0])
    snprintf(why, why_size, "cannot add '%s' to the zip: %s", m->path ? m->path : m->name,
             etwcap_strerror(rc));
  return rc;
}

/* --- the archive ---------------------------------------------------------- */

struct archive {
  struct archive_options o;
  struct tracker tracker;
  struct file_io tio;
  zipFile zf;
  char *tmp;
  char *final_path;
  struct archive_expect *expect;
  size_t count, cap;
  uint64_t in_bytes;
};

static void free_archive(struct archive *a)
{
  size_t i;
  for (i = 0; i < a->count; i++)
    etwcap_free((void *)a->expect[i].chunks);
  etwcap_free(a->expect);
  etwcap_free(a->tmp);
  etwcap_free(a->final_path);
  etwcap_free(a);
}

static void use_tracker(struct archive *a, const struct file_io *base)
{
  a->tracker.base = base;
  a->tio.open = t_open;
  a->tio.read = t_read;
  a->tio.write = t_write;
  a->tio.seek = t_seek;
  a->tio.tell = t_tell;
  a->tio.error = t_error;
  a->tio.close = t_close;
  a->tio.rename = t_rename;
  a->tio.remove = t_remove;
  a->tio.opaque = &a->tracker;
}

int archive_open(struct archive **out, const char *final_path,
                 const struct archive_options *options, char *why, size_t why_size)
{
  struct archive *a = etwcap_calloc(1, sizeof(*a));
  size_t tmp_size = strlen(final_path) + 32;
  zlib_filefunc64_def funcs;
  int rc;

  *out = NULL;
  why[0] = '\0';
  if (options && options->comment && strlen(options->comment) > 0xFFFF) {
    /* Its length is a 16-bit field (APPNOTE 4.3.16). */
    snprintf(why, why_size, "cannot write '%s': its comment is longer than 65,535 bytes",
             final_path);
    etwcap_free(a);
    return ETWCAP_E_RANGE;
  }
  if (a) {
    if (options)
      a->o = *options;
    use_tracker(a, a->o.io ? a->o.io : &file_io_plain);
    file_io_to_minizip(&a->tio, &funcs);
    a->tmp = etwcap_malloc(tmp_size);
    a->final_path = etwcap_strdup(final_path);
  }
  if (!a || !a->tmp || !a->final_path) {
    snprintf(why, why_size, "cannot write '%s': %s", final_path,
             etwcap_strerror(ETWCAP_E_NOMEM));
    if (a)
      free_archive(a);
    return ETWCAP_E_NOMEM;
  }
  rc = os_temp_name(final_path, a->tmp, tmp_size);
  if (rc) {
    snprintf(why, why_size, "cannot name a temporary file beside '%s': %s", final_path,
             etwcap_strerror(rc));
    free_archive(a);
    return rc;
  }
  a->zf = zipOpen2_64(a->tmp, APPEND_STATUS_CREATE, NULL, &funcs);
  if (!a->zf) {
    rc = a->tracker.first_error ? a->tracker.first_error : ETWCAP_E_IO;
    file_create_error(why, why_size, a->tmp, rc);
    if (a->tracker.stream)
      a->tio.remove(a->tio.opaque, a->tmp); /* created before minizip failed */
    free_archive(a);
    return rc;
  }
  *out = a;
  return 0;
}

int archive_add(struct archive *a, const struct archive_member *m, uint64_t *bytes, char *why,
                size_t why_size)
{
  int rc;
  why[0] = '\0';
  if (!utf8_valid((const uint8_t *)m->name, strlen(m->name))) {
    /* Names are flagged UTF-8 in the zip: bytes that are not would lie. */
    snprintf(why, why_size, "the name '%s' is not valid UTF-8: rename it", m->name);
    return ETWCAP_E_USAGE;
  }
  if (etwcap_grow((void **)&a->expect, &a->cap, a->count, sizeof(*a->expect), 4)) {
    snprintf(why, why_size, "cannot add '%s' to the zip: %s", m->name,
             etwcap_strerror(ETWCAP_E_NOMEM));
    return ETWCAP_E_NOMEM;
  }
  memset(&a->expect[a->count], 0, sizeof(*a->expect));
  rc = add_member(a->zf, &a->tracker, &a->tio, a->final_path, m, &a->o, &a->expect[a->count],
                  why, why_size);
  a->in_bytes += a->expect[a->count].size;
  if (bytes)
    *bytes = a->expect[a->count].size;
  a->count++;
  return rc;
}

void archive_abort(struct archive *a)
{
  if (!a)
    return;
  zipClose(a->zf, NULL);
  a->tio.remove(a->tio.opaque, a->tmp); /* never leave a half zip behind */
  free_archive(a);
}

int archive_commit(struct archive *a, struct archive_stats *stats, char *why, size_t why_size)
{
  int64_t zip_size = 0;
  int rc = zipClose(a->zf, a->o.comment) == ZIP_OK ? 0 : ETWCAP_E_IO;

  why[0] = '\0';
  memset(stats, 0, sizeof(*stats));
  a->zf = NULL;
  if (rc || a->tracker.first_error) {
    rc = a->tracker.first_error ? a->tracker.first_error : rc;
    snprintf(why, why_size, "cannot write '%s': %s", a->tmp, etwcap_strerror(rc));
  }
  if (!rc)
    rc = archive_verify(a->tmp, a->expect, a->count, a->o.threads, why, why_size);
  if (!rc && cancel_requested()) {
    rc = ETWCAP_E_CANCELLED; /* stopped while verifying: nothing replaces the old file */
    snprintf(why, why_size, "stopped before '%s' was complete", a->final_path);
  }
  if (!rc && os_file_size(a->tmp, &zip_size) == 0)
    stats->zip_bytes = (uint64_t)zip_size;
  stats->in_bytes = a->in_bytes;
  if (!rc) {
    rc = a->tio.rename(a->tio.opaque, a->tmp, a->final_path);
    if (rc)
      snprintf(why, why_size, "cannot rename '%s' to '%s': %s", a->tmp, a->final_path,
               etwcap_strerror(rc));
  }
  if (rc)
    a->tio.remove(a->tio.opaque, a->tmp);
  free_archive(a);
  return rc;
}

int archive_write(const char *final_path, const struct archive_member *members, size_t count,
                  const struct archive_options *options, struct archive_stats *stats,
                  char *why, size_t why_size)
{
  struct archive *a;
  char scratch[512];
  size_t i;
  int rc;

  if (!why) {
    why = scratch;
    why_size = sizeof(scratch);
  }
  memset(stats, 0, sizeof(*stats));
  rc = archive_open(&a, final_path, options, why, why_size);
  for (i = 0; i < count && !rc; i++)
    rc = archive_add(a, &members[i], NULL, why, why_size);
  if (rc)
    archive_abort(a);
  else
    rc = archive_commit(a, stats, why, why_size);
  return rc;
}
