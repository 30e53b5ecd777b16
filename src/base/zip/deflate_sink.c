/* The compressing file_io (contract in deflate_sink.h). */
#include "src/base/zip/deflate_sink.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

static int sink_fail(struct deflate_sink *s, int rc)
{
  if (!s->error)
    s->error = rc;
  return s->error;
}

static void *sink_open(void *opaque, const char *path, int for_write, int *err)
{
  struct deflate_sink *s = opaque;
  (void)path;
  if (!for_write || s->opened) {
    *err = ETWCAP_E_INTERNAL;
    return NULL;
  }
  s->opened = 1;
  return s;
}

static size_t sink_read(void *opaque, void *stream, void *buf, size_t n)
{
  (void)stream;
  (void)buf;
  (void)n;
  sink_fail(opaque, ETWCAP_E_INTERNAL);
  return 0;
}

/* The first write: kept, and stored so that it can be overwritten. */
static int write_head(struct deflate_sink *s, const void *buf, size_t n)
{
  s->head = etwcap_malloc(n);
  if (!s->head)
    return ETWCAP_E_NOMEM;
  memcpy(s->head, buf, n);
  s->head_len = n;
  return deflate_stream_store(s->stream, buf, n);
}

static size_t sink_write(void *opaque, void *stream, const void *buf, size_t n)
{
  struct deflate_sink *s = opaque;
  int rc = 0;
  (void)stream;
  if (s->error || n == 0)
    return s->error ? 0 : n;
  if (s->pos < s->size) {
    /* Rewriting the head, which must not grow. */
    if (n > s->head_len - s->pos)
      rc = ETWCAP_E_INTERNAL;
    else
      memcpy(s->head + s->pos, buf, n);
  } else if (!s->head) {
    rc = write_head(s, buf, n);
  } else {
    rc = deflate_stream_write(s->stream, buf, n);
  }
  if (rc) {
    sink_fail(s, rc);
    return 0;
  }
  s->pos += n;
  if (s->pos > s->size)
    s->size = s->pos;
  return n;
}

static int sink_seek(void *opaque, void *stream, int64_t offset, int whence)
{
  struct deflate_sink *s = opaque;
  (void)stream;
  if (whence == SEEK_END && offset == 0)
    s->pos = s->size;
  else if (whence == SEEK_SET && offset >= 0 &&
           ((uint64_t)offset < s->head_len || (uint64_t)offset == s->size))
    s->pos = (uint64_t)offset;
  else
    return sink_fail(s, ETWCAP_E_INTERNAL);
  return 0;
}

static int64_t sink_tell(void *opaque, void *stream)
{
  (void)stream;
  return (int64_t)((struct deflate_sink *)opaque)->pos;
}

static int sink_error(void *opaque, void *stream)
{
  (void)stream;
  return ((struct deflate_sink *)opaque)->error;
}

static int sink_close(void *opaque, void *stream)
{
  struct deflate_sink *s = opaque;
  (void)stream;
  s->closed = 1;
  return s->error;
}

static int sink_rename(void *opaque, const char *from, const char *to)
{
  (void)from;
  (void)to;
  return sink_fail(opaque, ETWCAP_E_INTERNAL);
}

static int sink_remove(void *opaque, const char *path)
{
  (void)path;
  ((struct deflate_sink *)opaque)->abandoned = 1;
  return 0;
}

void deflate_sink_init(struct deflate_sink *s, struct deflate_stream *stream)
{
  memset(s, 0, sizeof(*s));
  s->stream = stream;
  s->io.open = sink_open;
  s->io.read = sink_read;
  s->io.write = sink_write;
  s->io.seek = sink_seek;
  s->io.tell = sink_tell;
  s->io.error = sink_error;
  s->io.close = sink_close;
  s->io.rename = sink_rename;
  s->io.remove = sink_remove;
  s->io.opaque = s;
}

void deflate_sink_release(struct deflate_sink *s)
{
  etwcap_free(s->head);
  s->head = NULL;
}
