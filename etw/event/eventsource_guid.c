/* EventSource name → GUID: SHA-1 over a fixed namespace and the upper-cased
 * name in UTF-16 big-endian, first 16 bytes, version nibble 5 (RFC 4122
 * name-based layout as .NET builds it). */
#include "etw/event/eventsource_guid.h"

#include "src/base/error.h"
#include "src/base/sha1.h"

#include <string.h>

static const uint8_t namespace_bytes[16] = { 0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
                                             0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB };

/* Decodes one UTF-8 sequence; returns its length or 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  if ((s[0] & 0xE0) == 0xC0 && (s[1] & 0xC0) == 0x80) {
    *cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    return *cp >= 0x80 ? 2 : 0;
  }
  if ((s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
    *cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    return (*cp >= 0x800 && (*cp < 0xD800 || *cp > 0xDFFF)) ? 3 : 0;
  }
  if ((s[0] & 0xF8) == 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
      (s[3] & 0xC0) == 0x80) {
    *cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
          (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    return (*cp >= 0x10000 && *cp <= 0x10FFFF) ? 4 : 0;
  }
  return 0;
}

static void put_unit_be(struct sha1_ctx *ctx, uint32_t unit)
{
  uint8_t b[2] = { (uint8_t)(unit >> 8), (uint8_t)unit };
  sha1_update(ctx, b, 2);
}

int eventsource_guid(const char *name, struct etw_guid *out)
{
  const unsigned char *p = (const unsigned char *)name;
  struct sha1_ctx ctx;
  uint8_t digest[SHA1_DIGEST_SIZE];

  if (*p == '*')
    p++;
  if (!*p)
    return ETWCAP_E_USAGE;
  sha1_init(&ctx);
  sha1_update(&ctx, namespace_bytes, sizeof(namespace_bytes));
  while (*p) {
    uint32_t cp;
    size_t n = utf8_decode(p, &cp);
    if (!n) {
      sha1_final(&ctx, digest);
      return ETWCAP_E_USAGE;
    }
    p += n;
    if (cp >= 'a' && cp <= 'z')
      cp -= 'a' - 'A';
    if (cp >= 0x10000) {
      cp -= 0x10000;
      put_unit_be(&ctx, 0xD800 + (cp >> 10));
      put_unit_be(&ctx, 0xDC00 + (cp & 0x3FF));
    } else {
      put_unit_be(&ctx, cp);
    }
  }
  sha1_final(&ctx, digest);
  /* .NET reads the first 16 bytes as a GUID in memory order (Data1..3
   * little-endian), then forces the version nibble of Data3 to 5. */
  digest[7] = (uint8_t)((digest[7] & 0x0F) | 0x50);
  *out = guid_from_bytes(digest);
  return 0;
}

int eventsource_guid_maybe(const struct etw_guid *g)
{
  return (g->data3 >> 12) == 5;
}
