/* The ETL writer (layout in etl_writer.h). */
#include "etw/etl/etl_writer.h"

#include "etw/etl/etl_encode.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

#define BUFFER_STATE_FLUSH 3u /* ETW_BUFFER_STATE of every buffer in Windows-written files */

struct cpu_buffer {
  uint8_t *bytes; /* NULL until the CPU logs its first event */
  uint32_t filled;
  uint64_t last_timestamp;
};

struct etl_writer {
  struct etl_writer_config cfg;
  const struct file_io *io;
  void *stream;
  char *path;
  struct cpu_buffer *cpus;
  uint32_t cpu_count; /* highest CPU seen + 1 */
  uint64_t sequence;  /* next SequenceNumber */
  uint64_t events;
  uint32_t buffers_written;
  uint8_t **extra; /* copies of the extra header events */
  uint32_t *extra_size;
  int error;
};

static int fail(struct etl_writer *w, int rc)
{
  if (!w->error)
    w->error = rc;
  return w->error;
}

static int put(struct etl_writer *w, const void *bytes, size_t n)
{
  if (w->error)
    return w->error;
  if (w->io->write(w->io->opaque, w->stream, bytes, n) != n) {
    int rc = w->io->error(w->io->opaque, w->stream);
    return fail(w, rc ? rc : ETWCAP_E_IO);
  }
  return 0;
}

static uint32_t aligned(uint32_t size)
{
  return (size + 7u) & ~7u;
}

/* Builds buffer 0 in `b` (buffer_size bytes) from the current header. */
static int build_header_buffer(struct etl_writer *w, uint8_t *b)
{
  struct etl_logfile *lf = &w->cfg.header;
  struct etl_buffer_header h;
  size_t payload = etl_logfile_payload_size(lf), i;
  uint32_t pos = ETL_BUFFER_HEADER_SIZE, size = (uint32_t)(0x20 + payload);

  if (payload > 0xFFFF - 0x20 || ETL_BUFFER_HEADER_SIZE + aligned(size) > w->cfg.buffer_size)
    return ETWCAP_E_RANGE;
  memset(b, 0xFF, w->cfg.buffer_size);
  memset(b + pos, 0, aligned(size));
  etl_system_header_encode(b + pos, lf->pointer_size != 4, (uint16_t)size, 0x0000,
                           w->cfg.header_tid, w->cfg.header_pid, lf->header_timestamp);
  etl_logfile_encode(b + pos + 0x20, lf, w->cfg.tz_raw);
  pos += aligned(size);
  for (i = 0; i < w->cfg.extra_header_count; i++) {
    if (pos + aligned(w->extra_size[i]) > w->cfg.buffer_size)
      return ETWCAP_E_RANGE;
    memset(b + pos, 0, aligned(w->extra_size[i]));
    memcpy(b + pos, w->extra[i], w->extra_size[i]);
    pos += aligned(w->extra_size[i]);
  }
  memset(&h, 0, sizeof(h));
  h.buffer_size = w->cfg.buffer_size;
  h.saved_offset = pos;
  h.filled = pos;
  h.cpu = 0;
  h.logger_id = w->cfg.logger_id;
  h.state = BUFFER_STATE_FLUSH;
  h.flags = ETL_BUFFER_FLAG_FLUSH_MARKER | ETL_BUFFER_FLAG_PROC_INDEX;
  h.type = ETL_BUFFER_TYPE_HEADER;
  etl_buffer_header_encode(b, &h);
  return 0;
}

static int flush_cpu(struct etl_writer *w, uint16_t cpu)
{
  struct cpu_buffer *c = &w->cpus[cpu];
  struct etl_buffer_header h;
  if (c->filled <= ETL_BUFFER_HEADER_SIZE)
    return w->error;
  memset(&h, 0, sizeof(h));
  h.buffer_size = w->cfg.buffer_size;
  h.saved_offset = c->filled;
  h.filled = c->filled;
  h.timestamp = c->last_timestamp;
  h.sequence = w->sequence++;
  h.cpu = cpu;
  h.logger_id = w->cfg.logger_id;
  h.state = BUFFER_STATE_FLUSH;
  h.flags = ETL_BUFFER_FLAG_PROC_INDEX;
  h.type = ETL_BUFFER_TYPE_GENERIC;
  etl_buffer_header_encode(c->bytes, &h);
  memset(c->bytes + c->filled, 0xFF, w->cfg.buffer_size - c->filled);
  c->filled = ETL_BUFFER_HEADER_SIZE;
  w->buffers_written++;
  return put(w, c->bytes, w->cfg.buffer_size);
}

