/* See log_capture.h. */
#include "tests/fakes/log_capture.h"

#include <stdio.h>
#include <string.h>

void log_capture_sink(void *ctx, enum log_level level, const char *line)
{
  struct log_capture *c = ctx;
  int n = snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s %s\n", log_level_name(level),
                   line);
  if (n > 0 && c->len + (size_t)n < sizeof(c->text))
    c->len += (size_t)n;
}

int log_capture_has(const struct log_capture *c, const char *text)
{
  return strstr(c->text, text) != NULL;
}
