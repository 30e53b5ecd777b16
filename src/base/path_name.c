/* Path parts (see path_name.h). */
#include "src/base/path_name.h"

#include "src/base/strutil.h"

#include <string.h>

const char *path_base_name(const char *path)
{
  const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
  if (back && (!slash || back > slash))
    slash = back;
  return slash ? slash + 1 : path;
}

size_t path_dir_len(const char *path)
{
  return (size_t)(path_base_name(path) - path);
}

size_t path_stem_len(const char *path, const char *suffix)
{
  size_t len = strlen(path);
  return str_ends_with_case(path, suffix) ? len - strlen(suffix) : len;
}
