/* A model of kernel32's volume functions (os_volume_win32.h's table) for
 * the Windows unit tests: a few scripted volumes, each call checked
 * against its documented contract (rules and sources: tests/fakes/README.md).
 * A breach is recorded as a violation; tests assert there are none. */
#ifndef ETWCAP_FAKE_VOLUMES_WIN32_H
#define ETWCAP_FAKE_VOLUMES_WIN32_H

#include <windows.h>

#include <stddef.h>

#define FAKE_VOLUMES_MAX 8

struct fake_volume {
  const wchar_t *guid_path; /* "\\?\Volume{...}\" */
  const wchar_t *device;    /* "\Device\HarddiskVolumeN" */
  const wchar_t *mounts;    /* multi-string of letters and folders ("C:\\\0"), L"" none */
};

struct fake_volumes {
  struct fake_volume v[FAKE_VOLUMES_MAX];
  size_t count;
  DWORD first_error;     /* FindFirstVolumeW fails with it (0: succeeds) */
  unsigned open_finds;   /* handles not closed */
  unsigned violations;
  char last_violation[256];
};

extern struct fake_volumes fake_volumes;

/* Resets fake_volumes and puts the fake's table in os_volume_win32.c. */
void fake_volumes_install(void);
void fake_volumes_uninstall(void);

#endif
