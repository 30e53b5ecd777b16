/* See payload_cursor.h. */
#include "etw/event/payload_cursor.h"

#include <string.h>

void pl_init(struct pl_cursor *c, const uint8_t *p, size_t len, unsigned ptr_size)
{
  c->p = p;
  c->len = p ? len : 0;
  c->pos = 0;
  c->ptr_size = ptr_size == 4 ? 4 : 8;
  c->bad = 0;
}

static const uint8_t *take(struct pl_cursor *c, size_t n)
{
  const uint8_t *r;
  if (c->bad || c->len - c->pos < n) {
    c->bad = 1;
    c->pos = c->len;
    return NULL;
  }
  r = c->p + c->pos;
  c->pos += n;
  return r;
}

uint8_t pl_u8(struct pl_cursor *c)
{
  const uint8_t *q = take(c, 1);
  return q ? q[0] : 0;
}

uint16_t pl_u16(struct pl_cursor *c)
{
  const uint8_t *q = take(c, 2);
  return q ? (uint16_t)(q[0] | q[1] << 8) : 0;
}

uint32_t pl_u32(struct pl_cursor *c)
{
  const uint8_t *q = take(c, 4);
  return q ? (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24
           : 0;
}

uint64_t pl_u64(struct pl_cursor *c)
{
  uint64_t lo = pl_u32(c);
  uint64_t hi = pl_u32(c);
  return lo | hi << 32;
}

uint64_t pl_ptr(struct pl_cursor *c)
{
  return c->ptr_size == 4 ? pl_u32(c) : pl_u64(c);
}

/* IEEE bit patterns are copied, never cast from the buffer. */
double pl_f64(struct pl_cursor *c)
{
  uint64_t bits = pl_u64(c);
  double d;
  memcpy(&d, &bits, sizeof(d));
  return d;
}

float pl_f32(struct pl_cursor *c)
{
  uint32_t bits = pl_u32(c);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

void pl_skip(struct pl_cursor *c, size_t n)
{
  (void)take(c, n);
}

/* Appends code point cp as UTF-8 if it fits whole. */
static size_t put_utf8(char *out, size_t cap, size_t n, uint32_t cp)
{
  uint8_t b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (uint8_t)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (uint8_t)(0xC0 | cp >> 6);
    b[1] = (uint8_t)(0x80 | (cp & 0x3F));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (uint8_t)(0xE0 | cp >> 12);
    b[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    b[2] = (uint8_t)(0x80 | (cp & 0x3F));
    k = 3;
  } else {
    b[0] = (uint8_t)(0xF0 | cp >> 18);
    b[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    b[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    b[3] = (uint8_t)(0x80 | (cp & 0x3F));
    k = 4;
  }
  if (!out || cap == 0 || n + k >= cap)
    return n;
  memcpy(out + n, b, k);
  return n + k;
}

size_t pl_utf16_to_utf8(const uint8_t *p, size_t units, char *out, size_t cap)
{
  size_t i, n = 0;
  int full = 0;
  for (i = 0; i < units && !full; i++) {
    uint32_t u = (uint32_t)(p[2 * i] | p[2 * i + 1] << 8), cp = u;
    size_t before = n;
    if (u < 0x80 && out && n + 1 < cap) {
      out[n++] = (char)u; /* ASCII, as most names and paths are */
      continue;
    }
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
      uint32_t lo = (uint32_t)(p[2 * i + 2] | p[2 * i + 3] << 8);
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        i++;
      } else {
        cp = 0xFFFD;
      }
    } else if (u >= 0xD800 && u <= 0xDFFF) {
      cp = 0xFFFD;
    }
    n = put_utf8(out, cap, n, cp);
    if (n == before)
      full = 1; /* stop on a character boundary */
  }
  if (out && cap)
    out[n] = '\0';
  return n;
}

size_t pl_utf16z(struct pl_cursor *c, char *out, size_t cap)
{
  size_t start = c->pos, units = 0, avail;
  if (c->bad) {
    if (out && cap)
      out[0] = '\0';
    return 0;
  }
  avail = (c->len - start) / 2;
  while (units < avail && (c->p[start + 2 * units] | c->p[start + 2 * units + 1]))
    units++;
  c->pos = start + 2 * units + (units < avail ? 2 : 0);
  if (units == avail) /* no terminator: the string runs to the end */
    c->pos = c->len;
  return pl_utf16_to_utf8(c->p + start, units, out, cap);
}

size_t pl_utf16n(struct pl_cursor *c, size_t count, char *out, size_t cap)
{
  const uint8_t *q;
  if (count > (SIZE_MAX / 2))
    count = SIZE_MAX / 2;
  q = take(c, count * 2);
  if (!q) {
    if (out && cap)
      out[0] = '\0';
    return 0;
  }
  return pl_utf16_to_utf8(q, count, out, cap);
}

size_t pl_ansiz(struct pl_cursor *c, char *out, size_t cap)
{
  size_t start = c->pos, n = 0, copy;
  if (c->bad) {
    if (out && cap)
      out[0] = '\0';
    return 0;
  }
  while (start + n < c->len && c->p[start + n])
    n++;
  c->pos = start + n + (start + n < c->len ? 1 : 0);
  copy = out && cap ? (n < cap - 1 ? n : cap - 1) : 0;
  if (out && cap) {
    memcpy(out, c->p + start, copy);
    out[copy] = '\0';
  }
  return copy;
}

void pl_skip_sid(struct pl_cursor *c)
{
  size_t save = c->pos;
  uint32_t first = pl_u32(c);
  uint8_t sub_count;
  if (c->bad || first == 0)
    return;
  /* TOKEN_USER is two pointers; the SID follows: revision, sub-authority
   * count, 6-byte authority, 4 bytes per sub-authority. */
  c->pos = save;
  pl_skip(c, 2u * c->ptr_size);
  pl_skip(c, 1);
  sub_count = pl_u8(c);
  pl_skip(c, 6 + 4u * sub_count);
}
