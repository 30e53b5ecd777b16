/* GUID decoding, formatting and parsing (see guid.h). */
#include "etw/event/guid.h"

#include <string.h>

struct etw_guid guid_from_bytes(const uint8_t *p)
{
  struct etw_guid g;
  g.data1 = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  g.data2 = (uint16_t)(p[4] | p[5] << 8);
  g.data3 = (uint16_t)(p[6] | p[7] << 8);
  memcpy(g.data4, p + 8, 8);
  return g;
}

void guid_to_bytes(const struct etw_guid *g, uint8_t *p)
{
  p[0] = (uint8_t)g->data1;
  p[1] = (uint8_t)(g->data1 >> 8);
  p[2] = (uint8_t)(g->data1 >> 16);
  p[3] = (uint8_t)(g->data1 >> 24);
  p[4] = (uint8_t)g->data2;
  p[5] = (uint8_t)(g->data2 >> 8);
  p[6] = (uint8_t)g->data3;
  p[7] = (uint8_t)(g->data3 >> 8);
  memcpy(p + 8, g->data4, 8);
}

static const char hexdigits[] = "0123456789abcdef";

static char *put_hex(char *out, uint64_t v, int digits)
{
  int i;
  for (i = digits - 1; i >= 0; i--) {
    out[i] = hexdigits[v & 15];
    v >>= 4;
  }
  return out + digits;
}

char *guid_format(const struct etw_guid *g, char *buf)
{
  char *o = buf;
  int i;
  o = put_hex(o, g->data1, 8);
  *o++ = '-';
  o = put_hex(o, g->data2, 4);
  *o++ = '-';
  o = put_hex(o, g->data3, 4);
  *o++ = '-';
  for (i = 0; i < 8; i++) {
    if (i == 2)
      *o++ = '-';
    o = put_hex(o, g->data4[i], 2);
  }
  *o = '\0';
  return buf;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Reads `digits` hex digits; -1 on a non-hex character. */
static int get_hex(const char **s, int digits, uint64_t *v)
{
  int i;
  *v = 0;
  for (i = 0; i < digits; i++) {
    int d = hexval((*s)[i]);
    if (d < 0)
      return -1;
    *v = *v << 4 | (uint64_t)d;
  }
  *s += digits;
  return 0;
}

int guid_parse(const char *s, struct etw_guid *g)
{
  uint64_t v;
  int braces = 0, i;
  struct etw_guid r;
  if (*s == '{') {
    braces = 1;
    s++;
  }
  if (get_hex(&s, 8, &v) || *s++ != '-')
    return -1;
  r.data1 = (uint32_t)v;
  if (get_hex(&s, 4, &v) || *s++ != '-')
    return -1;
  r.data2 = (uint16_t)v;
  if (get_hex(&s, 4, &v) || *s++ != '-')
    return -1;
  r.data3 = (uint16_t)v;
  for (i = 0; i < 8; i++) {
    if (i == 2 && *s++ != '-')
      return -1;
    if (get_hex(&s, 2, &v))
      return -1;
    r.data4[i] = (uint8_t)v;
  }
  if (braces && *s++ != '}')
    return -1;
  if (*s)
    return -1;
  *g = r;
  return 0;
}

int guid_equal(const struct etw_guid *a, const struct etw_guid *b)
{
  return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
         memcmp(a->data4, b->data4, 8) == 0;
}

int guid_is_zero(const struct etw_guid *g)
{
  static const struct etw_guid zero;
  return guid_equal(g, &zero);
}

int guid_parse_n(const char *text, size_t len, struct etw_guid *g)
{
  char buf[40];
  if (len != 36 && len != 38)
    return -1;
  memcpy(buf, text, len);
  buf[len] = '\0';
  return guid_parse(buf, g);
}
