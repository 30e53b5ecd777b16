/* See win32_error_win32.h. */
#include "src/base/os/win32_error_win32.h"

#include <stddef.h>

int win32_error(DWORD code, int fallback)
{
  switch (code) {
#define WIN32_ERROR_CASE(name, etwcap_error) \
  case name:                                 \
    return etwcap_error;
    WIN32_ERRORS(WIN32_ERROR_CASE)
#undef WIN32_ERROR_CASE
  default:
    return fallback;
  }
}

const char *win32_error_name(DWORD code)
{
  switch (code) {
#define WIN32_ERROR_NAME(name, etwcap_error) \
  case name:                                 \
    return #name;
    WIN32_ERRORS(WIN32_ERROR_NAME)
#undef WIN32_ERROR_NAME
  default:
    return NULL;
  }
}
