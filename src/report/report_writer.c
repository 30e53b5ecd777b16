/* See report_writer.h. */
#include "src/report/report_writer.h"

#include "src/base/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#define REPLACEMENT 0xFFFDu

void rw_init(struct report_writer *w, FILE *f)
{
  w->f = f;
  w->error = 0;
  w->len = 0;
}

static void write_out(struct report_writer *w, const char *s, size_t n)
{
  if (!w->error && n && fwrite(s, 1, n, w->f) != n)
    w->error = ETWCAP_E_IO;
}

static void put(struct report_writer *w, const char *s, size_t n)
{
  if (n > sizeof(w->buf) - w->len) {
    write_out(w, w->buf, w->len);
    w->len = 0;
    if (n >= sizeof(w->buf)) {
      write_out(w, s, n);
      return;
    }
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
}

void rw_puts(struct report_writer *w, const char *s)
{
  put(w, s, strlen(s));
}

void rw_printf(struct report_writer *w, const char *fmt, ...)
{
  char text[1024];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  if (n < 0) {
    w->error = ETWCAP_E_IO;
  } else if ((size_t)n < sizeof(text)) {
    put(w, text, (size_t)n);
  } else {
    /* Longer than any format of the page's: buffered first, then
     * straight through stdio. */
    write_out(w, w->buf, w->len);
    w->len = 0;
    va_start(ap, fmt);
    if (!w->error && vfprintf(w->f, fmt, ap) < 0)
      w->error = ETWCAP_E_IO;
    va_end(ap);
  }
}

int report_writer_flush(struct report_writer *w)
{
  write_out(w, w->buf, w->len);
  w->len = 0;
  return w->error;
}

/* Decodes one UTF-8 character at s (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF): its code point and length, or REPLACEMENT and 1
 * for an invalid byte. */
static uint32_t next_char(const unsigned char *s, size_t *len)
{
  uint32_t c = s[0], min;
  size_t n, i;
  *len = 1;
  if (c < 0x80)
    return c;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, c &= 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, c &= 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, c &= 0x07, min = 0x10000;
  } else {
    return REPLACEMENT;
  }
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return REPLACEMENT;
    c = c << 6 | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return REPLACEMENT;
  *len = n;
  return c;
}

/* What replaces character c, or NULL when c is written as it is; buf
 * (ESCAPE_MAX bytes) may hold the replacement. */
typedef const char *escape_fn(uint32_t c, char *buf);
#define ESCAPE_MAX 16

/* 1 for what neither HTML nor JSON escapes: most of any text, passed over
 * without decoding. */
static int plain_ascii(unsigned char c)
{
  switch (c) {
  case '&': case '<': case '>': case '"': case '\'': case '\\':
    return 0;
  default:
    return c >= 0x20 && c < 0x7F;
  }
}

/* Writes text, each character `escape` replaces replaced, and each run of
 * characters between them in one write: written through stdio character by
 * character, the page of a trace with thousands of images took a tenth of
 * the time of `etwcap report`. */
static void write_escaped(struct report_writer *w, const char *text, escape_fn *escape)
{
  const unsigned char *s = (const unsigned char *)text, *run = s;
  char buf[ESCAPE_MAX];
  while (*s) {
    size_t len;
    const char *replacement;
    if (plain_ascii(*s)) {
      s++;
      continue;
    }
    replacement = escape(next_char(s, &len), buf);
    if (replacement) {
      put(w, (const char *)run, (size_t)(s - run));
      rw_puts(w, replacement);
      run = s + len;
    }
    s += len;
  }
  put(w, (const char *)run, (size_t)(s - run));
}

