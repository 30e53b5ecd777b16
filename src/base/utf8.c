/* See utf8.h. */
#include "src/base/utf8.h"

size_t utf8_sequence_length(const uint8_t *s, size_t n)
{
  uint8_t c = s[0];
  size_t k, len;
  uint32_t cp;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (len > n)
    return 0;
  for (k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[k] & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return len;
}

int utf8_valid(const uint8_t *s, size_t n)
{
  size_t i = 0;
  while (i < n) {
    size_t len = utf8_sequence_length(s + i, n - i);
    if (len == 0)
      return 0;
    i += len;
  }
  return 1;
}
