/* Hand assembly of ETL bytes for the reader's tests, straight from the
 * layouts in docs/etl.md (§2 WMI_BUFFER_HEADER, §3
 * TRACE_LOGFILE_HEADER, §4 trace headers).  Deliberately independent of
 * etw/: every offset here is written from the document, so a test compares
 * the reader with the layout, not with itself. */
#ifndef ETWCAP_TEST_ETL_BYTES_H
#define ETWCAP_TEST_ETL_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void tb16(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static inline void tb32(uint8_t *p, uint32_t v)
{
  tb16(p, (uint16_t)v);
  tb16(p + 2, (uint16_t)(v >> 16));
}

static inline void tb64(uint8_t *p, uint64_t v)
{
  tb32(p, (uint32_t)v);
  tb32(p + 4, (uint32_t)(v >> 32));
}

/* A GUID in Windows' byte order: Data1..3 little-endian, Data4 as is. */
static inline void tbguid(uint8_t *p, uint32_t d1, uint16_t d2, uint16_t d3, const char d4[8])
{
  tb32(p, d1);
  tb16(p + 4, d2);
  tb16(p + 6, d3);
  memcpy(p + 8, d4, 8);
}

/* §2: a 72-byte WMI_BUFFER_HEADER at b; the rest of the buffer is 0xFF
 * padding until events are written over it.  ctx16 is the u16 at 0x28
 * (ProcessorIndex, or ProcessorNumber + Alignment before Windows 8). */
static inline void tb_buffer(uint8_t *b, uint32_t buffer_size, uint32_t filled, uint64_t seq,
                             uint16_t ctx16, uint16_t flags, uint16_t type)
{
  memset(b, 0xFF, buffer_size);
  memset(b, 0, 72);
  tb32(b + 0x00, buffer_size);
  tb32(b + 0x04, filled); /* SavedOffset */
  tb32(b + 0x08, filled); /* CurrentOffset */
  tb64(b + 0x10, 0);      /* TimeStamp */
  tb64(b + 0x18, seq);
  tb16(b + 0x28, ctx16);
  tb16(b + 0x2A, 1);      /* LoggerId */
  tb32(b + 0x2C, 3);      /* State: flush */
  tb32(b + 0x30, filled); /* Offset */
  tb16(b + 0x34, flags);
  tb16(b + 0x36, type);
}

/* §3: the logfile-header event (SYSTEM64/32 header, hook 0) at b + pos with
 * the x64 (0x118) or x86 (0x110) TRACE_LOGFILE_HEADER and the two names.
 * Returns the record size (before 8-byte alignment). */
static inline uint32_t tb_logfile_event(uint8_t *b, uint32_t pos, int is64, uint64_t hdr_ts,
                                        int64_t perf_freq, int64_t start_time,
                                        uint32_t buffers_written, uint32_t mode,
                                        uint32_t clock, uint32_t cpus)
{
  /* "Test" and "t.etl" as NUL-terminated UTF-16LE. */
  static const uint8_t names[] = { 'T', 0, 'e', 0, 's', 0, 't', 0, 0, 0,
                                   't', 0, '.', 0, 'e', 0, 't', 0, 'l', 0, 0, 0 };
  uint32_t fixed = is64 ? 0x118 : 0x110;
  uint32_t size = 0x20 + fixed + (uint32_t)sizeof(names);
  uint8_t *r = b + pos, *p = r + 0x20;
  uint32_t late = is64 ? 0xF8 : 0xF0;
  memset(r, 0, size);
  tb16(r + 0, 2);              /* Version */
  r[2] = is64 ? 0x02 : 0x01;   /* SYSTEM64 / SYSTEM32 */
  r[3] = 0xC0;
  tb16(r + 4, (uint16_t)size);
  tb16(r + 6, 0x0000);         /* hook: header group, type 0 */
  tb32(r + 8, 100);            /* TID */
  tb32(r + 12, 200);           /* PID */
  tb64(r + 16, hdr_ts);
  tb32(p + 0x00, 65536);       /* BufferSize */
  p[0x04] = 10;                /* Major */
  p[0x05] = 0;
  tb32(p + 0x08, 19041);       /* ProviderVersion = build */
  tb32(p + 0x0C, cpus);
  tb64(p + 0x10, (uint64_t)start_time + 10000000); /* EndTime */
  tb32(p + 0x20, mode);
  tb32(p + 0x24, buffers_written);
  tb32(p + 0x2C, is64 ? 8 : 4); /* PointerSize */
  tb32(p + 0x30, 7);            /* EventsLost */
  tb32(p + 0x34, 3000);         /* CpuSpeedInMHz */
  tb32(p + (is64 ? 0x48 : 0x40), (uint32_t)-60); /* TIME_ZONE_INFORMATION.Bias */
  tb64(p + late + 0, (uint64_t)start_time - 1000); /* BootTime */
  tb64(p + late + 8, (uint64_t)perf_freq);
  tb64(p + late + 16, (uint64_t)start_time);
  tb32(p + late + 24, clock);   /* ReservedFlags */
  tb32(p + late + 28, 2);       /* BuffersLost */
  memcpy(p + fixed, names, sizeof(names));
  return size;
}

#define TB_ALIGN8(x) (((x) + 7u) & ~7u)

#endif
