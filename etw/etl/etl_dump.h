/* One event as one line of text, in the column format of the golden
 * listings (samples/golden/README.md): buffer, CPU, raw timestamp, UTC,
 * header type, provider, identity, user-data size, pid/tid/flags/ext, CRC-32
 * of the user data, tab-separated.  Pure formatting; the CLI writes it. */
#ifndef ETWCAP_ETL_DUMP_H
#define ETWCAP_ETL_DUMP_H

#include "etw/etl/etl_clock.h"
#include "etw/event/etw_event.h"

#include <stddef.h>

/* Enough for any line etl_dump_format_event produces. */
#define ETL_DUMP_LINE_MAX 1024

/* Writes the line (without a newline) into out; returns its length. */
size_t etl_dump_format_event(const struct etw_event *ev, const struct etl_clock *clock,
                             char *out, size_t cap);

/* The provider column alone: "kernel:Process", a GUID, "component:N" or "-". */
char *etl_dump_provider(const struct etw_event *ev, char *out, size_t cap);

struct etl_reader;

/* Receives one line (no newline).  Returns 0 or a negative ETWCAP_E_*. */
typedef int (*etl_dump_write_fn)(void *ctx, const char *line, size_t len);

/* Writes a "#   logger=..." summary line of the logfile header, then one line
 * per event of r, in file order or (time_order) in global time order.
 * Returns 0 or the first error (the reader's message says where). */
int etl_dump_reader(struct etl_reader *r, int time_order, etl_dump_write_fn write, void *ctx);

#endif
