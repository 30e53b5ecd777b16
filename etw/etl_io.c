/* etl_io over the base layer's byte sources (byte_source.h): the same
 * four fields, so opening one is opening the other and copying them. */
#include "etl_io.h"

#include "byte_source.h"

#include <string.h>

static void from_source(struct etl_io *io, const struct byte_source *s)
{
  io->read_at = s->read_at;
  io->close = s->close;
  io->ctx = s->ctx;
  io->size = s->size;
}

int etl_io_open_file(struct etl_io *io, const char *path)
{
  struct byte_source s;
  int rc = byte_source_open_file(&s, path);
  memset(io, 0, sizeof(*io));
  if (!rc)
    from_source(io, &s);
  return rc;
}

int etl_io_open_memory(struct etl_io *io, const void *data, size_t len)
{
  struct byte_source s;
  int rc = byte_source_open_memory(&s, data, len);
  memset(io, 0, sizeof(*io));
  if (!rc)
    from_source(io, &s);
  return rc;
}

void etl_io_close(struct etl_io *io)
{
  if (io->close)
    io->close(io->ctx);
  memset(io, 0, sizeof(*io));
}

int etl_io_read_exact(const struct etl_io *io, uint64_t offset, void *buf, size_t len,
                      size_t *got)
{
  struct byte_source s;
  s.read_at = io->read_at;
  s.close = NULL;
  s.ctx = io->ctx;
  s.size = io->size;
  return byte_source_read_exact(&s, offset, buf, len, got);
}
