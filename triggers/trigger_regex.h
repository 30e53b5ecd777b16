/* Regular expressions for triggers, through PCRE2 (docs/building.md §3.1):
 * /StopOnException and FieldFilter '~' and /StopOnEventLogMessage patterns.
 * UTF-8 subjects, Unicode-aware classes (like .NET's Regex), a match limit
 * so a pathological pattern cannot stall the event stream, allocation
 * through etwcap's allocator.  An empty pattern matches everything. */
#ifndef ETWCAP_TRIGGER_REGEX_H
#define ETWCAP_TRIGGER_REGEX_H

#include <stddef.h>

struct trigger_regex {
  void *code;  /* pcre2_code_8 */
  void *match; /* pcre2_match_data_8 */
  void *mctx;  /* pcre2_match_context_8 */
  int empty;   /* the pattern was "" */
};

/* Compiles pattern.  On a syntax error returns ETWCAP_E_USAGE with PCRE2's
 * message in err and the 0-based byte offset of the error in *pos; NOMEM. */
int trigger_regex_compile(struct trigger_regex *r, const char *pattern, int caseless, char *err,
                          size_t cap, size_t *pos);
/* 1 when subject (UTF-8, len bytes) matches anywhere, 0 otherwise (a
 * match-limit overrun counts as no match). */
int trigger_regex_match(const struct trigger_regex *r, const char *subject, size_t len);
void trigger_regex_free(struct trigger_regex *r);

#endif
