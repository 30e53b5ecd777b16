/* Small string helpers with locale-independent behaviour (the C library's
 * strcasecmp and strtod depend on the locale and are not in C11). */
#ifndef ETWCAP_STRUTIL_H
#define ETWCAP_STRUTIL_H

#include <stddef.h>
#include <stdint.h>

/* ASCII case-insensitive comparison. */
int str_caseeq(const char *a, const char *b);
int str_ncaseeq(const char *a, const char *b, size_t n);
int str_casecmp(const char *a, const char *b);
int str_ends_with_case(const char *s, const char *suffix);

/* Replaces each control character (below 0x20, and DEL) with '?' in place:
 * text taken from files (zip member names, image paths, provider names)
 * may hold line breaks or terminal escapes, which would forge lines or
 * drive the terminal it is shown on. */
void str_neutralise_controls(char *s);

/* Whole-string parses: optional sign, then decimal digits or 0x/0X hex.
 * Return 0, or -1 when the text is empty, has junk or overflows. */
int str_parse_int64(const char *s, int64_t *out);
int str_parse_uint64(const char *s, uint64_t *out);
/* Hex digits with an optional 0x prefix (keyword masks). */
int str_parse_hex_uint64(const char *s, uint64_t *out);
/* Decimal number with optional fraction and exponent, '.' as separator. */
int str_parse_double(const char *s, double *out);

#endif
