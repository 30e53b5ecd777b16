/* See file_error.h. */
#include "src/base/file_error.h"

#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

void file_create_error(char *why, size_t why_size, const char *path, int rc)
{
  const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
  if (back && (!slash || back > slash))
    slash = back;
  if (rc == ETWCAP_E_DENIED || rc == ETWCAP_E_ACCES) {
    if (slash)
      snprintf(why, why_size, "cannot write to %.*s: permission denied",
               (int)(slash == path ? 1 : slash - path), path);
    else
      snprintf(why, why_size, "cannot write to the current folder: permission denied");
    return;
  }
  snprintf(why, why_size, "cannot create '%s': %s", path, etwcap_strerror(rc));
}
