/* UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF).  Zip names flagged UTF-8 and JSON strings must be valid; a file
 * name on Linux is only bytes. */
#ifndef ETWCAP_UTF8_H
#define ETWCAP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1 to 4) of the valid UTF-8 sequence that starts the n > 0
 * bytes at s, or 0 when they do not start with one. */
size_t utf8_sequence_length(const uint8_t *s, size_t n);

/* 1 when the n bytes at s are valid UTF-8. */
int utf8_valid(const uint8_t *s, size_t n);

#endif
