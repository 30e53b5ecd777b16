/* `@file` response files: the arguments of a long command line kept in a
 * file.  Tokens are separated by white space; "double quotes" keep spaces
 * (no escapes, so Windows paths stay as typed); a line whose first non-blank
 * character is '#' is a comment.  A response file may name another, up to
 * RESPONSE_MAX_DEPTH deep.  An unclosed quote or a NUL byte (not text) is a
 * usage error (exit 2), never a silently different command line. */
#ifndef ETWCAP_RESPONSE_FILE_H
#define ETWCAP_RESPONSE_FILE_H

#include <stddef.h>

#define RESPONSE_MAX_DEPTH 4
#define RESPONSE_MAX_BYTES (1024 * 1024)

struct token_list {
  char **items;
  size_t count;
  size_t cap; /* room in items (grown by doubling) */
};

/* Copies argv into `out`, replacing each "@path" by the tokens of that file.
 * On error fills `why` with a message naming the file (and line). */
int response_expand(struct token_list *out, int argc, char **argv, char *why, size_t why_size);
/* Splits text into tokens, appending to `out` (exposed for the tests):
 * ETWCAP_E_USAGE when a quote is not closed. */
int response_split(struct token_list *out, const char *text, size_t len);
/* Appends a copy of the n bytes at s as one token. */
int token_list_push(struct token_list *list, const char *s, size_t n);
void token_list_release(struct token_list *list);

#endif
