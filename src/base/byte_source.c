/* The file and memory byte sources (see byte_source.h).  The file one goes
 * through os_fopen/os_fseek64 so UTF-8 paths and >2 GB files work on every
 * OS; it seeks only when a read is not where the last one ended. */
#include "src/base/byte_source.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

struct file_ctx {
  FILE *f;
  uint64_t pos; /* where the stream is, to skip needless seeks */
};

static int file_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  struct file_ctx *fc = ctx;
  size_t n;
  *got = 0;
  if (offset > (uint64_t)INT64_MAX)
    return ETWCAP_E_RANGE;
  if (offset != fc->pos) {
    if (os_fseek64(fc->f, (int64_t)offset, SEEK_SET) != 0)
      return ETWCAP_E_IO;
    fc->pos = offset;
  }
  n = len ? fread(buf, 1, len, fc->f) : 0;
  fc->pos += n;
  *got = n;
  if (n < len && ferror(fc->f))
    return ETWCAP_E_IO;
  return 0;
}

static void file_close(void *ctx)
{
  struct file_ctx *fc = ctx;
  if (fc) {
    fclose(fc->f);
    etwcap_free(fc);
  }
}

int byte_source_open_file(struct byte_source *s, const char *path)
{
  return byte_source_open_file_id(s, path, NULL);
}

int byte_source_open_file_id(struct byte_source *s, const char *path, struct os_file_id *id)
{
  struct file_ctx *fc;
  int64_t size = -1;
  int rc;
  memset(s, 0, sizeof(*s));
  rc = os_file_size(path, &size);
  if (rc)
    return rc;
  if (os_is_directory(path))
    return ETWCAP_E_ISDIR;
  fc = etwcap_calloc(1, sizeof(*fc));
  if (!fc)
    return ETWCAP_E_NOMEM;
  fc->f = os_fopen_regular(path, id);
  if (!fc->f) {
    rc = os_last_error();
    etwcap_free(fc);
    return rc ? rc : ETWCAP_E_IO;
  }
  /* The reader asks for big chunks or exactly the bytes it needs: stdio's
   * own buffering would only add a copy and, on a seek, a wasted read. */
  setvbuf(fc->f, NULL, _IONBF, 0);
  s->read_at = file_read_at;
  s->close = file_close;
  s->ctx = fc;
  s->size = size;
  return 0;
}

struct mem_ctx {
  const uint8_t *data;
  size_t len;
};

static int mem_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  struct mem_ctx *mc = ctx;
  size_t n = 0;
  if (offset < mc->len) {
    n = mc->len - (size_t)offset;
    if (n > len)
      n = len;
    memcpy(buf, mc->data + offset, n);
  }
  *got = n;
  return 0;
}

static void mem_close(void *ctx)
{
  etwcap_free(ctx);
}

int byte_source_open_memory(struct byte_source *s, const void *data, size_t len)
{
  struct mem_ctx *mc;
  memset(s, 0, sizeof(*s));
  mc = etwcap_calloc(1, sizeof(*mc));
  if (!mc)
    return ETWCAP_E_NOMEM;
  mc->data = data;
  mc->len = len;
  s->read_at = mem_read_at;
  s->close = mem_close;
  s->ctx = mc;
  s->size = (int64_t)len;
  return 0;
}

void byte_source_close(struct byte_source *s)
{
  if (s->close)
    s->close(s->ctx);
  memset(s, 0, sizeof(*s));
}

int byte_source_read_exact(const struct byte_source *s, uint64_t offset, void *buf, size_t len,
                           size_t *got)
{
  size_t total = 0;
  while (total < len) {
    size_t n = 0;
    int rc = s->read_at(s->ctx, offset + total, (uint8_t *)buf + total, len - total, &n);
    if (rc) {
      if (got)
        *got = total;
      return rc;
    }
    if (n == 0)
      break;
    total += n;
  }
  if (got)
    *got = total;
  return total == len ? 0 : ETWCAP_E_TRUNCATED;
}
