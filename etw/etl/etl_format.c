/* Decoding of WMI_BUFFER_HEADER and TRACE_LOGFILE_HEADER with explicit
 * little-endian loads; offsets are from docs/etl.md §2 and §3. */
#include "etw/etl/etl_format.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <string.h>

void etl_buffer_header_decode(const uint8_t *p, struct etl_buffer_header *h)
{
  h->buffer_size = etl_le32(p + 0x00);
  h->saved_offset = etl_le32(p + 0x04);
  h->timestamp = etl_le64(p + 0x10);
  h->sequence = etl_le64(p + 0x18);
  h->logger_id = etl_le16(p + 0x2A);
  h->state = etl_le32(p + 0x2C);
  h->filled = etl_le32(p + 0x30);
  h->flags = etl_le16(p + 0x34);
  h->type = etl_le16(p + 0x36);
  /* Windows 8 widened ProcessorNumber to a u16 index and says so with
   * PROC_INDEX; before that the second byte is Alignment (Win7: 0x0800). */
  h->cpu = (h->flags & ETL_BUFFER_FLAG_PROC_INDEX) ? etl_le16(p + 0x28) : p[0x28];
}

/* Appends c to out; 1 when it does not fit (nothing written). */
static int put_utf8(char *out, size_t cap, size_t *o, uint32_t c)
{
  uint8_t tmp[4];
  size_t n, i;
  if (c < 0x80) {
    tmp[0] = (uint8_t)c;
    n = 1;
  } else if (c < 0x800) {
    tmp[0] = (uint8_t)(0xC0 | c >> 6);
    tmp[1] = (uint8_t)(0x80 | (c & 0x3F));
    n = 2;
  } else if (c < 0x10000) {
    tmp[0] = (uint8_t)(0xE0 | c >> 12);
    tmp[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
    tmp[2] = (uint8_t)(0x80 | (c & 0x3F));
    n = 3;
  } else {
    tmp[0] = (uint8_t)(0xF0 | c >> 18);
    tmp[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
    tmp[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
    tmp[3] = (uint8_t)(0x80 | (c & 0x3F));
    n = 4;
  }
  if (*o + n >= cap)
    return 1;
  for (i = 0; i < n; i++)
    out[(*o)++] = (char)tmp[i];
  return 0;
}

/* etl_utf16_to_utf8, and *cut set when the string did not fit: the output
 * ends at the character boundary before the first that did not. */
static size_t convert(const uint8_t *p, size_t len, char *out, size_t cap, int *cut)
{
  size_t i = 0, o = 0;
  *cut = 0;
  while (i + 2 <= len) {
    uint32_t c = etl_le16(p + i);
    i += 2;
    if (c == 0) {
      if (cap)
        out[o < cap ? o : cap - 1] = '\0';
      return i;
    }
    if (c >= 0xD800 && c < 0xDC00 && i + 2 <= len) {
      uint32_t lo = etl_le16(p + i);
      if (lo >= 0xDC00 && lo < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        i += 2;
      } else {
        c = 0xFFFD;
      }
    } else if (c >= 0xD800 && c < 0xE000) {
      c = 0xFFFD;
    }
    if (cap && !*cut)
      *cut = put_utf8(out, cap, &o, c);
  }
  if (cap)
    out[o < cap ? o : cap - 1] = '\0';
  return len;
}

size_t etl_utf16_to_utf8(const uint8_t *p, size_t len, char *out, size_t cap)
{
  int cut;
  return convert(p, len, out, cap, &cut);
}

int etl_utf16_to_utf8_whole(const uint8_t *p, size_t len, char *out, size_t cap)
{
  int cut;
  convert(p, len, out, cap, &cut);
  return cut || !cap ? ETWCAP_E_NAMETOOLONG : 0;
}

int etl_logfile_decode(const uint8_t *p, size_t len, int is64, struct etl_logfile *lf)
{
  /* The x86 layout has 4-byte LoggerName/LogFileName "pointers", so every
   * field after them sits 8 bytes earlier (§3 table). */
  size_t fixed = is64 ? 0x118 : 0x110;
  size_t tz = is64 ? 0x48 : 0x40;
  size_t late = is64 ? 0xF8 : 0xF0;
  size_t used;
  memset(lf, 0, sizeof(*lf));
  if (len < fixed)
    return ETWCAP_E_CORRUPT;
  lf->header_is_64 = is64;
  lf->buffer_size = etl_le32(p + 0x00);
  lf->os_major = p[0x04];
  lf->os_minor = p[0x05];
  lf->os_sub = p[0x06];
  lf->os_subminor = p[0x07];
  lf->build = etl_le32(p + 0x08);
  lf->cpus = etl_le32(p + 0x0C);
  lf->end_time = (int64_t)etl_le64(p + 0x10);
  lf->timer_resolution = etl_le32(p + 0x18);
  lf->max_file_size = etl_le32(p + 0x1C);
  lf->log_file_mode = etl_le32(p + 0x20);
  lf->buffers_written = etl_le32(p + 0x24);
  lf->start_buffers = etl_le32(p + 0x28);
  lf->pointer_size = etl_le32(p + 0x2C);
  lf->events_lost = etl_le32(p + 0x30);
  lf->cpu_mhz = etl_le32(p + 0x34);
  /* TIME_ZONE_INFORMATION: Bias, then StandardName[32] (WCHAR). */
  lf->tz_bias = (int32_t)etl_le32(p + tz);
  memcpy(lf->tz_raw, p + tz, sizeof(lf->tz_raw));
  etl_utf16_to_utf8(p + tz + 4, 64, lf->tz_standard_name, sizeof(lf->tz_standard_name));
  /* 172 bytes of time zone, then the 4-byte pad all parsers but A know. */
  lf->boot_time = (int64_t)etl_le64(p + late);
  lf->perf_freq = (int64_t)etl_le64(p + late + 8);
  lf->start_time = (int64_t)etl_le64(p + late + 16);
  lf->clock_type = etl_le32(p + late + 24);
  lf->buffers_lost = etl_le32(p + late + 28);
  /* Then LoggerName and LogFileName as NUL-terminated UTF-16. */
  used = etl_utf16_to_utf8(p + fixed, len - fixed, lf->logger_name, sizeof(lf->logger_name));
  etl_utf16_to_utf8(p + fixed + used, len - fixed - used, lf->log_file_name,
                    sizeof(lf->log_file_name));
  /* dump and info print these names: a line break or terminal escape in a
   * crafted header stays off the user's terminal. */
  str_neutralise_controls(lf->tz_standard_name);
  str_neutralise_controls(lf->logger_name);
  str_neutralise_controls(lf->log_file_name);
  return 0;
}
