/* See etl_source.h.  A zip is told from an ETL by its first four bytes, so
 * a renamed file is still read correctly. */
#include "etw/etl/etl_source.h"

#include "etw/etl/etl_zip.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

static int run_reader(const struct byte_source *io, const char *display, etl_source_fn fn,
                      void *ctx, char *err, size_t errcap)
{
  struct etl_reader *r = NULL;
  int rc = etl_reader_open(&r, io, display);
  if (rc == 0)
    rc = fn(ctx, display, r);
  if (rc < 0 && err[0] == '\0') {
    if (r && etl_reader_error(r)[0])
      snprintf(err, errcap, "%s", etl_reader_error(r));
    else
      snprintf(err, errcap, "%s: %s", display, etwcap_strerror(rc));
  }
  etl_reader_free(r);
  return rc;
}

static int run_zip(struct etl_zip *z, const char *label, etl_source_fn fn, void *ctx,
                   char *err, size_t errcap)
{
  char member[1024], display[2048];
  int rc, found = 0;
  while ((rc = etl_zip_next_etl(z, member, sizeof(member))) == 1) {
    struct byte_source io;
    found++;
    snprintf(display, sizeof(display), "%s!%s", label, member);
    rc = etl_zip_member_io(z, &io);
    if (rc) {
      snprintf(err, errcap, "%s!%s: %s", label, member, etl_zip_error(z));
      return rc;
    }
    rc = run_reader(&io, display, fn, ctx, err, errcap);
    if (rc < 0 && etl_zip_error(z)[0])
      snprintf(err, errcap, "%s", etl_zip_error(z)); /* the zip's own damage, by name */
    if (rc)
      return rc;
  }
  if (rc < 0) {
    snprintf(err, errcap, "%s", etl_zip_error(z));
    return rc;
  }
  if (!found) {
    snprintf(err, errcap, "%s: the zip archive holds no .etl file", label);
    return ETWCAP_E_FORMAT;
  }
  return 0;
}

int etl_source_foreach(const char *path, etl_source_fn fn, void *ctx, char *err,
                       size_t errcap)
{
  struct byte_source io;
  uint8_t magic[4];
  size_t got = 0;
  int rc;

  err[0] = '\0';
  rc = byte_source_open_file(&io, path);
  if (rc) {
    snprintf(err, errcap, "%s: cannot open: %s", path, etwcap_strerror(rc));
    return rc;
  }
  rc = byte_source_read_exact(&io, 0, magic, sizeof(magic), &got);
  if (rc && rc != ETWCAP_E_TRUNCATED) {
    snprintf(err, errcap, "%s: cannot read: %s", path, etwcap_strerror(rc));
    byte_source_close(&io);
    return rc;
  }
  if (etl_zip_detect(&io)) {
    struct etl_zip *z = NULL;
    byte_source_close(&io);
    rc = etl_zip_open_file(&z, path);
    if (rc)
      snprintf(err, errcap, "%s", z ? etl_zip_error(z) : etwcap_strerror(rc));
    else
      rc = run_zip(z, path, fn, ctx, err, errcap);
    etl_zip_close(z);
    return rc;
  }
  rc = run_reader(&io, path, fn, ctx, err, errcap);
  byte_source_close(&io);
  return rc;
}

int etl_source_foreach_memory(const void *data, size_t len, const char *label,
                              etl_source_fn fn, void *ctx, char *err, size_t errcap)
{
  struct byte_source io;
  int rc;
  err[0] = '\0';
  if (etl_zip_detect_memory(data, len)) {
    struct etl_zip *z = NULL;
    rc = etl_zip_open_memory(&z, data, len);
    if (rc)
      snprintf(err, errcap, "%s", z ? etl_zip_error(z) : etwcap_strerror(rc));
    else
      rc = run_zip(z, label, fn, ctx, err, errcap);
    etl_zip_close(z);
    return rc;
  }
  rc = byte_source_open_memory(&io, data, len);
  if (rc) {
    snprintf(err, errcap, "%s: %s", label, etwcap_strerror(rc));
    return rc;
  }
  rc = run_reader(&io, label, fn, ctx, err, errcap);
  byte_source_close(&io);
  return rc;
}
