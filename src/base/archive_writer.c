/* The zip writer: temporary file, parallel deflate, verify, rename. */
#include "archive_writer.h"

#include "alloc.h"
#include "archive_verify.h"
#include "cancel.h"
#include "error.h"
#include "file_error.h"
#include "os_file.h"
#include "os_time.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>
#include <zip.h>

/* Wraps the caller's io to remember the first error of any stream, so a
 * minizip failure ("error writing") can be reported as what it was (disk
 * full, access denied...). */
struct tracker {
  const struct file_io *base;
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

/* --- feeding deflate_parallel --------------------------------------------- */

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
  memset(info, 0, sizeof(*info));
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

static int add_member(zipFile zf, struct tracker *tracker, const struct archive_member *m,
                      const struct archive_options *o, struct archive_expect *expect,
                      char *why, size_t why_size)
{
  struct member_source src = { NULL, m->data, m->size, 0 };
  struct zip_sink sink = { zf, tracker };
  struct deflate_params p;
  struct deflate_result r;
  zip_fileinfo info;
  int64_t size = (int64_t)m->size;
  int rc;

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
  dos_time(o->mtime_filetime, &info);
  /* Zip64 extra fields only where they can be needed, so small members stay
   * readable by the oldest unzip. */
  if (zipOpenNewFileInZip4_64(zf, m->name, &info, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
                              o->level ? o->level : 6, 1, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                              NULL, 0, 0, non_ascii(m->name) ? 0x800 : 0,
                              size >= 0xFFFFFFFFLL - (1 << 20)) != ZIP_OK) {
    rc = tracker->first_error ? tracker->first_error : ETWCAP_E_IO;
    goto cleanup;
  }
  memset(&p, 0, sizeof(p));
  p.level = o->level ? o->level : 6;
  p.threads = o->threads;
  p.read = member_read;
  p.read_ctx = &src;
  p.write = zip_write;
  p.write_ctx = &sink;
  p.progress = o->progress;
  p.progress_ctx = o->progress_ctx;
  rc = deflate_parallel(&p, &r);
  if (zipCloseFileInZipRaw64(zf, r.in_bytes, r.crc32) != ZIP_OK && !rc)
    rc = tracker->first_error ? tracker->first_error : ETWCAP_E_IO;
  if (!rc && m->path && (int64_t)r.in_bytes != size)
    rc = ETWCAP_E_IO; /* the input changed while we read it */
  expect->name = m->name;
  expect->size = r.in_bytes;
  expect->crc32 = r.crc32;
cleanup:
  if (src.f)
    fclose(src.f);
  if (rc && !why[0])
    snprintf(why, why_size, "cannot add '%s' to the zip: %s", m->path ? m->path : m->name,
             etwcap_strerror(rc));
  return rc;
}

int archive_write(const char *final_path, const struct archive_member *members, size_t count,
                  const struct archive_options *options, struct archive_stats *stats,
                  char *why, size_t why_size)
{
  struct archive_options defaults;
  struct tracker tracker;
  struct file_io tio;
  struct archive_expect *expect = NULL;
  zlib_filefunc64_def funcs;
  zipFile zf = NULL;
  char *tmp = NULL, scratch[512];
  size_t i;
  int rc = 0, created = 0;

  if (!why) {
    why = scratch;
    why_size = sizeof(scratch);
  }
  why[0] = '\0';
  memset(stats, 0, sizeof(*stats));
  for (i = 0; i < count; i++)
    if (!utf8_valid((const uint8_t *)members[i].name, strlen(members[i].name))) {
      /* Names are flagged UTF-8 in the zip: bytes that are not would lie. */
      snprintf(why, why_size, "the name '%s' is not valid UTF-8: rename it", members[i].name);
      return ETWCAP_E_USAGE;
    }
  if (!options) {
    memset(&defaults, 0, sizeof(defaults));
    options = &defaults;
  }
  tracker.base = options->io ? options->io : &file_io_plain;
  tracker.first_error = 0;
  tio.open = t_open;
  tio.read = t_read;
  tio.write = t_write;
  tio.seek = t_seek;
  tio.tell = t_tell;
  tio.error = t_error;
  tio.close = t_close;
  tio.rename = t_rename;
  tio.remove = t_remove;
  tio.opaque = &tracker;
  file_io_to_minizip(&tio, &funcs);

  tmp = etwcap_malloc(strlen(final_path) + 32);
  expect = etwcap_calloc(count ? count : 1, sizeof(*expect));
  if (!tmp || !expect) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  rc = os_temp_name(final_path, tmp, strlen(final_path) + 32);
  if (rc) {
    snprintf(why, why_size, "cannot name a temporary file beside '%s': %s", final_path,
             etwcap_strerror(rc));
    goto cleanup;
  }

  zf = zipOpen2_64(tmp, APPEND_STATUS_CREATE, NULL, &funcs);
  if (!zf) {
    rc = tracker.first_error ? tracker.first_error : ETWCAP_E_IO;
    file_create_error(why, why_size, tmp, rc);
    goto cleanup;
  }
  created = 1;
  for (i = 0; i < count && !rc; i++) {
    rc = add_member(zf, &tracker, &members[i], options, &expect[i], why, why_size);
    stats->in_bytes += expect[i].size;
  }
  if (zipClose(zf, NULL) != ZIP_OK && !rc)
    rc = tracker.first_error ? tracker.first_error : ETWCAP_E_IO;
  zf = NULL;
  if (rc) {
    if (!why[0])
      snprintf(why, why_size, "cannot write '%s': %s", tmp, etwcap_strerror(rc));
    goto cleanup;
  }

  rc = archive_verify(tmp, expect, count, why, why_size);
  if (rc)
    goto cleanup;
  {
    int64_t zip_size = 0;
    if (os_file_size(tmp, &zip_size) == 0)
      stats->zip_bytes = (uint64_t)zip_size;
  }
  rc = tio.rename(tio.opaque, tmp, final_path);
  if (rc)
    snprintf(why, why_size, "cannot rename '%s' to '%s': %s", tmp, final_path,
             etwcap_strerror(rc));
  else
    created = 0;

cleanup:
  if (zf)
    zipClose(zf, NULL);
  if (created && tmp)
    tio.remove(tio.opaque, tmp); /* never leave a half zip behind */
  etwcap_free(expect);
  etwcap_free(tmp);
  return rc;
}
