/* See trigger_regex.h. */
#include "triggers/trigger_regex.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <pcre2.h>
#include <stdio.h>
#include <string.h>

/* Enough backtracking for any sane message filter, small enough that a
 * catastrophic pattern costs milliseconds, not minutes, per event. */
#define TRIGGER_REGEX_MATCH_LIMIT 1000000u

static void *re_malloc(PCRE2_SIZE size, void *data)
{
  (void)data;
  return etwcap_malloc(size);
}

static void re_free(void *p, void *data)
{
  (void)data;
  etwcap_free(p);
}

int trigger_regex_compile(struct trigger_regex *r, const char *pattern, int caseless, char *err,
                          size_t cap, size_t *pos)
{
  pcre2_general_context *gctx;
  pcre2_compile_context *cctx;
  pcre2_code *code;
  int errcode = 0;
  PCRE2_SIZE erroff = 0;
  uint32_t options = PCRE2_UTF | PCRE2_UCP;
  memset(r, 0, sizeof(*r));
  if (pos)
    *pos = 0;
  if (!pattern[0]) {
    r->empty = 1;
    return 0;
  }
#ifdef PCRE2_MATCH_INVALID_UTF
  options |= PCRE2_MATCH_INVALID_UTF;
#endif
  if (caseless)
    options |= PCRE2_CASELESS;
  gctx = pcre2_general_context_create(re_malloc, re_free, NULL);
  if (!gctx)
    return ETWCAP_E_NOMEM;
  cctx = pcre2_compile_context_create(gctx);
  if (!cctx) {
    pcre2_general_context_free(gctx);
    return ETWCAP_E_NOMEM;
  }
  code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &errcode, &erroff,
                       cctx);
  pcre2_compile_context_free(cctx);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_general_context_free(gctx);
    if (errcode == PCRE2_ERROR_NOMEMORY)
      return ETWCAP_E_NOMEM;
    if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
      snprintf((char *)msg, sizeof(msg), "error %d", errcode);
    if (pos)
      *pos = erroff;
    snprintf(err, cap, "%s", (const char *)msg);
    return ETWCAP_E_USAGE;
  }
  r->code = code;
  r->match = pcre2_match_data_create_from_pattern(code, gctx);
  r->mctx = pcre2_match_context_create(gctx);
  pcre2_general_context_free(gctx);
  if (!r->match || !r->mctx) {
    trigger_regex_free(r);
    return ETWCAP_E_NOMEM;
  }
  pcre2_set_match_limit(r->mctx, TRIGGER_REGEX_MATCH_LIMIT);
  return 0;
}

int trigger_regex_match(const struct trigger_regex *r, const char *subject, size_t len)
{
  int rc;
  if (r->empty)
    return 1;
  if (!r->code)
    return 0;
  rc = pcre2_match(r->code, (PCRE2_SPTR)subject, len, 0, 0, r->match, r->mctx);
  return rc >= 0;
}

void trigger_regex_free(struct trigger_regex *r)
{
  if (r->match)
    pcre2_match_data_free(r->match);
  if (r->mctx)
    pcre2_match_context_free(r->mctx);
  if (r->code)
    pcre2_code_free(r->code);
  memset(r, 0, sizeof(*r));
}
