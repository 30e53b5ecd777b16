/* Event records for the demo collection (make_demo_trace): a payload
 * builder with explicit little-endian stores, the three header forms the
 * demo writes (EVENT_HEADER64, SYSTEM64, PERFINFO64; docs/etl.md §4.2), and
 * one session's records kept in memory, then written per CPU in time order
 * through etwcap's ETL writer.  Knows nothing of what the run depicts. */
#ifndef ETWCAP_DEMO_EVENTS_H
#define ETWCAP_DEMO_EVENTS_H

#include "etw/etl/etl_format.h"
#include "etw/event/guid.h"

#include <stddef.h>
#include <stdint.h>

/* A payload being built; stores past the end are dropped and remembered. */
struct demo_payload {
  uint8_t b[2048];
  size_t n;
  int overflow;
};

void dp_init(struct demo_payload *p);
void dp_u8(struct demo_payload *p, uint8_t v);
void dp_u16(struct demo_payload *p, uint16_t v);
void dp_u32(struct demo_payload *p, uint32_t v);
void dp_u64(struct demo_payload *p, uint64_t v);
void dp_f64(struct demo_payload *p, double v);
void dp_guid(struct demo_payload *p, const struct etw_guid *g);
/* win:UnicodeString: UTF-16LE of an ASCII string, NUL-terminated. */
void dp_utf16z(struct demo_payload *p, const char *s);
/* win:AnsiString: the bytes and a NUL. */
void dp_ansiz(struct demo_payload *p, const char *s);
/* A kernel SID field as the kernel logs it: TOKEN_USER (two pointers, the
 * first non-zero) then the SID S-1-5-<rid> (TraceEvent's SkipSID reads it). */
void dp_sid_nt_authority(struct demo_payload *p, uint32_t rid);

/* One session's records (the caller owns it; demo_session_free releases). */
struct demo_session;

int demo_session_new(struct demo_session **out);
void demo_session_free(struct demo_session *s);

/* EVENT_HEADER64 (0x50 bytes, HeaderType 0x13, Flags 0xC0) of a manifest
 * provider, followed by the payload. */
struct demo_manifest_event {
  const struct etw_guid *provider;
  uint16_t id;
  uint8_t version, level, opcode;
  uint16_t task;
  uint64_t keyword;
};

int demo_add_event(struct demo_session *s, uint16_t cpu, uint64_t ts, uint32_t pid, uint32_t tid,
                   const struct demo_manifest_event *e, const struct demo_payload *p);
/* SYSTEM64 (0x20 bytes): Version = the event version, HookId = group << 8 |
 * opcode, the thread and process, the timestamp. */
int demo_add_system(struct demo_session *s, uint16_t cpu, uint64_t ts, uint16_t hook,
                    uint16_t version, uint32_t pid, uint32_t tid, const struct demo_payload *p);
/* PERFINFO64 (0x10 bytes): no thread or process in the header. */
int demo_add_perfinfo(struct demo_session *s, uint16_t cpu, uint64_t ts, uint16_t hook,
                      uint16_t version, const struct demo_payload *p);

size_t demo_session_count(const struct demo_session *s);

/* Writes the records to `path`, each CPU's in time order (records of one CPU
 * with equal timestamps keep the order they were added in).  `header` is
 * the logfile header to write (buffer size and CPU count are the writer's).
 * Returns 0 or an ETWCAP_E_* code. */
int demo_session_write(struct demo_session *s, const char *path, const struct etl_logfile *header,
                       uint32_t header_pid, uint32_t header_tid);

#endif
