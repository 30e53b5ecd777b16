/* See dir_parents.h. */
#include "src/base/dir_parents.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>

int dir_make_parents(const char *path, size_t root_len)
{
  char dir[1100];
  size_t i;
  for (i = root_len + 1; path[i]; i++) {
    if (path[i] != '/' && path[i] != '\\')
      continue;
    if ((size_t)snprintf(dir, sizeof(dir), "%.*s", (int)i, path) >= sizeof(dir))
      return ETWCAP_E_EXIST;
    if (os_make_dir(dir) != 0 || !os_is_plain_dir(dir))
      return ETWCAP_E_EXIST;
  }
  return 0;
}
