/* The kernel32 entry points os_volume_win32.c calls, as a table a test may
 * replace (tests/fakes/fake_volumes_win32.c models their documented
 * contract under Wine, whose volume list is not a container host's).
 * Only *_win32.c files include this. */
#ifndef ETWCAP_OS_VOLUME_WIN32_H
#define ETWCAP_OS_VOLUME_WIN32_H

#include <windows.h>

struct os_volume_api {
  HANDLE(WINAPI *find_first)(LPWSTR name, DWORD chars);
  BOOL(WINAPI *find_next)(HANDLE find, LPWSTR name, DWORD chars);
  BOOL(WINAPI *find_close)(HANDLE find);
  DWORD(WINAPI *query_dos_device)(LPCWSTR device, LPWSTR target, DWORD chars);
  BOOL(WINAPI *path_names)(LPCWSTR volume, LPWCH names, DWORD chars, PDWORD needed);
};

/* Replaces the table (NULL: kernel32's again). */
void os_volume_use_api(const struct os_volume_api *api);

#endif
