/* libFuzzer target: the [MS-XCA] LZ77+Huffman (XPRESS_HUFF) decompressor.  The first two
 * bytes choose the output capacity (0..65535), the rest is the compressed
 * stream.  The output buffer is exactly that big and heap-allocated, so
 * AddressSanitizer sees any write past it; the result must be one of the
 * documented codes with out_len <= capacity.
 * (No differential run: for this format the capacity decides where a stream
 * without an end-of-data symbol stops.) */
#include "error.h"
#include "xca.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int decode(const uint8_t *in, size_t in_len, size_t cap, uint8_t **out, size_t *out_len)
{
  int rc;
  *out = malloc(cap ? cap : 1);
  if (!*out)
    abort();
  *out_len = (size_t)-1;
  rc = xca_lz77_huffman_decompress(in, in_len, *out, cap, out_len);
  if (*out_len > cap)
    abort();
  if (rc != 0 && rc != ETWCAP_E_TRUNCATED && rc != ETWCAP_E_CORRUPT && rc != ETWCAP_E_RANGE &&
      rc != ETWCAP_E_NOMEM)
    abort();
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint8_t *out;
  size_t cap, out_len;
  int rc;
  if (size < 2)
    return 0;
  cap = (size_t)data[0] | (size_t)data[1] << 8;
  rc = decode(data + 2, size - 2, cap, &out, &out_len);
  (void)rc;
  free(out);
  return 0;
}
