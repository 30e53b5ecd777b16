/* Where parsed qualifiers are stored, git parse-options style: every row of
 * a qualifier table (options.h) names its field here, and cli_parse writes
 * each qualifier given straight into it.  Code after the parser reads typed
 * fields; nothing looks a qualifier up by its name.
 *
 * One struct serves every command: a qualifier name has one type and one
 * meaning in every command that takes it (options.h), so it has one field.
 * The collection qualifiers land in the structs the engines take
 * (plan_options, trigger_options), whose init functions hold PerfView's
 * defaults; qualifier_values_init runs them, so a default is written once,
 * and help prints it from the same field. */
#ifndef ETWCAP_QUALIFIER_VALUES_H
#define ETWCAP_QUALIFIER_VALUES_H

#include "etw/plan/plan.h"
#include "triggers/trigger_options.h"

#include <stddef.h>
#include <stdint.h>

struct qualifier_values {
  struct plan_options plan;        /* output, events, rundown, merge and zip */
  struct trigger_options triggers; /* stop and start triggers, MaxCollectSec */
  const char *log_file;            /* every command */
  int low_priority;                /* merge, collect, stop */
  int no_ngen_pdbs;                /* merge, collect, stop */
  int report;                      /* collect, replay */
  int json;                        /* plan */
  const char *target_os;           /* plan */
  int time_order;                  /* dump */
  int image_ids_only;              /* merge */
  char *const *path_map;           /* merge */
  size_t path_map_count;
  const char *counter_log;         /* replay */
  const char *out;                 /* replay, report, convert */
  const char *format;              /* convert */
  int64_t window_sec;              /* replay */
  int snapshot_on_trigger;         /* collect */
  int64_t snapshot_cooldown_sec;   /* collect; -1: DelayAfterTriggerSec */
  int64_t segment_sec, segment_mb; /* collect: rotation */
  int64_t keep_segments, keep_days, max_disk_mb; /* collect: retention */
  int64_t rundown_period_sec;      /* collect: rundown into the capture */
  int event_log;                   /* collect: entries in the Application log */
  char *const *monitor_perf_counter; /* collect, run: counters logged into the trace */
  size_t monitor_perf_counter_count;
};

/* The values before any qualifier is parsed: the engines' defaults. */
void qualifier_values_init(struct qualifier_values *v);

/* Binding a table row to its field.  Each macro gives a row's type and
 * the offsets of its field (and of a list's count); _Generic without a
 * default makes a field whose C type does not match the qualifier's type a
 * compile error. */
#define QV_OFFSET(member, ctype)                                                                \
  (offsetof(struct qualifier_values, member) +                                                 \
   _Generic(&((struct qualifier_values *)0)->member, ctype *: 0))

#define BIND_BOOL(m) OPT_BOOL, QV_OFFSET(m, int), 0
#define BIND_TRISTATE(m) OPT_TRISTATE, QV_OFFSET(m, int), 0
#define BIND_INT(m) OPT_INT, QV_OFFSET(m, int64_t), 0
#define BIND_FLOAT(m) OPT_FLOAT, QV_OFFSET(m, double), 0
#define BIND_STRING(m) OPT_STRING, QV_OFFSET(m, const char *), 0
#define BIND_OPTIONAL_STRING(m) OPT_OPTIONAL_STRING, QV_OFFSET(m, const char *), 0
#define BIND_LIST(m, count) OPT_LIST, QV_OFFSET(m, char *const *), QV_OFFSET(count, size_t)
/* A qualifier accepted for PerfView's sake that sets nothing (its help says
 * why), or one refused (its row's `rejected` says why). */
#define UNBOUND(type) type, OPT_NO_FIELD, 0

#endif
