/* Reading a small file whole (see file_read.h). */
#include "src/base/file_read.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>

int file_read_small(const char *path, size_t max_bytes, char **text, size_t *len)
{
  FILE *f = os_fopen(path, "rb");
  char *buf;
  size_t n;
  int rc = 0;
  if (!f)
    return os_last_error();
  /* One byte past the limit tells "too large" from "exactly the limit". */
  buf = etwcap_malloc(max_bytes + 2);
  if (!buf) {
    fclose(f);
    return ETWCAP_E_NOMEM;
  }
  n = fread(buf, 1, max_bytes + 1, f);
  if (ferror(f))
    rc = ETWCAP_E_IO;
  else if (n > max_bytes)
    rc = ETWCAP_E_RANGE;
  fclose(f);
  if (rc) {
    etwcap_free(buf);
    return rc;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return 0;
}
