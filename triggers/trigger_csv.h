/* Performance counter samples from a counter log in typeperf's CSV format
 * (typeperf -f CSV, relog -f CSV, PerfMon "save as CSV"): a header row
 * "(PDH-CSV 4.0) (Time Zone)(BIAS)","\\MACHINE\Object(Instance)\Counter",...
 * then one row per sample, "MM/DD/YYYY HH:MM:SS.mmm" local time followed by
 * the values (" " when the instance did not exist).  BIAS is minutes, UTC =
 * local + BIAS, as in the header PDH writes; without it the times are taken
 * as UTC.  ISO 8601 times ("2024-04-15T10:00:01.123Z") are accepted too.
 * It serves the engine's counter seam: a poll at time t sees the last
 * sample at or before t.  Memory: the whole table, a few times the file's
 * size at most (8 bytes a value; the names as long as the header); a header
 * of more than a million columns is refused. */
#ifndef ETWCAP_TRIGGER_CSV_H
#define ETWCAP_TRIGGER_CSV_H

#include "triggers/trigger_engine.h"

#include <stddef.h>
#include <stdint.h>

struct trigger_csv;

/* Parses a whole file in memory (`name` for messages).  ETWCAP_E_FORMAT
 * with a message naming the line; NOMEM. */
int trigger_csv_parse(struct trigger_csv **out, const char *text, size_t len, const char *name,
                      char *err, size_t cap);
/* Reads and parses a file (UTF-8 path). */
int trigger_csv_load(struct trigger_csv **out, const char *path, char *err, size_t cap);
void trigger_csv_free(struct trigger_csv *c);

/* The engine's counter source over this table (valid while c lives). */
struct trigger_counter_source trigger_csv_source(struct trigger_csv *c);

size_t trigger_csv_rows(const struct trigger_csv *c);
size_t trigger_csv_columns(const struct trigger_csv *c);
/* First and last sample times (FILETIME); 0 when there are no rows. */
int64_t trigger_csv_first_time(const struct trigger_csv *c);
int64_t trigger_csv_last_time(const struct trigger_csv *c);

/* "MM/DD/YYYY HH:MM:SS[.fff]" or ISO 8601 to FILETIME (bias minutes
 * added).  0 or -1. */
int trigger_csv_parse_time(const char *text, int32_t bias_minutes, int64_t *out);

#endif
