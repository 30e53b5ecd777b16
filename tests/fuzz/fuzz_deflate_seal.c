/* libFuzzer target: the deflate walk behind deflate_seal (src/deflate_seal.c)
 * over arbitrary bytes, judged against zlib's inflate as an independent
 * decoder: the walk accepts a stream exactly when zlib decodes it to its end
 * in the same bytes, and then to the same length; a sealed stream followed
 * by an empty final block decodes to the same bytes again. */
#include "src/base/zip/deflate_seal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUT_MAX (1u << 22)

/* zlib's reading of buf: Z_STREAM_END with every byte used, and its length;
 * -1 for anything else (an error, a short stream, or bytes left over). */
static long long inflate_all(const uint8_t *buf, size_t len, uint8_t *out, size_t cap)
{
  z_stream z;
  int rc;
  memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
    abort();
  z.next_in = (Bytef *)buf;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  rc = inflate(&z, Z_FINISH);
  long long n = (rc == Z_STREAM_END && z.avail_in == 0) ? (long long)z.total_out : -1;
  if (rc == Z_BUF_ERROR && z.avail_out == 0)
    n = -2; /* longer than we decode here: no verdict */
  inflateEnd(&z);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uint8_t out[OUT_MAX], again[OUT_MAX];
  struct deflate_walk walk;
  long long zlib_len = inflate_all(data, size, out, sizeof(out));
  int rc = deflate_seal_walk(data, size, &walk);
  uint8_t *sealed;
  size_t sealed_len;

  if (zlib_len == -2)
    return 0;
  if ((rc == 0) != (zlib_len >= 0))
    abort(); /* the walk and zlib disagree on whether this is one stream */
  if (rc != 0)
    return 0;
  if (walk.decoded != (uint64_t)zlib_len)
    abort();
  sealed = malloc(size + DEFLATE_SEAL_EXTRA + sizeof(deflate_seal_final_block));
  memcpy(sealed, data, size);
  if (deflate_seal(sealed, size, size + DEFLATE_SEAL_EXTRA, walk.decoded, &sealed_len) != 0)
    abort();
  memcpy(sealed + sealed_len, deflate_seal_final_block, sizeof(deflate_seal_final_block));
  if (inflate_all(sealed, sealed_len + sizeof(deflate_seal_final_block), again,
                  sizeof(again)) != zlib_len ||
      memcmp(out, again, (size_t)zlib_len) != 0)
    abort();
  free(sealed);
  return 0;
}
