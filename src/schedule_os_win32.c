/* schedule_os.h with schtasks.exe. */
#include "compat_win32.h"

#include "schedule_os.h"

#include "alloc.h"
#include "error.h"
#include "os_file.h"
#include "process_shell.h"
#include "utf16_win32.h"
#include "win32_error_win32.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define SCHTASKS_TIMEOUT_MS 60000u

static int schtasks(const char *args, char *why, unsigned why_size)
{
  char line[4096];
  int code = -1, rc;
  snprintf(line, sizeof(line), "schtasks %s", args);
  rc = process_run_shell(line, SCHTASKS_TIMEOUT_MS, &code, why, why_size);
  if (!rc && code != 0) {
    snprintf(why, why_size, "'%s' exited with code %d (its message is above)", line, code);
    rc = ETWCAP_E_SYSTEM;
  }
  return rc;
}

/* The XML as UTF-16 LE with a byte-order mark, in %TEMP%. */
static int write_utf16(const char *xml, const char *name, char *path, size_t cap)
{
  wchar_t dir[MAX_PATH + 1], *w = utf8_to_utf16(xml);
  char *dir8;
  FILE *f;
  size_t n;
  int rc = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  if (!GetTempPathW(MAX_PATH + 1, dir) || !(dir8 = utf16_to_utf8(dir))) {
    etwcap_free(w);
    return ETWCAP_E_SYSTEM;
  }
  snprintf(path, cap, "%setwcap-task-%s.xml", dir8, name);
  etwcap_free(dir8);
  f = os_fopen(path, "wb");
  n = wcslen(w);
  if (!f || fwrite("\xff\xfe", 1, 2, f) != 2 || fwrite(w, sizeof(wchar_t), n, f) != n)
    rc = ETWCAP_E_IO;
  if (f && fclose(f) != 0)
    rc = ETWCAP_E_IO;
  etwcap_free(w);
  return rc;
}

int schedule_os_create(const char *name, const char *xml, char *why, unsigned why_size)
{
  char path[1024], args[1400];
  int rc = write_utf16(xml, name, path, sizeof(path));
  if (rc) {
    snprintf(why, why_size, "cannot write the task's XML to '%s'", path);
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
