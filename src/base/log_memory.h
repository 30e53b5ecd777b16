/* A log sink that keeps the lines in memory, timestamped like LogFile.txt,
 * so the log of a merge (or a whole collection) can go into the zip.  It
 * keeps at most LOG_MEMORY_MAX_BYTES: past that the oldest half is dropped
 * and a line says so, so a week-long capture cannot exhaust memory. */
#ifndef ETWCAP_LOG_MEMORY_H
#define ETWCAP_LOG_MEMORY_H

#include "src/base/log.h"

#include <stddef.h>

#define LOG_MEMORY_MAX_BYTES (8u * 1024u * 1024u)

struct log_memory {
  char *text;
  size_t len, cap;
  int dropped; /* lines were dropped to stay within the limit */
};

/* The sink function: pass a struct log_memory as ctx to log_add_sink. */
void log_memory_sink(void *ctx, enum log_level level, const char *line);
void log_memory_release(struct log_memory *m);

#endif
