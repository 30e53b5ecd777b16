/* Encoders of the fixed ETL structures the writer emits, the mirror of
 * etl_format.h's decoders: WMI_BUFFER_HEADER, TRACE_LOGFILE_HEADER (x64 and
 * x86 layouts, docs/etl.md §3) and the SYSTEM_TRACE_HEADER of the logfile
 * header event.  Explicit little-endian stores into byte buffers. */
#ifndef ETWCAP_ETL_ENCODE_H
#define ETWCAP_ETL_ENCODE_H

#include "etw/etl/etl_format.h"

#include <stddef.h>
#include <stdint.h>

#define ETL_TZ_BLOCK_SIZE 172u /* TIME_ZONE_INFORMATION */

static inline void etl_put16(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static inline void etl_put32(uint8_t *p, uint32_t v)
{
  etl_put16(p, (uint16_t)v);
  etl_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void etl_put64(uint8_t *p, uint64_t v)
{
  etl_put32(p, (uint32_t)v);
  etl_put32(p + 4, (uint32_t)(v >> 32));
}

/* Writes the 72-byte buffer header; the ReferenceTime union is zeroed. */
void etl_buffer_header_encode(uint8_t *p, const struct etl_buffer_header *h);

/* Size of the logfile-header payload (fixed part and both UTF-16 names). */
size_t etl_logfile_payload_size(const struct etl_logfile *lf);

/* Writes the payload of the logfile-header event into p (which has
 * etl_logfile_payload_size bytes).  `tz_raw` is the 172-byte
 * TIME_ZONE_INFORMATION to copy, or NULL to write just the bias and the
 * standard name from lf.  Uses the x64 layout when lf->pointer_size is 8. */
void etl_logfile_encode(uint8_t *p, const struct etl_logfile *lf, const uint8_t *tz_raw);

/* Writes a SYSTEM_TRACE_HEADER (0x20 bytes) for a header-group event. */
void etl_system_header_encode(uint8_t *p, int is64, uint16_t size, uint16_t hook_id, uint32_t tid,
                              uint32_t pid, uint64_t timestamp);

#endif
