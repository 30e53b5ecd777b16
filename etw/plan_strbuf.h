/* A growable string for the plan's text and JSON forms.  Sticky error: the
 * first allocation failure is kept and reported by plan_strbuf_finish. */
#ifndef ETWCAP_PLAN_STRBUF_H
#define ETWCAP_PLAN_STRBUF_H

#include "log.h"

#include <stddef.h>

struct plan_strbuf {
  char *data;
  size_t len, cap;
  int failed;
};

void plan_strbuf_printf(struct plan_strbuf *b, const char *fmt, ...) LOG_PRINTF(2, 3);
void plan_strbuf_puts(struct plan_strbuf *b, const char *s);
/* Appends s as a JSON string literal, quotes included. */
void plan_strbuf_json_string(struct plan_strbuf *b, const char *s);
/* Returns 0 and hands the string over (*out, caller frees with etwcap_free),
 * or ETWCAP_E_NOMEM. */
int plan_strbuf_finish(struct plan_strbuf *b, char **out);

#endif
