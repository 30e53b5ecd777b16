/* UTF-8 <-> UTF-16 through the Win32 converters (see utf16_win32.h). */
#include <windows.h>

#include "src/base/os/utf16_win32.h"

#include "src/base/alloc.h"

wchar_t *utf8_to_utf16(const char *s)
{
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  wchar_t *w;
  if (n <= 0)
    return NULL;
  w = etwcap_calloc((size_t)n, sizeof(wchar_t));
  if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
    etwcap_free(w);
    w = NULL;
  }
  return w;
}

char *utf16_to_utf8(const wchar_t *s)
{
  int n = WideCharToMultiByte(CP_UTF8, 0, s, -1, NULL, 0, NULL, NULL);
  char *u;
  if (n <= 0)
    return NULL;
  u = etwcap_malloc((size_t)n);
  if (u && WideCharToMultiByte(CP_UTF8, 0, s, -1, u, n, NULL, NULL) != n) {
    etwcap_free(u);
    u = NULL;
  }
  return u;
}
