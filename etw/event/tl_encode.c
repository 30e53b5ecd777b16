/* TraceLogging bytes (see tl_encode.h). */
#include "etw/event/tl_encode.h"

#include "src/base/error.h"

#include <string.h>

static void put_u16(uint8_t *p, size_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
  unsigned i;
  for (i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

void tl_encode_begin(struct tl_encoded *e, const char *name)
{
  size_t n = strlen(name) + 1;
  memset(e, 0, sizeof(*e));
  if (3 + n > sizeof(e->meta)) {
    e->overflow = 1;
    return;
  }
  e->meta[2] = 0; /* no tags */
  memcpy(e->meta + 3, name, n);
  e->meta_len = 3 + n;
}

/* The field's metadata: name, InType, and the OutType when out != 0. */
static int field(struct tl_encoded *e, const char *name, unsigned in, unsigned out,
                 size_t value_len)
{
  size_t n = strlen(name) + 1, need = n + 1 + (out != 0);
  if (e->overflow || e->meta_len + need > sizeof(e->meta) ||
      e->data_len + value_len > sizeof(e->data)) {
    e->overflow = 1;
    return -1;
  }
  memcpy(e->meta + e->meta_len, name, n);
  e->meta[e->meta_len + n] = (uint8_t)(in | (out ? TL_IN_HAS_OUT : 0));
  if (out)
    e->meta[e->meta_len + n + 1] = (uint8_t)out;
  e->meta_len += need;
  return 0;
}

void tl_encode_utf8(struct tl_encoded *e, const char *fname, const char *value)
{
  size_t n = strlen(value) + 1;
  if (field(e, fname, TL_IN_ANSISTRING, TL_OUT_UTF8, n) == 0) {
    memcpy(e->data + e->data_len, value, n);
    e->data_len += n;
  }
}

void tl_encode_uint32(struct tl_encoded *e, const char *fname, uint32_t value)
{
  if (field(e, fname, TL_IN_UINT32, 0, 4) == 0) {
    put_le(e->data + e->data_len, value, 4);
    e->data_len += 4;
  }
}

void tl_encode_double(struct tl_encoded *e, const char *fname, double value)
{
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits)); /* IEEE 754 binary64, as ETW carries it */
  if (field(e, fname, TL_IN_DOUBLE, 0, 8) == 0) {
    put_le(e->data + e->data_len, bits, 8);
    e->data_len += 8;
  }
}

int tl_encode_end(struct tl_encoded *e)
{
  if (e->overflow)
    return ETWCAP_E_RANGE;
  put_u16(e->meta, e->meta_len);
  return 0;
}

size_t tl_encode_provider_traits(const char *provider, uint8_t *buf, size_t cap)
{
  size_t n = strlen(provider) + 1;
  if (cap < 2 + n)
    return 0;
  put_u16(buf, 2 + n);
  memcpy(buf + 2, provider, n);
  return 2 + n;
}
