/* UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF).  Zip names flagged UTF-8 and JSON strings must be valid; a file
 * name on Linux is only bytes. */
#ifndef ETWCAP_UTF8_H
#define ETWCAP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* 1 when the n bytes at s are valid UTF-8. */
int utf8_valid(const uint8_t *s, size_t n);

#endif
