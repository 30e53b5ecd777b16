/* The trigger engine: every trigger of a command line as one state machine
 * each, fed with events, counter polls, event-log messages and the passage
 * of time, recording every fire.  It owns the collection cycle PerfView runs
 * (docs/perfview-collection.md §6.4): wait for a start trigger (if any),
 * collect until a stop trigger or MaxCollectSec, keep collecting
 * DelayAfterTriggerSec more, stop; with CollectMultiple:N, N such cycles.
 *
 * Portable and pure: time is always passed in (a UTC FILETIME; the caller's
 * clock is real in a capture, the collection_env clock that tests make
 * virtual, and each event's own time in replay), counters are read through
 * a seam, nothing sleeps,
 * nothing prints (log_* only).  Not thread-safe: one thread feeds it.
 *
 * Lifetime: trigger_engine_create copies what it needs from the options;
 * the engine owns its triggers and fire records until trigger_engine_free. */
#ifndef ETWCAP_TRIGGER_ENGINE_H
#define ETWCAP_TRIGGER_ENGINE_H

#include "etw/event/etw_event.h"
#include "triggers/trigger_etw.h"
#include "triggers/trigger_evcounter.h"
#include "triggers/trigger_eventlog.h"
#include "triggers/trigger_options.h"

#include <stddef.h>
#include <stdint.h>

#define TRIGGER_TICKS_PER_SEC INT64_C(10000000)

enum trigger_phase {
  TRIGGER_WAITING_START, /* start triggers armed, nothing collected yet */
  TRIGGER_COLLECTING,    /* stop triggers armed */
  TRIGGER_STOPPING,      /* a stop fired: DelayAfterTriggerSec running */
  TRIGGER_DONE           /* the last collection has stopped */
};

enum trigger_role { TRIGGER_ROLE_START, TRIGGER_ROLE_STOP, TRIGGER_ROLE_LIMIT };

struct trigger_fire {
  const char *trigger;   /* the qualifier: "StopOnGen2GC", "MaxCollectSec" ... (static) */
  char spec[256];        /* its value as given ("" for switches without one) */
  enum trigger_role role;
  unsigned collection;   /* 1-based (CollectMultiple) */
  int64_t filetime;      /* when it fired: the event's time, or the poll/deadline instant */
  uint64_t raw;          /* the event's raw timestamp, when has_raw */
  int has_raw;
  uint32_t pid, tid;
  int has_pid;
  double value;          /* what fired it: duration ms, counter value, ... */
  char detail[TRIGGER_DETAIL_MAX];
  int64_t stop_at;       /* stop and limit fires: when the collection stops */
  int64_t collection_start; /* when the collection it ends began */
};

/* The performance-counter seam (PDH on Windows, a CSV in replay, scripted
 * in tests). */
#define TRIGGER_COUNTER_NO_SAMPLE 2
struct trigger_counter_source {
  void *ctx;
  /* Checks the counter exists (category and counter; the instance may come
   * later) and returns a handle.  0, or an ETWCAP_E_* with a message. */
  int (*open)(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
              size_t cap);
  /* The counter's value at `now`: 1 with *value, 0 when the instance does
   * not exist now (PerfView then uses 0), TRIGGER_COUNTER_NO_SAMPLE when no
   * sample is available yet (the poll is skipped), or < 0 on error. */
  int (*read)(void *ctx, void *handle, int64_t now, double *value);
  void (*close)(void *ctx, void *handle);
};

typedef void (*trigger_fire_fn)(void *ctx, const struct trigger_fire *fire);

struct trigger_engine;

/* Parses every trigger spec.  ETWCAP_E_USAGE with a message naming the
 * qualifier, the spec and the position; ETWCAP_E_NOMEM. */
int trigger_engine_create(struct trigger_engine **out, const struct trigger_options *o,
                          char *err, size_t cap);
void trigger_engine_free(struct trigger_engine *e);

/* Needed before start when there are perf-counter triggers. */
void trigger_engine_set_counter_source(struct trigger_engine *e,
                                       const struct trigger_counter_source *src);
void trigger_engine_set_fire_callback(struct trigger_engine *e, trigger_fire_fn fn, void *ctx);

/* What the engine needs fed. */
int trigger_engine_has_counters(const struct trigger_engine *e);
int trigger_engine_has_event_log(const struct trigger_engine *e);

