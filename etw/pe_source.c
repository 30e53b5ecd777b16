/* The byte sources of the PE reader: memory (tests, fuzzing) and a file
 * opened through os_file.h (UTF-8 paths, 64-bit seeks on every OS).  Only
 * positional reads; nothing here knows the PE format. */
#include "pe_image.h"

#include "error.h"
#include "os_file.h"

#include <string.h>

static int memory_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  const struct pe_memory *m = ctx;
  size_t n = 0;
  if (offset < m->len) {
    n = m->len - (size_t)offset;
    if (n > len)
      n = len;
    memcpy(buf, m->data + offset, n);
  }
  *got = n;
  return 0;
}

void pe_source_memory(struct pe_source *src, struct pe_memory *mem, const void *data, size_t len)
{
  mem->data = data;
  mem->len = len;
  src->read_at = memory_read_at;
  src->ctx = mem;
  src->size = (int64_t)len;
}

static int file_read_at(void *ctx, uint64_t offset, void *buf, size_t len, size_t *got)
{
  struct pe_file *pf = ctx;
  size_t n;
  *got = 0;
  if (offset > (uint64_t)INT64_MAX)
    return ETWCAP_E_RANGE;
  if (os_fseek64(pf->f, (int64_t)offset, SEEK_SET) != 0)
    return ETWCAP_E_IO;
  n = fread(buf, 1, len, pf->f);
  if (n < len && ferror(pf->f)) {
    clearerr(pf->f);
    return ETWCAP_E_IO;
  }
  *got = n;
  return 0;
}

int pe_file_open(struct pe_file *pf, struct pe_source *src, const char *path)
{
  int64_t size = -1;
  pf->f = os_fopen(path, "rb");
  if (!pf->f)
    return os_last_error();
  if (os_fseek64(pf->f, 0, SEEK_END) == 0)
    size = os_ftell64(pf->f);
  src->read_at = file_read_at;
  src->ctx = pf;
  src->size = size;
  return 0;
}

void pe_file_close(struct pe_file *pf)
{
  if (pf->f)
    fclose(pf->f);
  pf->f = NULL;
}

int pe_read_exact(const struct pe_source *src, uint64_t offset, void *buf, size_t len)
{
  size_t got = 0;
  int rc;
  if (len == 0)
    return 0;
  rc = src->read_at(src->ctx, offset, buf, len, &got);
  if (rc < 0)
    return rc;
  return got == len ? 0 : ETWCAP_E_TRUNCATED;
}
