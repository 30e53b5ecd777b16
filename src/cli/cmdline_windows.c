/* Windows command-line splitting (rules in cmdline_windows.h). */
#include "src/cli/cmdline_windows.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

int cmdline_split_windows(struct token_list *out, const char *cmdline)
{
  size_t len = strlen(cmdline), n = 0;
  const char *p = cmdline;
  char *buf = etwcap_malloc(len + 1);
  int rc = 0, quoted = 0;

  if (!buf)
    return ETWCAP_E_NOMEM;

  /* The program name: quotes group, nothing is escaped. */
  while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
    if (*p == '"')
      quoted = !quoted;
    else
      buf[n++] = *p;
    p++;
  }
  rc = token_list_push(out, buf, n);

  while (!rc) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p)
      break;
    n = 0;
    quoted = 0;
    while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
      size_t slashes = 0;
      while (p[slashes] == '\\')
        slashes++;
      if (p[slashes] == '"') {
        /* 2n backslashes + quote: n backslashes, quote toggles;
         * 2n+1 backslashes + quote: n backslashes and a literal quote. */
        memset(buf + n, '\\', slashes / 2);
        n += slashes / 2;
        p += slashes;
        if (slashes % 2) {
          buf[n++] = '"';
        } else if (quoted && p[1] == '"') {
          buf[n++] = '"'; /* "" inside quotes is a literal quote */
          p++;
        } else {
          quoted = !quoted;
        }
        p++;
      } else if (slashes) {
        memset(buf + n, '\\', slashes); /* backslashes not before a quote are literal */
        n += slashes;
        p += slashes;
      } else {
        buf[n++] = *p++;
      }
    }
    rc = token_list_push(out, buf, n);
  }
  etwcap_free(buf);
  return rc;
}
