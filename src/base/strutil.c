/* Locale-independent string helpers (see strutil.h). */
#include "src/base/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

static int lower(int c)
{
  return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

int str_casecmp(const char *a, const char *b)
{
  for (; *a && lower((unsigned char)*a) == lower((unsigned char)*b); a++, b++) {
  }
  return lower((unsigned char)*a) - lower((unsigned char)*b);
}

void str_neutralise_controls(char *s)
{
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7F)
      *s = '?';
}

int str_caseeq(const char *a, const char *b)
{
  return str_casecmp(a, b) == 0;
}

int str_ncaseeq(const char *a, const char *b, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
      return 0;
    if (!a[i])
      return 1;
  }
  return 1;
}

int str_ends_with_case(const char *s, const char *suffix)
{
  size_t ls = strlen(s), lx = strlen(suffix);
  return ls >= lx && str_caseeq(s + ls - lx, suffix);
}

static int digit_value(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  c = lower(c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return 99;
}

static int parse_magnitude(const char *s, int base, uint64_t *out)
{
  uint64_t v = 0;
  int d;
  if (!*s)
    return -1;
  for (; *s; s++) {
    d = digit_value((unsigned char)*s);
    if (d >= base)
      return -1;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
      return -1;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out = v;
  return 0;
}

int str_parse_uint64(const char *s, uint64_t *out)
{
  if (s[0] == '+')
    s++;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return parse_magnitude(s + 2, 16, out);
  return parse_magnitude(s, 10, out);
}

int str_parse_hex_uint64(const char *s, uint64_t *out)
{
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  return parse_magnitude(s, 16, out);
}

int str_parse_int64(const char *s, int64_t *out)
{
  int negative = s[0] == '-';
  uint64_t mag;
  if (negative)
    s++;
  else if (s[0] == '+')
    s++;
  if (s[0] == '-' || s[0] == '+' || str_parse_uint64(s, &mag) != 0)
    return -1;
  if (negative) {
    if (mag > (uint64_t)INT64_MAX + 1)
      return -1;
    *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX)
      return -1;
    *out = (int64_t)mag;
  }
  return 0;
}

int str_parse_double(const char *s, double *out)
{
  /* Hand-rolled so ',' vs '.' never depends on the user's locale. */
  double v = 0, scale = 1;
  int negative = 0, digits = 0, exp = 0, exp_negative = 0, exp_digits = 0;
  if (*s == '-' || *s == '+')
    negative = *s++ == '-';
  for (; isdigit((unsigned char)*s); s++, digits++)
    v = v * 10 + (*s - '0');
  if (*s == '.')
    for (s++; isdigit((unsigned char)*s); s++, digits++)
      v += (*s - '0') * (scale /= 10);
  if (!digits)
    return -1;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '-' || *s == '+')
      exp_negative = *s++ == '-';
    for (; isdigit((unsigned char)*s) && exp < 10000; s++, exp_digits++)
      exp = exp * 10 + (*s - '0');
    if (!exp_digits)
      return -1;
  }
  if (*s)
    return -1;
  if (exp)
    v *= pow(10.0, exp_negative ? -exp : exp);
  if (!isfinite(v))
    return -1;
  *out = negative ? -v : v;
  return 0;
}
