/* Encoding the fixed ETL structures (see etl_encode.h). */
#include "etw/etl/etl_encode.h"

#include <string.h>

void etl_buffer_header_encode(uint8_t *p, const struct etl_buffer_header *h)
{
  memset(p, 0, ETL_BUFFER_HEADER_SIZE);
  etl_put32(p + 0x00, h->buffer_size);
  etl_put32(p + 0x04, h->saved_offset);
  etl_put32(p + 0x08, h->filled); /* CurrentOffset: readers ignore it; Windows' is near Offset */
  etl_put64(p + 0x10, h->timestamp);
  etl_put64(p + 0x18, h->sequence);
  etl_put16(p + 0x28, h->cpu);
  etl_put16(p + 0x2A, h->logger_id);
  etl_put32(p + 0x2C, h->state);
  etl_put32(p + 0x30, h->filled);
  etl_put16(p + 0x34, h->flags);
  etl_put16(p + 0x36, h->type);
}

/* UTF-8 to UTF-16LE with a terminating NUL; returns bytes written (or that
 * would be written when out is NULL).  Invalid bytes become U+FFFD. */
static size_t utf16_put(uint8_t *out, const char *s)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t n = 0;
  while (*u) {
    uint32_t c = *u++;
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (c >= 0x80 && c < 0xC0) {
      c = 0xFFFD;
    } else if (extra) {
      c &= 0x3Fu >> extra;
      while (extra-- && (*u & 0xC0) == 0x80)
        c = c << 6 | (*u++ & 0x3F);
    }
    if (c >= 0x10000) {
      c -= 0x10000;
      if (out) {
        etl_put16(out + n, (uint16_t)(0xD800 | c >> 10));
        etl_put16(out + n + 2, (uint16_t)(0xDC00 | (c & 0x3FF)));
      }
      n += 4;
    } else {
      if (out)
        etl_put16(out + n, (uint16_t)c);
      n += 2;
    }
  }
  if (out)
    etl_put16(out + n, 0);
  return n + 2;
}

static size_t fixed_size(const struct etl_logfile *lf)
{
  return lf->pointer_size == 4 ? 0x110 : 0x118;
}

size_t etl_logfile_payload_size(const struct etl_logfile *lf)
{
  return fixed_size(lf) + utf16_put(NULL, lf->logger_name) + utf16_put(NULL, lf->log_file_name);
}

void etl_logfile_encode(uint8_t *p, const struct etl_logfile *lf, const uint8_t *tz_raw)
{
  int is64 = lf->pointer_size != 4;
  size_t tz = is64 ? 0x48 : 0x40, late = is64 ? 0xF8 : 0xF0, names = fixed_size(lf);
  memset(p, 0, names);
  etl_put32(p + 0x00, lf->buffer_size);
  p[0x04] = lf->os_major;
  p[0x05] = lf->os_minor;
  p[0x06] = lf->os_sub;
  p[0x07] = lf->os_subminor;
  etl_put32(p + 0x08, lf->build);
  etl_put32(p + 0x0C, lf->cpus);
  etl_put64(p + 0x10, (uint64_t)lf->end_time);
  etl_put32(p + 0x18, lf->timer_resolution);
  etl_put32(p + 0x1C, lf->max_file_size);
  etl_put32(p + 0x20, lf->log_file_mode);
  etl_put32(p + 0x24, lf->buffers_written);
  etl_put32(p + 0x28, lf->start_buffers);
  etl_put32(p + 0x2C, lf->pointer_size);
  etl_put32(p + 0x30, lf->events_lost);
  etl_put32(p + 0x34, lf->cpu_mhz);
  /* The LoggerName/LogFileName pointer fields hold nothing useful in files. */
  if (tz_raw) {
    memcpy(p + tz, tz_raw, ETL_TZ_BLOCK_SIZE);
  } else {
    uint8_t name[70];
    size_t n = utf16_put(name, lf->tz_standard_name);
    etl_put32(p + tz, (uint32_t)lf->tz_bias);
    memcpy(p + tz + 4, name, n > 64 ? 64 : n);
  }
  etl_put64(p + late + 0x00, (uint64_t)lf->boot_time);
  etl_put64(p + late + 0x08, (uint64_t)lf->perf_freq);
  etl_put64(p + late + 0x10, (uint64_t)lf->start_time);
  etl_put32(p + late + 0x18, lf->clock_type);
  etl_put32(p + late + 0x1C, lf->buffers_lost);
  names += utf16_put(p + names, lf->logger_name);
  utf16_put(p + names, lf->log_file_name);
}

void etl_system_header_encode(uint8_t *p, int is64, uint16_t size, uint16_t hook_id, uint32_t tid,
                              uint32_t pid, uint64_t timestamp)
{
  memset(p, 0, 0x20);
  etl_put16(p + 0x00, 2); /* Version */
  p[0x02] = is64 ? 0x02 : 0x01; /* SYSTEM64 / SYSTEM32 */
  p[0x03] = 0xC0;               /* TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE */
  etl_put16(p + 0x04, size);
  etl_put16(p + 0x06, hook_id);
  etl_put32(p + 0x08, tid);
  etl_put32(p + 0x0C, pid);
  etl_put64(p + 0x10, timestamp);
}
