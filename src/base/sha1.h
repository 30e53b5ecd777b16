/* SHA-1 (FIPS 180-4), for EventSource GUIDs only: the name hash .NET uses
 * to derive a provider GUID.  Not for anything that needs security. */
#ifndef ETWCAP_SHA1_H
#define ETWCAP_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_SIZE 20

struct sha1_ctx {
  uint32_t h[5];
  uint64_t length; /* bytes hashed so far */
  uint8_t block[64];
  size_t used; /* bytes waiting in block */
};

void sha1_init(struct sha1_ctx *ctx);
void sha1_update(struct sha1_ctx *ctx, const void *data, size_t size);
void sha1_final(struct sha1_ctx *ctx, uint8_t digest[SHA1_DIGEST_SIZE]);
/* One call for a whole buffer. */
void sha1(const void *data, size_t size, uint8_t digest[SHA1_DIGEST_SIZE]);

#endif
