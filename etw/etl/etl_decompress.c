/* Format dispatch for compressed buffers (see etl_decompress.h). */
#include "etw/etl/etl_decompress.h"

#include "etw/etl/etl_format.h"
#include "src/base/error.h"

#include "etw/etl/xca/xca.h"

const char *etl_compression_name(unsigned format)
{
  switch (format) {
  case ETL_COMPRESSION_LZNT1: return "LZNT1";
  case ETL_COMPRESSION_XPRESS: return "XPRESS";
  case ETL_COMPRESSION_XPRESS_HUFF: return "XPRESS_HUFF";
  }
  return "unknown";
}

int etl_decompress(unsigned format, const uint8_t *in, size_t in_len, uint8_t *out,
                   size_t out_cap, size_t *out_len)
{
  *out_len = 0;
  {
    int rc;
    switch (format) {
    case ETL_COMPRESSION_XPRESS:
      rc = xca_plain_lz77_decompress(in, in_len, out, out_cap, out_len);
      break;
    case ETL_COMPRESSION_XPRESS_HUFF:
      rc = xca_lz77_huffman_decompress(in, in_len, out, out_cap, out_len);
      break;
    case ETL_COMPRESSION_LZNT1:
      rc = xca_lznt1_decompress(in, in_len, out, out_cap, out_len);
      break;
    default:
      return ETWCAP_E_UNSUPPORTED;
    }
    if (rc < 0)
      return rc == ETWCAP_E_NOMEM ? rc : ETWCAP_E_CORRUPT;
    return 0;
  }
}
