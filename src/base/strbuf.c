/* A growable string with printf and JSON-string appends (see strbuf.h). */
#include "src/base/strbuf.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int reserve(struct strbuf *b, size_t more)
{
  size_t cap;
  char *grown;
  if (b->failed)
    return -1;
  if (b->len + more + 1 <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1)
    cap *= 2;
  grown = etwcap_realloc(b->data, cap);
  if (!grown) {
    b->failed = 1;
    return -1;
  }
  b->data = grown;
  b->cap = cap;
  return 0;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || reserve(b, (size_t)n) != 0)
    return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

static void put_bytes(struct strbuf *b, const void *bytes, size_t n)
{
  if (reserve(b, n) != 0)
    return;
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void strbuf_puts(struct strbuf *b, const char *s)
{
  put_bytes(b, s, strlen(s));
}

void strbuf_json_string(struct strbuf *b, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  strbuf_puts(b, "\"");
  for (; *p; p++, left--) {
    if (*p >= 0x80) {
      /* JSON text is UTF-8: a byte that does not start a valid sequence
       * (a Linux file name is only bytes) becomes U+FFFD, never raw. */
      size_t n = utf8_sequence_length(p, left);
      if (n == 0) {
        strbuf_puts(b, "\\ufffd");
      } else {
        put_bytes(b, p, n);
        p += n - 1;
        left -= n - 1;
      }
    } else if (*p == '"' || *p == '\\')
      strbuf_printf(b, "\\%c", *p);
    else if (*p == '\n')
      strbuf_puts(b, "\\n");
    else if (*p == '\r')
      strbuf_puts(b, "\\r");
    else if (*p == '\t')
      strbuf_puts(b, "\\t");
    else if (*p < 0x20)
      strbuf_printf(b, "\\u%04x", *p);
    else
      put_bytes(b, p, 1);
  }
  strbuf_puts(b, "\"");
}

int strbuf_finish(struct strbuf *b, char **out)
{
  if (b->failed || reserve(b, 0) != 0) {
    etwcap_free(b->data);
    b->data = NULL;
    *out = NULL;
    return ETWCAP_E_NOMEM;
  }
  b->data[b->len] = '\0';
  *out = b->data;
  b->data = NULL;
  return 0;
}
