/* The volumes of the running Windows, as a map from the NT device name the
 * kernel writes in image paths ("\Device\HarddiskVolume7") to the volume's
 * GUID path ("\\?\Volume{GUID}\"), which opens the same volume whether or
 * not it has a drive letter.  A process-isolated container's volume has
 * none, so its images' paths stay device paths (docs/containers.md).
 * Implemented by os_volume_win32.c (FindFirstVolumeW, QueryDosDeviceW,
 * GetVolumePathNamesForVolumeNameW) and os_volume_posix.c (none).
 *
 * Lifetime: os_volume_list_take allocates the list; os_volume_list_release
 * frees it. */
#ifndef ETWCAP_OS_VOLUME_H
#define ETWCAP_OS_VOLUME_H

#include <stddef.h>
#include <stdint.h>

#define OS_VOLUME_NAME_MAX 128
/* More volumes than this is no real host: the rest are left out. */
#define OS_VOLUME_MAX 1024

struct os_volume {
  char device[OS_VOLUME_NAME_MAX]; /* "\Device\HarddiskVolume7", no trailing '\' */
  char guid_path[OS_VOLUME_NAME_MAX]; /* "\\?\Volume{GUID}\", with its trailing '\' */
  int mounted; /* on a drive letter or a folder (the drive table names it) */
};

struct os_volume_list {
  struct os_volume *v;
  size_t count;
  int64_t filetime; /* when it was taken (UTC FILETIME) */
};

/* The volumes now.  0, ETWCAP_E_UNSUPPORTED (no volumes to ask: not
 * Windows) or the OS error; on failure *out is empty. */
int os_volume_list_take(struct os_volume_list *out);
void os_volume_list_release(struct os_volume_list *l);

#endif
