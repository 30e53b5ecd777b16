/* etwcap's log as a test reads it: a log sink (log.h) that keeps each line
 * as "LEVEL text\n", so a test can ask what the product said. */
#ifndef ETWCAP_LOG_CAPTURE_H
#define ETWCAP_LOG_CAPTURE_H

#include "src/base/log.h"

#include <stddef.h>

struct log_capture {
  char text[262144]; /* what did not fit is dropped */
  size_t len;
};

/* A log_add_sink callback; ctx is the struct log_capture. */
void log_capture_sink(void *ctx, enum log_level level, const char *line);
/* 1 when some line holds `text`. */
int log_capture_has(const struct log_capture *c, const char *text);

#endif
