/* SHA-1 as FIPS 180-4 §6.1 describes it, with big-endian loads from bytes so
 * it is correct on any host.  Tested on the standard's example vectors. */
#include "src/base/sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned n)
{
  return (x << n) | (x >> (32 - n));
}

static void compress(uint32_t h[5], const uint8_t *p)
{
  uint32_t w[80], a, b, c, d, e, f, k, t;
  unsigned i;
  for (i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (i = 16; i < 80; i++)
    w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  a = h[0];
  b = h[1];
  c = h[2];
  d = h[3];
  e = h[4];
  for (i = 0; i < 80; i++) {
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999u;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1u;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDCu;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6u;
    }
    t = rol(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rol(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

void sha1_init(struct sha1_ctx *ctx)
{
  ctx->h[0] = 0x67452301u;
  ctx->h[1] = 0xEFCDAB89u;
  ctx->h[2] = 0x98BADCFEu;
  ctx->h[3] = 0x10325476u;
  ctx->h[4] = 0xC3D2E1F0u;
  ctx->length = 0;
  ctx->used = 0;
}

void sha1_update(struct sha1_ctx *ctx, const void *data, size_t size)
{
  const uint8_t *p = data;
  ctx->length += size;
  while (size) {
    size_t n = 64 - ctx->used;
    if (n > size)
      n = size;
    memcpy(ctx->block + ctx->used, p, n);
    ctx->used += n;
    p += n;
    size -= n;
    if (ctx->used == 64) {
      compress(ctx->h, ctx->block);
      ctx->used = 0;
    }
  }
}

void sha1_final(struct sha1_ctx *ctx, uint8_t digest[SHA1_DIGEST_SIZE])
{
  uint64_t bits = ctx->length * 8;
  unsigned i;
  /* Padding: 0x80, zeros up to 56 mod 64, then the length in bits (big-endian). */
  ctx->block[ctx->used++] = 0x80;
  if (ctx->used > 56) {
    memset(ctx->block + ctx->used, 0, 64 - ctx->used);
    compress(ctx->h, ctx->block);
    ctx->used = 0;
  }
  memset(ctx->block + ctx->used, 0, 56 - ctx->used);
  for (i = 0; i < 8; i++)
    ctx->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  compress(ctx->h, ctx->block);
  for (i = 0; i < 20; i++)
    digest[i] = (uint8_t)(ctx->h[i / 4] >> (24 - 8 * (i % 4)));
  memset(ctx, 0, sizeof(*ctx));
}

void sha1(const void *data, size_t size, uint8_t digest[SHA1_DIGEST_SIZE])
{
  struct sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, data, size);
  sha1_final(&ctx, digest);
}
