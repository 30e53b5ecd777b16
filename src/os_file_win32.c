/* os_file.h on Windows: UTF-8 paths converted to UTF-16 for the W APIs. */
#include <windows.h>

#include "os_file.h"

#include "alloc.h"
#include "error.h"
#include "utf16_win32.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static DWORD last_win32_error;

static int translate(DWORD e)
{
  last_win32_error = e;
  switch (e) {
  case ERROR_SUCCESS:
    return 0;
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_DRIVE:
    return ETWCAP_E_NOENT;
  case ERROR_FILE_EXISTS:
  case ERROR_ALREADY_EXISTS:
    return ETWCAP_E_EXIST;
  case ERROR_DISK_FULL:
  case ERROR_HANDLE_DISK_FULL:
    return ETWCAP_E_NOSPC;
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION:
  case ERROR_WRITE_PROTECT:
    return ETWCAP_E_ACCES;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY:
    return ETWCAP_E_NOMEM;
  default:
    return ETWCAP_E_IO;
  }
}

/* The C runtime reports through errno; map the common values to Win32 codes
 * so one translation serves both. */
static DWORD errno_to_win32(int e)
{
  switch (e) {
  case ENOENT:
    return ERROR_FILE_NOT_FOUND;
  case EEXIST:
    return ERROR_FILE_EXISTS;
  case ENOSPC:
    return ERROR_DISK_FULL;
  case EACCES:
    return ERROR_ACCESS_DENIED;
  case ENOMEM:
    return ERROR_NOT_ENOUGH_MEMORY;
  default:
    return ERROR_GEN_FAILURE;
  }
}

int os_last_error(void)
{
  return translate(last_win32_error);
}

const char *os_last_error_text(char *buf, size_t size)
{
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                           last_win32_error, 0, buf, (DWORD)size, NULL);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
    buf[--n] = '\0';
  if (n == 0)
    snprintf(buf, size, "Windows error %lu", (unsigned long)last_win32_error);
  else
    snprintf(buf + n, size - n, " (Win32 error %lu)", (unsigned long)last_win32_error);
  return buf;
}

FILE *os_fopen(const char *path, const char *mode)
{
  wchar_t *wpath = utf8_to_utf16(path), *wmode = utf8_to_utf16(mode);
  FILE *f = NULL;
  if (wpath && wmode) {
    f = _wfopen(wpath, wmode);
    if (!f)
      last_win32_error = errno_to_win32(errno);
  } else {
    last_win32_error = ERROR_NOT_ENOUGH_MEMORY;
  }
  etwcap_free(wpath);
  etwcap_free(wmode);
  return f;
}

int os_fseek64(FILE *f, int64_t offset, int whence)
{
  if (_fseeki64(f, offset, whence) == 0)
    return 0;
  return translate(errno_to_win32(errno));
}

int64_t os_ftell64(FILE *f)
{
  return _ftelli64(f);
}

int os_rename_replace(const char *from, const char *to)
{
  wchar_t *wfrom = utf8_to_utf16(from), *wto = utf8_to_utf16(to);
  int rc = ETWCAP_E_NOMEM;
  if (wfrom && wto)
    rc = MoveFileExW(wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
             ? 0
             : translate(GetLastError());
  etwcap_free(wfrom);
  etwcap_free(wto);
  return rc;
}

int os_remove(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = DeleteFileW(w) ? 0 : translate(GetLastError());
  etwcap_free(w);
  return rc;
}

int os_file_size(const char *path, int64_t *size)
{
  WIN32_FILE_ATTRIBUTE_DATA data;
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  if (GetFileAttributesExW(w, GetFileExInfoStandard, &data)) {
    *size = (int64_t)(((uint64_t)data.nFileSizeHigh << 32) | data.nFileSizeLow);
    rc = 0;
  } else {
    rc = translate(GetLastError());
  }
  etwcap_free(w);
  return rc;
}

int os_is_directory(const char *path)
{
  wchar_t *w = utf8_to_utf16(path);
  DWORD attr;
  if (!w)
    return 0;
  attr = GetFileAttributesW(w);
  etwcap_free(w);
  return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY);
}

int os_free_disk_bytes(const char *path, uint64_t *bytes)
{
  ULARGE_INTEGER avail;
  wchar_t *w = utf8_to_utf16(path);
  int rc;
  if (!w)
    return ETWCAP_E_NOMEM;
  rc = GetDiskFreeSpaceExW(w, &avail, NULL, NULL) ? 0 : translate(GetLastError());
  if (rc == 0)
    *bytes = avail.QuadPart;
  etwcap_free(w);
  return rc;
}

void os_native_path(char *path)
{
  (void)path;
}

int os_nt_path_to_dos(const char *nt_path, char *out, size_t size)
{
  wchar_t drive[3] = L"A:", target[1024];
  char *device;
  size_t len;
  /* Ask each drive letter which device it names; the longest match wins
   * (\Device\HarddiskVolume1 must not match \Device\HarddiskVolume10). */
  for (; drive[0] <= L'Z'; drive[0]++) {
    if (!QueryDosDeviceW(drive, target, sizeof(target) / sizeof(target[0])))
      continue;
    device = utf16_to_utf8(target);
    if (!device)
      return ETWCAP_E_NOMEM;
    len = strlen(device);
    if (_strnicmp(nt_path, device, len) == 0 && (nt_path[len] == '\\' || !nt_path[len])) {
      snprintf(out, size, "%c:%s", (char)drive[0], nt_path + len);
      etwcap_free(device);
      return 0;
    }
    etwcap_free(device);
  }
  return ETWCAP_E_NOENT;
}
