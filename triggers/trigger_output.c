/* See trigger_output.h. */
#include "triggers/trigger_output.h"

#include "src/base/error.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

/* Length of the name without .etl.zip / .etl / .zip. */
static size_t stem_length(const char *name)
{
  size_t n = strlen(name), stem = path_stem_len(name, ".etl.zip");
  if (stem == n)
    stem = path_stem_len(name, ".etl");
  return stem == n ? path_stem_len(name, ".zip") : stem;
}

static int make_name(const char *data_file, unsigned index, int zip, char *out, size_t cap)
{
  size_t stem = stem_length(data_file);
  int n;
  if (index == 0)
    n = snprintf(out, cap, "%.*s.etl%s", (int)stem, data_file, zip ? ".zip" : "");
  else
    n = snprintf(out, cap, "%.*s.%u.etl%s", (int)stem, data_file, index, zip ? ".zip" : "");
  return n < 0 || (size_t)n >= cap ? ETWCAP_E_RANGE : 0;
}

int trigger_collect_name(const char *data_file, unsigned index, int zip,
                         int (*exists)(void *ctx, const char *path), void *ctx, char *out,
                         size_t cap, unsigned *used)
{
  unsigned i = index;
  int rc;
  for (;;) {
    rc = make_name(data_file, i, zip, out, cap);
    if (rc)
      return rc;
    if (!exists || i == 0 || !exists(ctx, out))
      break;
    if (i == 0xFFFFFFFFu)
      return ETWCAP_E_RANGE;
    i++;
  }
  if (used)
    *used = i;
  return 0;
}

int trigger_stop_command(const char *command, const char *output, char *out, size_t cap)
{
  const char *slash = NULL, *p;
  size_t dir_len, base_len, n = 0;
  const char *base;
  for (p = output; *p; p++)
    if (*p == '\\' || *p == '/')
      slash = p;
  base = slash ? slash + 1 : output;
  dir_len = slash ? (size_t)(slash - output) : 0;
  base_len = stem_length(base);
  for (p = command; *p;) {
    const char *piece = p;
    size_t len = 1;
    if (str_ncaseeq(p, "%OUTPUTDIR%", 11)) {
      piece = slash ? output : ".";
      len = slash ? (dir_len ? dir_len : 1) : 1;
      p += 11;
    } else if (str_ncaseeq(p, "%OUTPUTBASENAME%", 16)) {
      piece = base;
      len = base_len;
      p += 16;
    } else {
      p++;
    }
    if (n + len >= cap)
      return ETWCAP_E_RANGE;
    memcpy(out + n, piece, len);
    n += len;
  }
  if (n >= cap)
    return ETWCAP_E_RANGE;
  out[n] = '\0';
  return 0;
}
