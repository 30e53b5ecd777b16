/* @file expansion (format in response_file.h). */
#include "src/cli/response_file.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

int token_list_push(struct token_list *out, const char *s, size_t n)
{
  if (out->count >= out->cap) {
    /* Doubling: a megabyte of one-letter tokens stays linear. */
    size_t cap = out->cap ? 2 * out->cap : 16;
    char **grown = etwcap_reallocarray(out->items, cap, sizeof(char *));
    if (!grown)
      return ETWCAP_E_NOMEM;
    out->items = grown;
    out->cap = cap;
  }
  out->items[out->count] = etwcap_strndup(s, n);
  if (!out->items[out->count])
    return ETWCAP_E_NOMEM;
  out->count++;
  return 0;
}

static int is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* response_split, telling on which line a quote was left open: the line
 * of the opening quote, not the last line the open quote swallowed. */
static int split(struct token_list *out, const char *text, size_t len, size_t *line)
{
  size_t i = 0, at = 1, opened = 1;
  int line_start = 1, rc;
  char *buf = etwcap_malloc(len + 1);
  *line = 1;
  if (!buf)
    return ETWCAP_E_NOMEM;
  while (i < len) {
    size_t n = 0;
    int quoted = 0, have_token = 0;
    while (i < len && is_space(text[i])) {
      if (text[i] == '\n') {
        line_start = 1;
        at++;
      }
      i++;
    }
    if (i == len)
      break;
    if (line_start && text[i] == '#') {
      while (i < len && text[i] != '\n')
        i++;
      continue;
    }
    line_start = 0;
    while (i < len && (quoted || !is_space(text[i]))) {
      if (text[i] == '\n')
        at++;
      if (text[i] == '"') {
        if (!quoted)
          opened = at;
        quoted = !quoted;
        have_token = 1; /* "" is an empty token */
      } else {
        buf[n++] = text[i];
      }
      i++;
    }
    if (quoted) {
      *line = opened;
      etwcap_free(buf);
      return ETWCAP_E_USAGE;
    }
    if (n || have_token) {
      rc = token_list_push(out, buf, n);
      if (rc) {
        etwcap_free(buf);
        return rc;
      }
    }
  }
  etwcap_free(buf);
  return 0;
}

int response_split(struct token_list *out, const char *text, size_t len)
{
  size_t line;
  return split(out, text, len, &line);
}

static int read_whole(const char *path, char **text, size_t *len, char *why, size_t why_size)
{
  char *buf;
  size_t n;
  int rc = file_read_small(path, RESPONSE_MAX_BYTES, &buf, &n);
  if (rc == ETWCAP_E_RANGE) {
    snprintf(why, why_size, "response file '%s' is larger than %d bytes", path,
             RESPONSE_MAX_BYTES);
    return ETWCAP_E_USAGE;
  }
  if (rc) {
    snprintf(why, why_size, "cannot open response file '%s': %s", path, etwcap_strerror(rc));
    return rc;
  }
  if (memchr(buf, '\0', n)) {
    snprintf(why, why_size, "response file '%s' holds a NUL byte: it must be text (UTF-8; "
             "a UTF-16 file must be saved as UTF-8)", path);
    etwcap_free(buf);
    return ETWCAP_E_USAGE;
  }
  /* Skip a UTF-8 byte-order mark, which Notepad writes. */
  if (n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) {
    memmove(buf, buf + 3, n - 3);
    n -= 3;
  }
  *text = buf;
  *len = n;
  return 0;
}

static int expand(struct token_list *out, size_t argc, char **argv, int depth, char *why,
                  size_t why_size)
{
  size_t i;
  int rc;
  for (i = 0; i < argc; i++) {
    struct token_list inner = { NULL, 0 };
    char *text = NULL;
    size_t len = 0;
    if (argv[i][0] != '@' || !argv[i][1]) {
      rc = token_list_push(out, argv[i], strlen(argv[i]));
      if (rc)
        return rc;
      continue;
    }
    if (depth >= RESPONSE_MAX_DEPTH) {
      snprintf(why, why_size, "response file '%s' is nested more than %d deep", argv[i] + 1,
               RESPONSE_MAX_DEPTH);
      return ETWCAP_E_USAGE;
    }
    rc = read_whole(argv[i] + 1, &text, &len, why, why_size);
    if (rc)
      return rc;
    {
      size_t line;
      rc = split(&inner, text, len, &line);
      if (rc == ETWCAP_E_USAGE)
        snprintf(why, why_size, "response file '%s', line %lu: a \"quoted\" argument is not "
                 "closed", argv[i] + 1, (unsigned long)line);
    }
    etwcap_free(text);
    if (!rc)
      rc = expand(out, inner.count, inner.items, depth + 1, why, why_size);
    token_list_release(&inner);
    if (rc)
      return rc;
  }
  return 0;
}

int response_expand(struct token_list *out, int argc, char **argv, char *why, size_t why_size)
{
  int rc;
  out->items = NULL;
  out->count = 0;
  out->cap = 0;
  why[0] = '\0';
  rc = expand(out, argc > 0 ? (size_t)argc : 0, argv, 0, why, why_size);
  if (rc) {
    token_list_release(out);
    if (!why[0])
      snprintf(why, why_size, "%s", etwcap_strerror(rc));
  }
  return rc;
}

void token_list_release(struct token_list *list)
{
  size_t i;
  for (i = 0; i < list->count; i++)
    etwcap_free(list->items[i]);
  etwcap_free(list->items);
  list->items = NULL;
  list->count = 0;
  list->cap = 0;
}
