/* os_dir.h on Windows (FindFirstFileW with a UTF-16 pattern). */
#include <windows.h>

#include "src/base/os/os_dir.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"
#include "src/base/path_name.h"

#include <stdio.h>
#include <string.h>

int os_dir_list(const char *dir, os_dir_fn fn, void *ctx)
{
  WIN32_FIND_DATAW data;
  HANDLE h;
  char *pattern;
  wchar_t *wpattern;
  size_t len = dir && *dir ? strlen(dir) : 1;
  int rc = 0;

  pattern = etwcap_malloc(len + 3);
  if (!pattern)
    return ETWCAP_E_NOMEM;
  snprintf(pattern, len + 3, "%s\\*", dir && *dir ? dir : ".");
  wpattern = utf8_to_utf16(pattern);
  etwcap_free(pattern);
  if (!wpattern)
    return ETWCAP_E_NOMEM;
  h = FindFirstFileW(wpattern, &data);
  etwcap_free(wpattern);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND)
      return 0; /* an empty folder */
    return win32_error(e, ETWCAP_E_IO);
  }
  do {
    char *name;
    if (!wcscmp(data.cFileName, L".") || !wcscmp(data.cFileName, L".."))
      continue;
    name = utf16_to_utf8(data.cFileName);
    if (!name) {
      rc = ETWCAP_E_NOMEM;
      break;
    }
    rc = fn(ctx, name);
    etwcap_free(name);
  } while (!rc && FindNextFileW(h, &data));
  FindClose(h);
  return rc;
}

size_t os_dir_part_len(const char *path)
{
  return path_dir_len(path);
}
