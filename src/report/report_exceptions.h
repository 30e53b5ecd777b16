/* .NET exceptions for `etwcap report`: the CLR's Exception/Start
 * (ExceptionThrown_V1) events grouped by exception type and process, with
 * their count and first and last times.  At most REPORT_MAX_EXCEPTION_KINDS
 * groups are told apart; events of further groups are counted in
 * `dropped`. */
#ifndef ETWCAP_REPORT_EXCEPTIONS_H
#define ETWCAP_REPORT_EXCEPTIONS_H

#include "etw/event/etw_event.h"
#include "src/report/report_idmap.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_EXCEPTION_KINDS 4096

struct report_exception {
  char *type; /* whole: two types that share a prefix are two kinds */
  uint32_t pid;
  uint64_t count;
  int64_t first_filetime, last_filetime;
};

struct report_exceptions {
  struct report_exception *items;
  size_t count, cap;
  uint64_t total, dropped;
  struct report_idmap by_hash; /* hash of (type, pid) -> index */
  char *scratch;               /* the event's type, decoded */
  size_t scratch_cap;
};

int report_exceptions_init(struct report_exceptions *x);
void report_exceptions_release(struct report_exceptions *x);
/* 1 when ev was an exception (counted), 0 when it was not one, or
 * ETWCAP_E_NOMEM. */
int report_exceptions_event(struct report_exceptions *x, const struct etw_event *ev,
                            int64_t filetime);
/* Sorts by count (descending), then type. */
void report_exceptions_finish(struct report_exceptions *x);

#endif
