/* See file_write.h. */
#include "src/base/file_write.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

/* The error of the call that just failed (a stream error may leave none). */
static int failure(void)
{
  int rc = os_last_error();
  return rc ? rc : ETWCAP_E_IO;
}

int file_write_replace(const char *path, const void *data, size_t len)
{
  size_t cap = strlen(path) + 32;
  char *tmp = etwcap_malloc(cap);
  FILE *f = NULL;
  int rc = tmp ? os_temp_name(path, tmp, cap) : ETWCAP_E_NOMEM;

  if (!rc && !(f = os_fcreate(tmp)))
    rc = failure();
  if (f) {
    if (fwrite(data, 1, len, f) != len)
      rc = failure();
    if (fclose(f) != 0 && !rc)
      rc = failure();
    if (!rc)
      rc = os_rename_replace(tmp, path);
    if (rc)
      os_remove(tmp);
  }
  etwcap_free(tmp);
  return rc;
}
