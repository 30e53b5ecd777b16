/* Portable half of the version seam: parsing and comparing. */
#include "src/base/os/os_version.h"

#include "src/base/strutil.h"

#include <string.h>

int os_version_parse(const char *text, struct os_version *out)
{
  unsigned parts[3] = { 0, 0, 0 };
  int n = 0;
  const char *p = text;
  while (n < 3) {
    char buf[16];
    size_t len = strcspn(p, ".");
    uint64_t v;
    if (len == 0 || len >= sizeof(buf) || p[0] < '0' || p[0] > '9')
      return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (str_parse_uint64(buf, &v) != 0 || v > 1000000)
      return -1;
    parts[n++] = (unsigned)v;
    p += len;
    if (!*p)
      break;
    p++;
  }
  if (*p || n < 2)
    return -1;
  out->major = parts[0];
  out->minor = parts[1];
  out->build = parts[2];
  return 0;
}

int os_version_cmp(const struct os_version *v, unsigned major, unsigned minor, unsigned build)
{
  if (v->major != major)
    return v->major < major ? -1 : 1;
  if (v->minor != minor)
    return v->minor < minor ? -1 : 1;
  if (v->build != build)
    return v->build < build ? -1 : 1;
  return 0;
}
