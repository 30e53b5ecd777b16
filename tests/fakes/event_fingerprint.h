/* What `etwcap dump` shows of an event except where it sits (columns 2, 3
 * and 5-10 of the golden format), as a comparable record: tests that move
 * events (the writer's round trip, the merge) compare these. */
#ifndef ETWCAP_EVENT_FINGERPRINT_H
#define ETWCAP_EVENT_FINGERPRINT_H

#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

struct event_fingerprint {
  uint16_t cpu;
  uint64_t timestamp;
  int header_type;
  struct etw_guid provider;
  uint16_t hook_id, id, task, flags;
  uint8_t version, opcode, level;
  uint64_t keyword;
  uint32_t pid, tid, user_len, crc;
  unsigned ext_count;
  uint32_t order; /* position in the stream it was read from; not compared */
};

struct fingerprint_list {
  struct event_fingerprint *items;
  size_t count, cap;
};

void fingerprint_add(struct fingerprint_list *l, const struct etw_event *ev);
/* 0 when equal, ignoring `order`. */
int fingerprint_compare(const struct event_fingerprint *a, const struct event_fingerprint *b);
/* Sorts by everything (a multiset order) or by CPU then order (per-CPU sequences). */
void fingerprint_sort_all(struct fingerprint_list *l);
void fingerprint_sort_by_cpu(struct fingerprint_list *l);
void fingerprint_release(struct fingerprint_list *l);

#endif
