/* Decoding one event record inside a buffer into a struct etw_event: every
 * header kind of docs/etl.md §4 (SYSTEM, COMPACT, PERFINFO with PEBS/PMC
 * extensions, FULL, INSTANCE, EVENT_HEADER with extended items, MESSAGE).
 * Pure: works on the bytes of one buffer, knows nothing about files. */
#ifndef ETWCAP_ETL_DECODE_H
#define ETWCAP_ETL_DECODE_H

#include "etw/event/etw_event.h"

#include <stdint.h>

enum etl_decode_result {
  ETL_DECODE_EVENT = 1, /* *ev filled, *next is where the next record starts */
  ETL_DECODE_END = 0    /* no more events in this buffer (end marker or filled end) */
};

/* Decodes the record at `pos` of a buffer whose events end at `end` (the
 * filled length; offsets count from the buffer start, header included).
 * On a malformed record returns ETWCAP_E_CORRUPT and points *why at a short
 * static description.  ev->cpu, buffer_index are left to the caller. */
int etl_decode_event(const uint8_t *buf, uint32_t end, uint32_t pos, struct etw_event *ev,
                     uint32_t *next, const char **why);

/* Just the raw timestamp of the record at pos, for ordering: returns
 * ETL_PEEK_TIMESTAMP with *ts set, ETL_DECODE_END at the end of the events,
 * or ETL_PEEK_NO_TIMESTAMP when the record has none or is malformed
 * (etl_decode_event then says what is wrong).  Never reads outside
 * [pos, end). */
#define ETL_PEEK_TIMESTAMP 1
#define ETL_PEEK_NO_TIMESTAMP 2
int etl_decode_peek_timestamp(const uint8_t *buf, uint32_t end, uint32_t pos, uint64_t *ts);

#endif
