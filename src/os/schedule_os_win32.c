/* schedule_os.h with the system folder's schtasks.exe. */
#include "src/base/os/compat_win32.h"

#include "src/os/schedule_os.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"
#include "src/os/process_shell.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define SCHTASKS_TIMEOUT_MS 60000u

/* schtasks.exe of the system folder, never one in the folder etwcap was
 * started from (process_run_system_tool): this runs elevated. */
static int schtasks(const char *args, char *why, unsigned why_size)
{
  int code = -1, rc;
  rc = process_run_system_tool("schtasks", args, SCHTASKS_TIMEOUT_MS, &code, why, why_size);
  if (!rc && code != 0) {
    snprintf(why, why_size, "'schtasks %s' exited with code %d (its message is above)", args,
             code);
    rc = ETWCAP_E_SYSTEM;
  }
  return rc;
}

/* The XML as UTF-16 LE with a byte-order mark, in %TEMP% under a name
 * another user cannot guess, created exclusively (os_fcreate): the file an
 * elevated schtasks registers is the one written here. */
static int write_utf16(const char *xml, const char *name, char *path, size_t cap)
{
  wchar_t dir[MAX_PATH + 1], *w = utf8_to_utf16(xml);
  char *dir8, base[1024];
  FILE *f;
  size_t n;
  int rc = 0;
  *path = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  if (!GetTempPathW(MAX_PATH + 1, dir) || !(dir8 = utf16_to_utf8(dir))) {
    etwcap_free(w);
    return ETWCAP_E_SYSTEM;
  }
  snprintf(base, sizeof(base), "%setwcap-task-%s.xml", dir8, name);
  etwcap_free(dir8);
  if ((rc = os_temp_name(base, path, cap)) != 0) {
    etwcap_free(w);
    return rc;
  }
  f = os_fcreate(path);
  n = wcslen(w);
  if (!f || fwrite("\xff\xfe", 1, 2, f) != 2 || fwrite(w, sizeof(wchar_t), n, f) != n)
    rc = ETWCAP_E_IO;
  if (f && fclose(f) != 0)
    rc = ETWCAP_E_IO;
  if (rc && f) /* ours, half written */
    os_remove(path);
  etwcap_free(w);
  return rc;
}

int schedule_os_create(const char *name, const char *xml, char *why, unsigned why_size)
{
  char path[1024], args[1400];
  int rc = write_utf16(xml, name, path, sizeof(path));
  if (rc) {
    snprintf(why, why_size, "cannot write the task's XML to '%s' (%%TEMP%%)", path);
    return rc;
  }
  snprintf(args, sizeof(args), "/Create /TN \\etwcap\\%s /XML \"%s\" /F", name, path);
  rc = schtasks(args, why, why_size);
  os_remove(path);
  return rc;
}

int schedule_os_delete(const char *name, char *why, unsigned why_size)
{
  char args[512];
  snprintf(args, sizeof(args), "/Delete /TN \\etwcap\\%s /F", name);
  return schtasks(args, why, why_size);
}

int schedule_os_list(char *why, unsigned why_size)
{
  return schtasks("/Query /TN \\etwcap\\", why, why_size);
}
