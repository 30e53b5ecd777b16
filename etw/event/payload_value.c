/* See payload_value.h. */
#include "etw/event/payload_value.h"

#include <stdio.h>
#include <string.h>

/* A value that is not a string keeps an empty text, so that a reader
 * that takes it for one finds no stale bytes. */
void tv_set_int(struct tv_value *v, int64_t x)
{
  v->type = TV_INT;
  v->i = x;
  v->d = (double)x;
  v->text[0] = '\0';
}

void tv_set_uint(struct tv_value *v, uint64_t x)
{
  v->type = TV_UINT;
  v->u = x;
  v->d = (double)x;
  v->text[0] = '\0';
}

void tv_set_float(struct tv_value *v, double x)
{
  v->type = TV_FLOAT;
  v->d = x;
  v->text[0] = '\0';
}

void tv_set_bool(struct tv_value *v, int x)
{
  tv_set_uint(v, x != 0);
  v->type = TV_BOOL;
}

void tv_set_guid(struct tv_value *v, const struct etw_guid *g)
{
  v->type = TV_GUID;
  v->guid = *g;
  v->text[0] = '\0';
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
  case TV_BOOL:
    *out = v->d;
    return 1;
  default:
    return 0;
  }
}

const char *tv_text(const struct tv_value *v, char *buf)
{
  switch (v->type) {
  case TV_INT:
    snprintf(buf, TV_SHORT_TEXT_MAX, "%lld", (long long)v->i);
    return buf;
  case TV_UINT:
    snprintf(buf, TV_SHORT_TEXT_MAX, "%llu", (unsigned long long)v->u);
    return buf;
  case TV_FLOAT:
    snprintf(buf, TV_SHORT_TEXT_MAX, "%.15g", v->d);
    return buf;
  case TV_BOOL:
    return v->u ? "True" : "False";
  case TV_GUID:
    return guid_format(&v->guid, buf);
  case TV_TEXT:
    return v->text;
  default:
    return "";
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
