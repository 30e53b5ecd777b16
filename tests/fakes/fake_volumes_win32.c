/* The volume functions' model (see fake_volumes_win32.h). */
#include "tests/fakes/fake_volumes_win32.h"

#include "src/base/os/os_volume_win32.h"

#include <stdio.h>
#include <string.h>

struct fake_volumes fake_volumes;

/* The handle FindFirstVolumeW gives: the index of the next volume + 1. */
static size_t next_index;
static HANDLE const find_handle = (HANDLE)(ULONG_PTR)0x5151;

static void violation(const char *what)
{
  fake_volumes.violations++;
  snprintf(fake_volumes.last_violation, sizeof(fake_volumes.last_violation), "%s", what);
}

/* Copies volume i's GUID path into name (chars); FALSE with
 * ERROR_FILENAME_EXCED_RANGE when it does not fit. */
static BOOL give(size_t i, LPWSTR name, DWORD chars)
{
  size_t n = wcslen(fake_volumes.v[i].guid_path);
  if (n + 1 > chars) {
    SetLastError(ERROR_FILENAME_EXCED_RANGE);
    return FALSE;
  }
  memcpy(name, fake_volumes.v[i].guid_path, (n + 1) * sizeof(wchar_t));
  return TRUE;
}

static HANDLE WINAPI find_first(LPWSTR name, DWORD chars)
{
  if (fake_volumes.first_error) {
    SetLastError(fake_volumes.first_error);
    return INVALID_HANDLE_VALUE;
  }
  if (!fake_volumes.count) {
    SetLastError(ERROR_NO_MORE_FILES);
    return INVALID_HANDLE_VALUE;
  }
  if (!give(0, name, chars))
    return INVALID_HANDLE_VALUE;
  next_index = 1;
  fake_volumes.open_finds++;
  return find_handle;
}

static BOOL WINAPI find_next(HANDLE find, LPWSTR name, DWORD chars)
{
  if (find != find_handle || !fake_volumes.open_finds) {
    violation("FindNextVolumeW on a handle FindFirstVolumeW did not give");
    SetLastError(ERROR_INVALID_HANDLE);
    return FALSE;
  }
  /* "If no matching files can be found, ... GetLastError returns ERROR_NO_MORE_FILES." */
  if (next_index >= fake_volumes.count) {
    SetLastError(ERROR_NO_MORE_FILES);
    return FALSE;
  }
  return give(next_index++, name, chars);
}

static BOOL WINAPI find_close(HANDLE find)
{
  if (find != find_handle || !fake_volumes.open_finds) {
    violation("FindVolumeClose on a handle that is not open");
    return FALSE;
  }
  fake_volumes.open_finds--;
  return TRUE;
}

static DWORD WINAPI query_dos_device(LPCWSTR device, LPWSTR target, DWORD chars)
{
  size_t i, len = device ? wcslen(device) : 0, n;
  /* QueryDosDeviceW takes an MS-DOS device name with no trailing backslash;
   * the "Displaying Volume Paths" sample strips "\\?\" before it too. */
  if (!len || device[len - 1] == L'\\' || wcsncmp(device, L"\\\\?\\", 4) == 0) {
    violation("QueryDosDeviceW given a name with \\\\?\\ or a trailing backslash");
    SetLastError(ERROR_FILE_NOT_FOUND);
    return 0;
  }
  for (i = 0; i < fake_volumes.count; i++) {
    const wchar_t *g = fake_volumes.v[i].guid_path;
    if (wcsncmp(g + 4, device, len) == 0 && g[4 + len] == L'\\' && !g[5 + len]) {
      n = wcslen(fake_volumes.v[i].device);
      if (n + 2 > chars) {
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        return 0;
      }
      memcpy(target, fake_volumes.v[i].device, n * sizeof(wchar_t));
      target[n] = target[n + 1] = L'\0'; /* a multi-string */
      return (DWORD)(n + 2);
    }
  }
  SetLastError(ERROR_FILE_NOT_FOUND);
  return 0;
}

static size_t multi_len(const wchar_t *m)
{
  size_t n = 0;
  while (m[n])
    n += wcslen(m + n) + 1;
  return n + 1;
}

static BOOL WINAPI path_names(LPCWSTR volume, LPWCH names, DWORD chars, PDWORD needed)
{
  size_t i, n;
  /* "A volume GUID path is of the form \\?\Volume{...}\" (with the
   * backslash the volume functions require). */
  if (!volume || wcsncmp(volume, L"\\\\?\\Volume{", 11) != 0 ||
      volume[wcslen(volume) - 1] != L'\\') {
    violation("GetVolumePathNamesForVolumeNameW given no volume GUID path with its backslash");
    SetLastError(ERROR_INVALID_NAME);
    return FALSE;
  }
  for (i = 0; i < fake_volumes.count; i++)
    if (wcscmp(fake_volumes.v[i].guid_path, volume) == 0)
      break;
  if (i == fake_volumes.count) {
    SetLastError(ERROR_FILE_NOT_FOUND);
    return FALSE;
  }
  n = multi_len(fake_volumes.v[i].mounts);
  if (needed)
    *needed = (DWORD)n;
  if (n > chars) {
    SetLastError(ERROR_MORE_DATA);
    return FALSE;
  }
  memcpy(names, fake_volumes.v[i].mounts, n * sizeof(wchar_t));
  return TRUE;
}

static const struct os_volume_api fake_api = { find_first, find_next, find_close,
                                               query_dos_device, path_names };

void fake_volumes_install(void)
{
  memset(&fake_volumes, 0, sizeof(fake_volumes));
  os_volume_use_api(&fake_api);
}

void fake_volumes_uninstall(void)
{
  os_volume_use_api(NULL);
}
