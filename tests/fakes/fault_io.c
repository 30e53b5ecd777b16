/* Fault injection over file_io_plain (see fault_io.h). */
#include "tests/fakes/fault_io.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

struct fault_stream {
  void *inner;
  int error;
};

static void *f_open(void *o, const char *path, int w, int *err)
{
  struct fault_stream *s = etwcap_calloc(1, sizeof(*s));
  (void)o;
  if (!s) {
    *err = ETWCAP_E_NOMEM;
    return NULL;
  }
  s->inner = file_io_plain.open(NULL, path, w, err);
  if (!s->inner) {
    etwcap_free(s);
    return NULL;
  }
  return s;
}

static size_t f_read(void *o, void *s, void *b, size_t n)
{
  (void)o;
  return file_io_plain.read(NULL, ((struct fault_stream *)s)->inner, b, n);
}

static size_t f_write(void *o, void *stream, const void *b, size_t n)
{
  struct fault_io *f = o;
  struct fault_stream *s = stream;
  unsigned k = ++f->writes, d = n >= FAULT_IO_DATA_BYTES ? ++f->data_writes : 0;
  if (s->error)
    return 0;
  if (k == f->fail_write_at) {
    s->error = ETWCAP_E_NOSPC;
    return 0;
  }
  if (k == f->short_write_at && n > 1) {
    file_io_plain.write(NULL, s->inner, b, n / 2);
    s->error = ETWCAP_E_NOSPC;
    return n / 2;
  }
  if (d && d == f->corrupt_data_write_at) {
    unsigned char *copy = etwcap_malloc(n);
    size_t put;
    if (!copy)
      return 0;
    memcpy(copy, b, n);
    copy[n / 2] ^= 0x40; /* a flipped bit the writer cannot see */
    put = file_io_plain.write(NULL, s->inner, copy, n);
    etwcap_free(copy);
    return put;
  }
  return file_io_plain.write(NULL, s->inner, b, n);
}

static int f_seek(void *o, void *s, int64_t off, int whence)
{
  (void)o;
  return file_io_plain.seek(NULL, ((struct fault_stream *)s)->inner, off, whence);
}

static int64_t f_tell(void *o, void *s)
{
  (void)o;
  return file_io_plain.tell(NULL, ((struct fault_stream *)s)->inner);
}

static int f_error(void *o, void *stream)
{
  struct fault_stream *s = stream;
  (void)o;
  return s->error ? s->error : file_io_plain.error(NULL, s->inner);
}

static int f_close(void *o, void *stream)
{
  struct fault_stream *s = stream;
  int rc = file_io_plain.close(NULL, s->inner);
  (void)o;
  if (s->error)
    rc = s->error;
  etwcap_free(s);
  return rc;
}

static int f_rename(void *o, const char *a, const char *b)
{
  struct fault_io *f = o;
  return f->fail_rename ? f->fail_rename : file_io_plain.rename(NULL, a, b);
}

static int f_remove(void *o, const char *p)
{
  (void)o;
  return file_io_plain.remove(NULL, p);
}

void fault_io_init(struct fault_io *f)
{
  memset(f, 0, sizeof(*f));
  f->io.open = f_open;
  f->io.read = f_read;
  f->io.write = f_write;
  f->io.seek = f_seek;
  f->io.tell = f_tell;
  f->io.error = f_error;
  f->io.close = f_close;
  f->io.rename = f_rename;
  f->io.remove = f_remove;
  f->io.opaque = f;
}