static int copy_extras(struct etl_writer *w)
{
  size_t i, n = w->cfg.extra_header_count;
  w->extra = etwcap_calloc(n ? n : 1, sizeof(*w->extra));
  w->extra_size = etwcap_calloc(n ? n : 1, sizeof(*w->extra_size));
  if (!w->extra || !w->extra_size)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < n; i++) {
    const uint8_t *r = w->cfg.extra_header_events[i];
    /* Header-group events are SYSTEM headers: Size is the u16 at offset 4. */
    uint32_t size = (uint32_t)(r[4] | r[5] << 8);
    if (size < 0x20)
      return ETWCAP_E_CORRUPT;
    w->extra[i] = etwcap_malloc(size);
    if (!w->extra[i])
      return ETWCAP_E_NOMEM;
    memcpy(w->extra[i], r, size);
    w->extra_size[i] = size;
  }
  w->cfg.extra_header_events = NULL;
  return 0;
}

int etl_writer_add_header_event(struct etl_writer *w, const void *record)
{
  const uint8_t *r = record;
  size_t n = w->cfg.extra_header_count;
  uint32_t size = (uint32_t)(r[4] | r[5] << 8);
  uint8_t **grown;
  uint32_t *grown_size;
  if (w->error)
    return w->error;
  if (size < 0x20)
    return fail(w, ETWCAP_E_CORRUPT);
  grown = etwcap_reallocarray(w->extra, n + 1, sizeof(*grown));
  if (!grown)
    return fail(w, ETWCAP_E_NOMEM);
  w->extra = grown;
  grown_size = etwcap_reallocarray(w->extra_size, n + 1, sizeof(*grown_size));
  if (!grown_size)
    return fail(w, ETWCAP_E_NOMEM);
  w->extra_size = grown_size;
  w->extra[n] = etwcap_malloc(size);
  if (!w->extra[n])
    return fail(w, ETWCAP_E_NOMEM);
  memcpy(w->extra[n], r, size);
  w->extra_size[n] = size;
  w->cfg.extra_header_count = n + 1;
  return 0;
}

static void free_writer(struct etl_writer *w)
{
  uint32_t i;
  size_t k;
  for (i = 0; w->cpus && i < ETL_WRITER_MAX_CPUS; i++)
    etwcap_free(w->cpus[i].bytes);
  for (k = 0; w->extra && k < w->cfg.extra_header_count; k++)
    etwcap_free(w->extra[k]);
  etwcap_free(w->extra);
  etwcap_free(w->extra_size);
  etwcap_free(w->cpus);
  etwcap_free(w->path);
  etwcap_free(w);
}

