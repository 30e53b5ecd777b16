/* Explicit little-endian loads from byte buffers.  Every on-disk ETL field
 * is read through these, never by casting a struct over file bytes, so the
 * reader is correct on any host and clean under the sanitizers. */
#ifndef ETWCAP_ETL_BYTES_H
#define ETWCAP_ETL_BYTES_H

#include <stdint.h>

static inline uint16_t etl_le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t etl_le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t etl_le64(const uint8_t *p)
{
  return (uint64_t)etl_le32(p) | (uint64_t)etl_le32(p + 4) << 32;
}

#endif
