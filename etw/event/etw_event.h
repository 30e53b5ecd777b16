/* The decoded event view every consumer of events sees (docs/architecture.md,
 * "The seams"): the ETL reader fills it from file bytes, the real-time
 * consumer from an EVENT_RECORD.  Triggers, merge and replay read only this.
 *
 * Lifetime: an etw_event is a view, not a copy.  `raw`, `user_data` and the
 * `data` of each extended item point into the producer's current buffer and
 * stay valid only until the producer's next call (etl_reader_next,
 * etl_timeorder_next, ...) or until it is closed.  Copy what you keep.
 * Filling one never allocates. */
#ifndef ETWCAP_ETW_EVENT_H
#define ETWCAP_ETW_EVENT_H

#include "etw/event/guid.h"

#include <stdint.h>

/* The on-disk trace header kinds; the values are the HeaderType byte
 * (docs/etl.md §4), MESSAGE included (its marker is 0x90 in Flags). */
enum etw_header_type {
  ETW_HDR_SYSTEM32 = 0x01,
  ETW_HDR_SYSTEM64 = 0x02,
  ETW_HDR_COMPACT32 = 0x03,
  ETW_HDR_COMPACT64 = 0x04,
  ETW_HDR_FULL32 = 0x0A,
  ETW_HDR_INSTANCE32 = 0x0B,
  ETW_HDR_MESSAGE = 0x0F,
  ETW_HDR_PERFINFO32 = 0x10,
  ETW_HDR_PERFINFO64 = 0x11,
  ETW_HDR_EVENT_HEADER32 = 0x12,
  ETW_HDR_EVENT_HEADER64 = 0x13,
  ETW_HDR_FULL64 = 0x14,
  ETW_HDR_INSTANCE64 = 0x15
};

/* "SYSTEM64", "EVENT_HEADER32", "MESSAGE" ...; "UNKNOWN" otherwise. */
const char *etw_header_type_name(enum etw_header_type t);

/* EVENT_HEADER extended data item types (EVENT_HEADER_EXT_TYPE_* of
 * evntcons.h; 0x0E..0x12 are in the Windows SDK from 10.0.19041, see
 * docs/etl.md section 4.4). */
enum etw_ext_type {
  ETW_EXT_RELATED_ACTIVITYID = 1,
  ETW_EXT_SID = 2,
  ETW_EXT_TS_ID = 3,
  ETW_EXT_INSTANCE_INFO = 4,
  ETW_EXT_STACK_TRACE32 = 5,
  ETW_EXT_STACK_TRACE64 = 6,
  ETW_EXT_PEBS_INDEX = 7,
  ETW_EXT_PMC_COUNTERS = 8,
  ETW_EXT_PSM_KEY = 9,
  ETW_EXT_EVENT_KEY = 10,
  ETW_EXT_EVENT_SCHEMA_TL = 11,
  ETW_EXT_PROV_TRAITS = 12,
  ETW_EXT_PROCESS_START_KEY = 13,
  ETW_EXT_CONTROL_GUID = 14,
  ETW_EXT_QPC_DELTA = 15,
  ETW_EXT_CONTAINER_ID = 16,
  ETW_EXT_STACK_KEY32 = 17,
  ETW_EXT_STACK_KEY64 = 18,
  ETW_EXT_TYPE_COUNT = 19 /* EVENT_HEADER_EXT_TYPE_MAX */
};

/* "STACK_TRACE64", ...; NULL for types without a name. */
const char *etw_ext_type_name(unsigned type);

/* An extended data item: type and its data (without the 8-byte head). */
struct etw_ext_item {
  uint16_t type;
  uint16_t size;
  const uint8_t *data;
};

#define ETW_EVENT_MAX_EXT 16

/* Which optional fields the header carried. */
enum etw_event_has {
  ETW_HAS_PID_TID = 1 << 0,   /* SYSTEM, COMPACT, FULL, INSTANCE, EVENT_HEADER, MESSAGE 0x20 */
  ETW_HAS_TIMESTAMP = 1 << 1, /* all but MESSAGE without OptionFlags 0x8 */
  ETW_HAS_PROVIDER = 1 << 2,  /* a provider GUID (not kernel group events) */
  ETW_HAS_DESCRIPTOR = 1 << 3 /* id/version/channel/level/opcode/task/keyword (EVENT_HEADER) */
};

struct etw_event {
  enum etw_header_type header_type;
  uint8_t pointer_size; /* 4 or 8: the logging context's pointers (the 32/64 suffix) */
  uint8_t is_kernel;    /* SYSTEM, COMPACT, PERFINFO: no GUID, a kernel group */
  uint16_t has;         /* enum etw_event_has bits */
  uint16_t cpu;         /* from the buffer context */
  uint64_t timestamp;   /* raw, in the logfile header's clock units */

  /* Provider: a GUID, or for kernel events the hook id (group << 8 | opcode). */
  struct etw_guid provider;
  uint16_t hook_id;
  uint8_t group;

  /* Identity.  Classic (FULL/INSTANCE): opcode = Class.Type, level, version.
   * Kernel: opcode = low byte of the hook id, version = header Version field.
   * MESSAGE: id = MessageNumber. */
  uint16_t id;
  uint8_t version, channel, level, opcode;
  uint16_t task;
  uint64_t keyword;

  uint32_t pid, tid;
  uint16_t flags;          /* EVENT_HEADER Flags (EVENT_HEADER_FLAG_*) */
  uint16_t event_property; /* EVENT_HEADER EventProperty; MESSAGE OptionFlags */
  struct etw_guid activity_id;  /* EVENT_HEADER */
  uint64_t processor_time;      /* Kernel/UserTime pair or ProcessorTime */
  uint32_t instance_id, parent_instance_id; /* INSTANCE */
  struct etw_guid parent_guid;              /* INSTANCE */
  uint32_t sequence;                        /* MESSAGE OptionFlags 0x1 */
  uint32_t component_id;                    /* MESSAGE OptionFlags 0x4 */

  unsigned ext_count;
  struct etw_ext_item ext[ETW_EVENT_MAX_EXT];

  const uint8_t *user_data; /* payload, extended items and PMC counters excluded */
  uint32_t user_len;
  const uint8_t *raw;       /* the whole record, header included (Size bytes) */
  uint32_t raw_size;

  /* Where it came from (ETL reader only; 0 for real-time events). */
  uint32_t buffer_index;
  uint32_t offset_in_buffer;
};

/* A container ID as text: the GUID's 36 characters ("D" form, no braces)
 * and a NUL. */
#define ETW_CONTAINER_ID_SIZE 37

/* The event's CONTAINER_ID item (the container of the process that emitted
 * it, present with EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING; docs/etl.md
 * section 4.4): 1 with the ID in `out` as the item spells it (a binary GUID
 * in upper case), 0 when the event has none, -1 when the item is neither
 * 36 characters of a GUID nor a 16-byte binary GUID (out is then empty). */
int etw_event_container_id(const struct etw_event *ev, char out[ETW_CONTAINER_ID_SIZE]);

#endif
