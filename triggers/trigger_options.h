/* The trigger qualifiers as a plain struct (docs/perfview-collection.md
 * §3.4), so the engine can be built without a command line (tests, the
 * collect loop).  Strings and lists are borrowed.  trigger_options_init sets
 * PerfView's defaults; the command line's trigger qualifiers are bound to
 * its fields (src/cli/qualifier_values.h). */
#ifndef ETWCAP_TRIGGER_OPTIONS_H
#define ETWCAP_TRIGGER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

struct trigger_options {
  char *const *stop_on_perf_counter;
  size_t stop_on_perf_counter_count;
  char *const *start_on_perf_counter;
  size_t start_on_perf_counter_count;
  int64_t min_sec_for_trigger;          /* 3 */
  double decay_to_zero_hours;           /* 0 */
  int64_t trigger_poll_msec;            /* 1000 */
  char *const *stop_on_etw_event;
  size_t stop_on_etw_event_count;
  int64_t stop_on_gc_over_msec;         /* 0 = off, for all four */
  int64_t stop_on_gc_suspend_over_msec;
  int64_t stop_on_bgc_final_pause_over_msec;
  int64_t stop_on_request_over_msec;
  int stop_on_gen2_gc;
  const char *stop_on_gc_event;         /* NULL = off; "" = Gen2 */
  const char *stop_on_exception;        /* NULL = off; "" = any exception */
  const char *stop_on_event_log_message;
  char *const *stop_on_event_counter;
  size_t stop_on_event_counter_count;
  const char *stop_on_http_status;
  const char *process;                  /* /Process: pid or name */
  int64_t delay_after_trigger_sec;      /* 5 */
  int64_t collect_multiple;             /* 0 (= one collection) */
  const char *stop_command;
  int64_t max_collect_sec;              /* 0 = no limit */
};

void trigger_options_init(struct trigger_options *o);
/* Is any stop or start trigger (not counting MaxCollectSec) given? */
int trigger_options_any(const struct trigger_options *o);

#endif
