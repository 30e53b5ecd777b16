/* Decompression of compressed ETL buffers (docs/etl.md §6): picks the
 * MS-XCA decompressor for the file's COMPRESSION_FORMAT_* code.  The
 * decompressors themselves live in xca.h (another unit); this is the one
 * place the reader meets them. */
#ifndef ETWCAP_ETL_DECOMPRESS_H
#define ETWCAP_ETL_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Decompresses `in` into out (capacity out_cap), sets *out_len.
 * ETWCAP_E_UNSUPPORTED for an unknown format, ETWCAP_E_CORRUPT for bad
 * data or output that does not fit. */
int etl_decompress(unsigned format, const uint8_t *in, size_t in_len, uint8_t *out,
                   size_t out_cap, size_t *out_len);

/* "XPRESS", "XPRESS_HUFF", "LZNT1" or "unknown". */
const char *etl_compression_name(unsigned format);

#endif
