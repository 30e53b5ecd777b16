/* A real-time EVENT_RECORD as an etw_event, without TDH: the fields of the
 * record as plain values (consumer_win32.c unpacks the Windows struct into
 * them; tests fill them by hand), and the conversion of its raw timestamp
 * to UTC from a clock reference taken when the trace was opened.  Pure and
 * portable, so the conversion is tested on any OS.
 *
 * Lifetime: the etw_event points into the fields' buffers (user data,
 * extended items), which belong to the caller (ETW's, during the callback). */
#ifndef ETWCAP_ETW_EVENT_RECORD_H
#define ETWCAP_ETW_EVENT_RECORD_H

#include "etw/event/etw_event.h"

#include <stdint.h>

/* EVENT_HEADER Flags (evntcons.h). */
#define ETW_RECORD_FLAG_EXTENDED_INFO 0x0001
#define ETW_RECORD_FLAG_PRIVATE_SESSION 0x0002
#define ETW_RECORD_FLAG_STRING_ONLY 0x0004
#define ETW_RECORD_FLAG_TRACE_MESSAGE 0x0008
#define ETW_RECORD_FLAG_NO_CPUTIME 0x0010
#define ETW_RECORD_FLAG_32_BIT_HEADER 0x0020
#define ETW_RECORD_FLAG_64_BIT_HEADER 0x0040
#define ETW_RECORD_FLAG_CLASSIC_HEADER 0x0100
#define ETW_RECORD_FLAG_PROCESSOR_INDEX 0x0200

struct etw_record_ext {
  uint16_t type;
  uint16_t size;
  const void *data;
};

/* EVENT_RECORD, field by field, in our types. */
struct etw_record_fields {
  uint16_t flags;          /* EventHeader.Flags */
  uint16_t event_property; /* EventHeader.EventProperty */
  uint32_t tid, pid;
  int64_t timestamp;       /* raw (PROCESS_TRACE_MODE_RAW_TIMESTAMP) */
  struct etw_guid provider;
  uint16_t id;
  uint8_t version, channel, level, opcode;
  uint16_t task;
  uint64_t keyword;
  uint32_t kernel_time, user_time; /* or processor_time when NO_CPUTIME is clear */
  struct etw_guid activity_id;
  uint16_t cpu;            /* BufferContext processor (ProcessorIndex when flagged) */
  uint16_t ext_count;
  const struct etw_record_ext *ext;
  uint16_t user_len;
  const void *user_data;
};

/* Fills ev from f.  Extended items beyond ETW_EVENT_MAX_EXT are dropped.
 * Classic (CLASSIC_HEADER) kernel events keep their task GUID as provider:
 * the trigger tables know kernel groups by those GUIDs too. */
void etw_event_from_record(struct etw_event *ev, const struct etw_record_fields *f);

/* Raw timestamps to FILETIME: a pair of readings of the session's clock
 * and the system time taken together, and the clock's frequency. */
struct etw_record_clock {
  int64_t ref_filetime;
  int64_t ref_raw;
  double scale; /* 100-ns units per raw tick (1e7 / frequency); 0: raw is a FILETIME */
};

void etw_record_clock_init(struct etw_record_clock *c, int64_t ref_filetime, int64_t ref_raw,
                           uint64_t frequency);
int64_t etw_record_filetime(const struct etw_record_clock *c, int64_t raw);

#endif