static const char *html_escape(uint32_t c, char *buf)
{
  (void)buf;
  switch (c) {
  case '&': return "&amp;";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '"': return "&quot;";
  case '\'': return "&#39;";
  default:
    if (c == REPLACEMENT || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
      return "&#xFFFD;";
    return NULL;
  }
}

void rw_html(struct report_writer *w, const char *text)
{
  write_escaped(w, text ? text : "", html_escape);
}

static const char *json_escape(uint32_t c, char *buf)
{
  switch (c) {
  case '"': return "\\\"";
  case '\\': return "\\\\";
  case '\n': return "\\n";
  case '\t': return "\\t";
  default:
    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F || c == 0x2028 ||
        c == 0x2029 || c == REPLACEMENT) {
      snprintf(buf, ESCAPE_MAX, "\\u%04x", (unsigned)c);
      return buf;
    }
    return NULL;
  }
}

void rw_json_string(struct report_writer *w, const char *text)
{
  if (!text) {
    rw_puts(w, "null");
    return;
  }
  rw_puts(w, "\"");
  write_escaped(w, text, json_escape);
  rw_puts(w, "\"");
}

void rw_json_ms(struct report_writer *w, double ms)
{
  if (ms < 0)
    rw_puts(w, "null");
  else
    rw_fixed(w, ms, 3);
}

/* n in decimal, ending just before `end`: returns where it begins. */
static char *decimal(uint64_t n, char *end)
{
  do
    *--end = (char)('0' + n % 10);
  while (n /= 10);
  return end;
}

void rw_uint(struct report_writer *w, uint64_t n)
{
  char buf[24];
  char *p = decimal(n, buf + sizeof(buf));
  put(w, p, (size_t)(buf + sizeof(buf) - p));
}

/* Beyond this, a scaled value has no exact int64 (2^53: every integer a
 * double holds exactly). */
#define FIXED_MAX 9007199254740992.0

void rw_fixed(struct report_writer *w, double v, int decimals)
{
  static const double scale[] = { 1, 10, 100, 1000 };
  char buf[48];
  char *end = buf + sizeof(buf), *p;
  double scaled;
  uint64_t n;
  int i;
  if (decimals < 0 || decimals > 3 || !(fabs(v) * scale[decimals] < FIXED_MAX)) {
    rw_printf(w, "%.*f", decimals < 0 ? 0 : decimals, v);
    return;
  }
  scaled = round(fabs(v) * scale[decimals]);
  n = (uint64_t)scaled;
  p = end;
  for (i = 0; i < decimals; i++, n /= 10)
    *--p = (char)('0' + n % 10);
  if (decimals)
    *--p = '.';
  p = decimal(n, p);
  if (signbit(v)) /* as printf: -0.0004 is "-0.000" */
    *--p = '-';
  put(w, p, (size_t)(end - p));
}

const char *report_grouped(double v, char *buf, size_t cap)
{
  char digits[48];
  size_t n, i, o = 0, lead;
  if (fabs(v) < FIXED_MAX) {
    double r = round(fabs(v));
    char *p = decimal((uint64_t)r, digits + sizeof(digits) - 1);
    digits[sizeof(digits) - 1] = '\0';
    if (v < 0 && r > 0)
      *--p = '-';
    memmove(digits, p, strlen(p) + 1);
  } else {
    snprintf(digits, sizeof(digits), "%.0f", v);
  }
  n = strlen(digits);
  lead = digits[0] == '-';
  for (i = 0; i < n && o + 2 < cap; i++) {
    if (i > lead && (n - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
  return buf;
}

void rw_count(struct report_writer *w, uint64_t n)
{
  char buf[48];
  rw_puts(w, report_grouped((double)n, buf, sizeof(buf)));
}

void rw_ms(struct report_writer *w, double ms)
{
  char buf[48];
  double us = round(fabs(ms) * 1000);
  unsigned frac = (unsigned)fmod(us, 1000);
  if (ms < 0 && us > 0)
    rw_puts(w, "-");
  rw_puts(w, report_grouped(floor(us / 1000), buf, sizeof(buf)));
  buf[0] = '.';
  buf[1] = (char)('0' + frac / 100);
  buf[2] = (char)('0' + frac / 10 % 10);
  buf[3] = (char)('0' + frac % 10);
  put(w, buf, 4);
}
