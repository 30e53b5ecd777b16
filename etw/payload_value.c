/* See payload_value.h. */
#include "payload_value.h"

#include <stdio.h>
#include <string.h>

void tv_set_int(struct tv_value *v, int64_t x)
{
  v->type = TV_INT;
  v->i = x;
  v->d = (double)x;
  snprintf(v->text, sizeof(v->text), "%lld", (long long)x);
}

void tv_set_uint(struct tv_value *v, uint64_t x)
{
  v->type = TV_UINT;
  v->u = x;
  v->d = (double)x;
  snprintf(v->text, sizeof(v->text), "%llu", (unsigned long long)x);
}

void tv_set_float(struct tv_value *v, double x)
{
  v->type = TV_FLOAT;
  v->d = x;
  snprintf(v->text, sizeof(v->text), "%.15g", x);
}

void tv_set_guid(struct tv_value *v, const struct etw_guid *g)
{
  v->type = TV_GUID;
  v->guid = *g;
  guid_format(g, v->text);
}

void tv_set_text(struct tv_value *v)
{
  v->type = TV_TEXT;
}

int tv_as_double(const struct tv_value *v, double *out)
{
  switch (v->type) {
  case TV_INT:
  case TV_UINT:
  case TV_FLOAT:
    *out = v->d;
    return 1;
  default:
    return 0;
  }
}

void tv_copy(char *dst, size_t cap, const char *src)
{
  size_t n;
  if (!cap)
    return;
  n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
    while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
      n--;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void tv_append(char *dst, size_t cap, const char *src)
{
  size_t n = strlen(dst);
  if (n + 1 < cap)
    tv_copy(dst + n, cap - n, src);
}
