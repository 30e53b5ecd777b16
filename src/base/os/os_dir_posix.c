/* os_dir.h on POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "src/base/os/os_dir.h"

#include "src/base/os/os_file.h"

#include <dirent.h>
#include <string.h>

int os_dir_list(const char *dir, os_dir_fn fn, void *ctx)
{
  DIR *d = opendir(dir && *dir ? dir : ".");
  struct dirent *e;
  int rc = 0;
  if (!d)
    return os_last_error();
  while (!rc && (e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    rc = fn(ctx, e->d_name);
  }
  closedir(d);
  return rc;
}

size_t os_dir_part_len(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}
