/* libFuzzer target: the [MS-XCA] Plain LZ77 (XPRESS) decompressor, through the shared
 * harness (fuzz_xca_harness.h), with the differential run: a success must
 * decode to the same bytes with more room. */
#include "tests/fuzz/fuzz_xca_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  return fuzz_xca(xca_plain_lz77_decompress, data, size, 1);
}
