/* Progress of long work (merge, zip).  On a console: one line rewritten in
 * place with percent, MB/s and time left.  Unattended (no console, e.g. Task
 * Scheduler): a log line every PROGRESS_LOG_SECONDS, which lands in
 * LogFile.txt. */
#ifndef ETWCAP_PROGRESS_H
#define ETWCAP_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#define PROGRESS_LOG_SECONDS 10

struct progress {
  const char *what;      /* "merging and compressing", "merging" */
  FILE *console;         /* NULL: log lines instead */
  uint64_t start_ns, last_ns;
  int printed;
};

void progress_start(struct progress *p, const char *what, FILE *console);
/* Reports done of total bytes (total 0 = unknown). */
void progress_update(struct progress *p, uint64_t done, uint64_t total);
/* Ends the line on a console. */
void progress_end(struct progress *p);

#endif
