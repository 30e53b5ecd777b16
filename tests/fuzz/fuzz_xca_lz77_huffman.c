/* libFuzzer target: the [MS-XCA] LZ77+Huffman (XPRESS_HUFF) decompressor,
 * through the shared harness (fuzz_xca_harness.h).  No differential run: for
 * this format the capacity decides where a stream without an end-of-data
 * symbol stops. */
#include "tests/fuzz/fuzz_xca_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  return fuzz_xca(xca_lz77_huffman_decompress, data, size, 0);
}
