/* The harness of the three [MS-XCA] decompressor fuzz targets.  The first two
 * input bytes choose the output capacity (0..65535), the rest is the
 * compressed stream.  The output buffer is exactly that big and
 * heap-allocated, so AddressSanitizer sees any write past it; the result must
 * be one of the documented codes with out_len <= capacity.  With
 * `differential`, a success is decoded again with 64 bytes more room, where
 * the word-at-a-time copies take over from the byte loops, and must give the
 * same bytes. */
#ifndef ETWCAP_FUZZ_XCA_HARNESS_H
#define ETWCAP_FUZZ_XCA_HARNESS_H

#include "etw/etl/xca/xca.h"
#include "src/base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*xca_decompress_fn)(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                                 size_t *out_len);

static int fuzz_xca_decode(xca_decompress_fn fn, const uint8_t *in, size_t in_len, size_t cap,
                           uint8_t **out, size_t *out_len)
{
  int rc;
  *out = malloc(cap ? cap : 1);
  if (!*out)
    abort();
  *out_len = (size_t)-1;
  rc = fn(in, in_len, *out, cap, out_len);
  if (*out_len > cap)
    abort();
  if (rc != 0 && rc != ETWCAP_E_TRUNCATED && rc != ETWCAP_E_CORRUPT && rc != ETWCAP_E_RANGE &&
      rc != ETWCAP_E_NOMEM)
    abort();
  return rc;
}

static int fuzz_xca(xca_decompress_fn fn, const uint8_t *data, size_t size, int differential)
{
  uint8_t *out;
  size_t cap, out_len;
  int rc;
  if (size < 2)
    return 0;
  cap = (size_t)data[0] | (size_t)data[1] << 8;
  rc = fuzz_xca_decode(fn, data + 2, size - 2, cap, &out, &out_len);
  if (rc == 0 && differential) {
    uint8_t *roomy;
    size_t roomy_len;
    if (fuzz_xca_decode(fn, data + 2, size - 2, cap + 64, &roomy, &roomy_len) != 0 ||
        roomy_len != out_len || memcmp(out, roomy, out_len) != 0)
      abort();
    free(roomy);
  }
  free(out);
  return 0;
}

#endif
