/* One translation of Win32 error codes into etwcap's ETWCAP_E_* (libuv's
 * uv_translate_sys_error): every *_win32.c file translates through this
 * table, and a log line can name the code it failed with.  A code means the
 * same everywhere; where an API gives a code a narrower meaning (StartTrace's
 * ERROR_ALREADY_EXISTS is a session of that name), its file says so next to
 * the call. */
#ifndef ETWCAP_WIN32_ERROR_WIN32_H
#define ETWCAP_WIN32_ERROR_WIN32_H

#include "src/base/error.h"

#include <windows.h>

#define WIN32_ERRORS(X)                                   \
  X(ERROR_SUCCESS, 0)                                     \
  X(ERROR_FILE_NOT_FOUND, ETWCAP_E_NOENT)                 \
  X(ERROR_PATH_NOT_FOUND, ETWCAP_E_NOENT)                 \
  X(ERROR_INVALID_DRIVE, ETWCAP_E_NOENT)                  \
  X(ERROR_BAD_PATHNAME, ETWCAP_E_NOENT)                   \
  X(ERROR_FILE_EXISTS, ETWCAP_E_EXIST)                    \
  X(ERROR_ALREADY_EXISTS, ETWCAP_E_EXIST)                 \
  X(ERROR_DISK_FULL, ETWCAP_E_NOSPC)                      \
  X(ERROR_HANDLE_DISK_FULL, ETWCAP_E_NOSPC)               \
  X(ERROR_ACCESS_DENIED, ETWCAP_E_ACCES)                  \
  X(ERROR_SHARING_VIOLATION, ETWCAP_E_ACCES)              \
  X(ERROR_WRITE_PROTECT, ETWCAP_E_ACCES)                  \
  X(ERROR_PRIVILEGE_NOT_HELD, ETWCAP_E_ACCES)             \
  X(ERROR_NOT_ALL_ASSIGNED, ETWCAP_E_ACCES)               \
  X(ERROR_NOT_ENOUGH_MEMORY, ETWCAP_E_NOMEM)              \
  X(ERROR_NO_SYSTEM_RESOURCES, ETWCAP_E_SYSTEM)           \
  X(ERROR_NOT_FOUND, ETWCAP_E_NOENT)                      \
  X(ERROR_OUTOFMEMORY, ETWCAP_E_NOMEM)                    \
  X(ERROR_FILENAME_EXCED_RANGE, ETWCAP_E_NAMETOOLONG)     \
  X(ERROR_BAD_FILE_TYPE, ETWCAP_E_NOTFILE)                \
  X(ERROR_WMI_INSTANCE_NOT_FOUND, ETWCAP_E_NO_SESSION)    \
  X(ERROR_INVALID_PARAMETER, ETWCAP_E_RANGE)              \
  X(ERROR_MORE_DATA, ETWCAP_E_RANGE)                      \
  X(ERROR_NOT_SUPPORTED, ETWCAP_E_UNSUPPORTED)            \
  X(ERROR_INVALID_FUNCTION, ETWCAP_E_UNSUPPORTED)         \
  X(ERROR_CALL_NOT_IMPLEMENTED, ETWCAP_E_UNSUPPORTED)     \
  X(ERROR_BAD_LENGTH, ETWCAP_E_INTERNAL)

/* The ETWCAP_E_* for `code`, or `fallback` when the table lacks it. */
int win32_error(DWORD code, int fallback);

/* "ERROR_ACCESS_DENIED" for its code; NULL when the table lacks it. */
const char *win32_error_name(DWORD code);

#endif