int etl_writer_open(struct etl_writer **out, const char *path,
                    const struct etl_writer_config *config)
{
  struct etl_writer *w = etwcap_calloc(1, sizeof(*w));
  uint8_t *header = NULL;
  int rc;

  *out = NULL;
  if (!w)
    return ETWCAP_E_NOMEM;
  w->cfg = *config;
  if (!w->cfg.buffer_size)
    w->cfg.buffer_size = ETL_WRITER_DEFAULT_BUFFER_SIZE;
  w->io = config->io ? config->io : &file_io_plain;
  if (w->cfg.buffer_size < 4096 || w->cfg.buffer_size % 8 || w->cfg.buffer_size > (64u << 20) ||
      (w->cfg.header.pointer_size != 4 && w->cfg.header.pointer_size != 8)) {
    free_writer(w);
    return ETWCAP_E_RANGE;
  }
  w->cfg.header.buffer_size = w->cfg.buffer_size;
  /* The writer never compresses buffers; a reader must not expect it to. */
  w->cfg.header.log_file_mode &= ~ETL_MODE_COMPRESSED;
  w->sequence = 1; /* the header buffer is sequence 0 */
  w->path = etwcap_strdup(path);
  w->cpus = etwcap_calloc(ETL_WRITER_MAX_CPUS, sizeof(*w->cpus));
  header = etwcap_malloc(w->cfg.buffer_size);
  rc = w->path && w->cpus && header ? copy_extras(w) : ETWCAP_E_NOMEM;
  /* Buffer 0 now, to reserve its place; finish writes it again. */
  if (!rc)
    rc = build_header_buffer(w, header);
  if (!rc) {
    w->stream = w->io->open(w->io->opaque, path, 1, &rc);
    if (w->stream)
      rc = put(w, header, w->cfg.buffer_size);
  }
  etwcap_free(header);
  if (rc) {
    etl_writer_abort(w);
    return rc;
  }
  w->buffers_written = 1;
  *out = w;
  return 0;
}

int etl_writer_write(struct etl_writer *w, uint16_t cpu, uint64_t timestamp, const void *record,
                     uint32_t size)
{
  struct cpu_buffer *c;
  if (w->error)
    return w->error;
  if (cpu >= ETL_WRITER_MAX_CPUS || size < 4 ||
      aligned(size) > w->cfg.buffer_size - ETL_BUFFER_HEADER_SIZE)
    return fail(w, ETWCAP_E_RANGE);
  c = &w->cpus[cpu];
  if (!c->bytes) {
    c->bytes = etwcap_malloc(w->cfg.buffer_size);
    if (!c->bytes)
      return fail(w, ETWCAP_E_NOMEM);
    c->filled = ETL_BUFFER_HEADER_SIZE;
    if (cpu >= w->cpu_count)
      w->cpu_count = (uint32_t)cpu + 1;
  }
  if (c->filled + aligned(size) > w->cfg.buffer_size && flush_cpu(w, cpu))
    return w->error;
  memcpy(c->bytes + c->filled, record, size);
  memset(c->bytes + c->filled + size, 0, aligned(size) - size);
  c->filled += aligned(size);
  c->last_timestamp = timestamp;
  w->events++;
  return 0;
}

struct etl_logfile *etl_writer_header(struct etl_writer *w)
{
  return &w->cfg.header;
}

uint64_t etl_writer_events(const struct etl_writer *w)
{
  return w->events;
}

int etl_writer_finish(struct etl_writer *w)
{
  uint8_t *header = NULL;
  uint32_t cpu;
  int rc;

  for (cpu = 0; cpu < w->cpu_count && !w->error; cpu++)
    if (w->cpus[cpu].bytes)
      flush_cpu(w, (uint16_t)cpu);
  if (!w->error) {
    struct etl_logfile *lf = &w->cfg.header;
    lf->buffers_written = w->buffers_written;
    if (lf->cpus < w->cpu_count)
      lf->cpus = w->cpu_count;
    header = etwcap_malloc(w->cfg.buffer_size);
    if (!header)
      fail(w, ETWCAP_E_NOMEM);
    else if ((rc = build_header_buffer(w, header)) != 0)
      fail(w, rc);
    else if ((rc = w->io->seek(w->io->opaque, w->stream, 0, SEEK_SET)) != 0)
      fail(w, rc);
    else
      put(w, header, w->cfg.buffer_size);
    etwcap_free(header);
  }
  rc = w->io->close(w->io->opaque, w->stream);
  w->stream = NULL;
  if (rc)
    fail(w, rc);
  rc = w->error;
  if (rc)
    w->io->remove(w->io->opaque, w->path);
  free_writer(w);
  return rc;
}

void etl_writer_abort(struct etl_writer *w)
{
  if (w->stream) {
    w->io->close(w->io->opaque, w->stream);
    w->io->remove(w->io->opaque, w->path);
  }
  free_writer(w);
}
