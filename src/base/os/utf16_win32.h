/* UTF-8 <-> UTF-16 conversion for the Win32 edge.  Results are allocated with
 * etwcap_malloc and owned by the caller; NULL on invalid input or OOM. */
#ifndef ETWCAP_UTF16_WIN32_H
#define ETWCAP_UTF16_WIN32_H

#include <wchar.h>

wchar_t *utf8_to_utf16(const char *s);
char *utf16_to_utf8(const wchar_t *s);

#endif
