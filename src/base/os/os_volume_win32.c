/* The volume map from kernel32 (os_volume.h), the way TraceEvent's
 * src/TraceEvent/Utilities/WindowsDeviceToVolumeMap.cs builds its own: each
 * volume FindFirstVolumeW/FindNextVolumeW name, then QueryDosDeviceW of that
 * name without its "\\?\" prefix and trailing '\' (the "Displaying Volume
 * Paths" sample on Learn strips both: QueryDosDeviceW takes no trailing
 * backslash), which gives the NT device name.  GetVolumePathNamesForVolumeNameW
 * says whether a letter or folder mounts it. */
#include "src/base/os/os_volume.h"
#include "src/base/os/os_volume_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_time.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <string.h>

static const struct os_volume_api kernel32 = { FindFirstVolumeW, FindNextVolumeW,
                                               FindVolumeClose, QueryDosDeviceW,
                                               GetVolumePathNamesForVolumeNameW };
static const struct os_volume_api *api = &kernel32;

void os_volume_use_api(const struct os_volume_api *a)
{
  api = a ? a : &kernel32;
}

#define NAME_CHARS 260 /* MAX_PATH: a volume GUID path is 49 characters */

static int utf8_into(const wchar_t *w, char *out, size_t size)
{
  char *s = utf16_to_utf8(w);
  int rc = ETWCAP_E_RANGE;
  if (!s)
    return ETWCAP_E_NOMEM;
  if (strlen(s) < size) {
    memcpy(out, s, strlen(s) + 1);
    rc = 0;
  }
  etwcap_free(s);
  return rc;
}

/* One volume's entry from its GUID path `name` ("\\?\Volume{...}\"); 1 when
 * it is one (a name of another form, or one QueryDosDeviceW does not know,
 * is left out). */
static int describe(const wchar_t *name, struct os_volume *v)
{
  wchar_t key[NAME_CHARS], target[NAME_CHARS], mounts[NAME_CHARS];
  DWORD needed = 0;
  size_t len = wcslen(name);
  if (len < 6 || wcsncmp(name, L"\\\\?\\", 4) != 0 || name[len - 1] != L'\\')
    return 0;
  memcpy(key, name + 4, (len - 5) * sizeof(wchar_t));
  key[len - 5] = L'\0';
  if (!api->query_dos_device(key, target, NAME_CHARS))
    return 0;
  memset(v, 0, sizeof(*v));
  if (utf8_into(target, v->device, sizeof(v->device)) != 0 ||
      utf8_into(name, v->guid_path, sizeof(v->guid_path)) != 0)
    return 0;
  /* A buffer too small for every mount point still shows there is one. */
  mounts[0] = L'\0';
  if (api->path_names(name, mounts, NAME_CHARS, &needed))
    v->mounted = mounts[0] != L'\0';
  else
    v->mounted = GetLastError() == ERROR_MORE_DATA;
  return 1;
}

int os_volume_list_take(struct os_volume_list *out)
{
  wchar_t name[NAME_CHARS];
  HANDLE find;
  DWORD err;
  memset(out, 0, sizeof(*out));
  out->filetime = os_time_now_utc_filetime();
  find = api->find_first(name, NAME_CHARS);
  if (find == INVALID_HANDLE_VALUE)
    return win32_error(GetLastError(), ETWCAP_E_IO);
  if (!(out->v = etwcap_calloc(OS_VOLUME_MAX, sizeof(*out->v)))) {
    api->find_close(find);
    return ETWCAP_E_NOMEM;
  }
  do {
    if (out->count < OS_VOLUME_MAX && describe(name, &out->v[out->count]))
      out->count++;
  } while (api->find_next(find, name, NAME_CHARS));
  err = GetLastError();
  api->find_close(find);
  if (err != ERROR_NO_MORE_FILES) {
    os_volume_list_release(out);
    return win32_error(err, ETWCAP_E_IO);
  }
  return 0;
}

void os_volume_list_release(struct os_volume_list *l)
{
  etwcap_free(l->v);
  memset(l, 0, sizeof(*l));
}