/* Begins collection 1 at `now` (opening counters).  0, or an error with a
 * message (a counter that does not exist). */
int trigger_engine_start(struct trigger_engine *e, int64_t now, char *err, size_t cap);
/* Runs every timer due at or before `now`: counter polls, MaxCollectSec,
 * the end of DelayAfterTriggerSec.  0 or < 0 (a counter read failed). */
int trigger_engine_advance(struct trigger_engine *e, int64_t now);
/* One event at its FILETIME (advance(ft) first).  0 or < 0 (NOMEM). */
int trigger_engine_event(struct trigger_engine *e, const struct etw_event *ev, int64_t ft);
/* One event-log message (advance(m->ft) first). */
int trigger_engine_message(struct trigger_engine *e, const struct trigger_message *m);

/* The next instant advance has work for (INT64_MAX when none): the caller
 * sleeps until then or until the next event, whichever comes first. */
int64_t trigger_engine_next_deadline(const struct trigger_engine *e);
enum trigger_phase trigger_engine_phase(const struct trigger_engine *e);
unsigned trigger_engine_collection(const struct trigger_engine *e);
/* When the current collection started (FILETIME; 0 while waiting). */
int64_t trigger_engine_collection_start(const struct trigger_engine *e);

/* Triggers on EventSources without a built-in table name their events and
 * fields from the manifests the trace carries (manifests.h).  A
 * replay reads the trace's manifests first (they are often at its end,
 * from the rundown) through trigger_engine_preload; a live session gets
 * them when it enables the provider, before the events. */
int trigger_engine_wants_manifests(const struct trigger_engine *e);
/* Takes the manifest chunk of a ManifestData event (others are ignored). */
int trigger_engine_preload(struct trigger_engine *e, const struct etw_event *ev);

size_t trigger_engine_fire_count(const struct trigger_engine *e);
const struct trigger_fire *trigger_engine_fire_at(const struct trigger_engine *e, size_t i);

/* After a replay: triggers that could not work on what they were given
 * (an event name nothing could resolve, a filter field the events lack, a
 * process name never seen).
 * Writes one line per problem into buf; returns how many. */
size_t trigger_engine_problems(const struct trigger_engine *e, char *buf, size_t cap);

/* One trigger as the engine built it, for describing it (trigger_describe.h):
 * its qualifier and spec as given, and the parsed spec of its kind, with
 * the global /Process and /DecayToZeroHours already applied where they
 * apply.  Pointers into the engine, valid until trigger_engine_free.
 * MaxCollectSec is no trigger here: it is the options' limit. */
enum trigger_kind {
  TRIGGER_KIND_COUNTER,      /* counter */
  TRIGGER_KIND_ETW,          /* etw: spec, predicate, exception regex (= spec), HTTP codes */
  TRIGGER_KIND_EVENTCOUNTER, /* evcounter (filtered by the options' /Process) */
  TRIGGER_KIND_EVENTLOG      /* eventlog */
};

struct trigger_view {
  enum trigger_kind kind;
  enum trigger_role role;
  const char *qualifier;     /* "StopOnPerfCounter" ... (static) */
  const char *spec;          /* the value as given ("" for switches) */
  const struct trigger_counter_spec *counter;
  const struct trigger_etw *etw;
  const struct trigger_evcounter_spec *evcounter;
  const struct trigger_eventlog_spec *eventlog;
};

size_t trigger_engine_trigger_count(const struct trigger_engine *e);
/* Fills *out for trigger i (in the order the engine built them); 0, or
 * ETWCAP_E_RANGE past the end. */
int trigger_engine_trigger_at(const struct trigger_engine *e, size_t i, struct trigger_view *out);

/* What the real-time trigger session must enable for these triggers, one
 * call per need (trigger_plan.h merges them): a provider GUID and name,
 * whether it is the kernel (keywords are then KernelEvents flags), the
 * MatchAnyKeyword, the level, EventSource arguments ("" or
 * "EventCounterIntervalSec=1") and the qualifier that needs it. */
typedef void (*trigger_need_fn)(void *ctx, const struct etw_guid *guid, const char *name,
                                int kernel, uint64_t keywords, uint8_t level, const char *args,
                                const char *qualifier);
void trigger_engine_needs(const struct trigger_engine *e, trigger_need_fn fn, void *ctx);

#endif
