/* A growable string (plan text and JSON, the capture manifest).  Sticky error: the
 * first allocation failure is kept and reported by strbuf_finish. */
#ifndef ETWCAP_STRBUF_H
#define ETWCAP_STRBUF_H

#include "src/base/log.h"

#include <stddef.h>

struct strbuf {
  char *data;
  size_t len, cap;
  int failed;
};

void strbuf_printf(struct strbuf *b, const char *fmt, ...) LOG_PRINTF(2, 3);
void strbuf_puts(struct strbuf *b, const char *s);
/* Appends s as a JSON string literal, quotes included. */
void strbuf_json_string(struct strbuf *b, const char *s);
/* Returns 0 and hands the string over (*out, caller frees with etwcap_free),
 * or ETWCAP_E_NOMEM. */
int strbuf_finish(struct strbuf *b, char **out);

#endif
