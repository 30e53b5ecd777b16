/* The ETW event trigger: PerfView's ETWEventTrigger (docs/perfview-collection.md
 * §6.2) over etw_events, and the built-in CLR triggers expressed through it
 * with a predicate (Gen2, not-background, SuspendForGCPrep, exception regex,
 * HTTP status).
 *
 * Single-event form (TriggerMSec 0): the first event that matches the
 * provider, name, field filters and predicate fires.  Start/stop form: a
 * start that passes filters and predicate is remembered under the key
 * (provider, task, context id); the matching stop fires when stop - start
 * is more than the (decayed) TriggerMSec.  The context id is PerfView's:
 * StartStopID's field, the thread, the activity id, else an activity-path
 * activity id, else the first payload field, else activity id or thread.
 * Events are also held to the provider's enable rules the live session
 * would apply (level, MatchAnyKeyword), so a replay sees what a capture
 * would have seen.  Time is the event's FILETIME; nothing here sleeps. */
#ifndef ETWCAP_TRIGGER_ETW_H
#define ETWCAP_TRIGGER_ETW_H

#include "etw/event/manifests.h"
#include "etw/event/tracelogging.h"
#include "triggers/trigger_procmap.h"
#include "triggers/trigger_spec.h"

#include <stddef.h>
#include <stdint.h>

#define PRED_GEN2 0x01u           /* GC/Start: Depth >= 2 and not a background GC */
#define PRED_NOT_BACKGROUND 0x02u /* GC/Start: Type != BackgroundGC */
#define PRED_INDUCED 0x04u        /* GC/Start: Reason is an induced one */
#define PRED_GC_PREP 0x08u        /* GC/SuspendEEStart: Reason == SuspendForGCPrep */
#define PRED_EXCEPTION 0x10u      /* Exception/Start: "Type: Message" matches */
#define PRED_HTTP_STATUS 0x20u    /* ResponseHeaders/Stop: statusCode in the set */

#define TRIGGER_DETAIL_MAX 768

/* What all triggers share about the current event (filled once). */
struct trigger_etw_ctx {
  const struct etw_event *ev;
  int64_t ft;                       /* the event's UTC FILETIME */
  enum bi_provider bi;
  const struct bi_event *layout;    /* built-in layout, when known (see layout_state) */
  int layout_state;                 /* 0 not looked up yet, 1 looked up */
  int tl_state;                     /* 0 not looked at, 1 TraceLogging, -1 not */
  struct tl_meta tl;
  int man_state;                    /* 0 not looked up, 1 looked up */
  const struct man_event *man;      /* its manifest entry, when known */
  const struct trigger_procmap *procmap;
  const struct manifests *manifests; /* may be NULL */
};

void trigger_etw_ctx_init(struct trigger_etw_ctx *cx, const struct etw_event *ev, int64_t ft,
                          const struct trigger_procmap *procmap,
                          const struct manifests *manifests);

struct trigger_hit {
  double value;                 /* duration in ms, or the number that fired it */
  char detail[TRIGGER_DETAIL_MAX]; /* one line, no tabs */
};

struct ss_entry;

struct trigger_etw {
  struct trigger_etw_spec spec;
  unsigned preds;
  struct trigger_regex exc;        /* PRED_EXCEPTION */
  int exc_set;
  struct trigger_http_spec http;   /* PRED_HTTP_STATUS */
  int proc_slot;                /* name filter slot, -1 none */
  int proc_is_pid;
  uint32_t proc_pid;
  int64_t created;              /* for DecayToZeroHours */
  struct ss_entry *starts;      /* open starts (start/stop form) */
  size_t starts_cap, starts_count;
  uint64_t pairs;               /* completed start/stop pairs */
  double max_ms;
  uint64_t unnamed;             /* events of the provider no schema or manifest named */
  int unnamed_warned;
  char missing_field[TRIGGER_NAME_MAX]; /* a filter field a matching event lacked */
  int full_warned;
  char *text;                   /* the whole text of the fields being matched */
  size_t text_cap;
};

/* Takes over spec (its regexes); regex and http are copied in when the
 * predicate needs them.  The process filter is spec->process.  Returns 0,
 * ETWCAP_E_RANGE (too many named process filters) or ETWCAP_E_NOMEM. */
int trigger_etw_init(struct trigger_etw *t, struct trigger_etw_spec *spec, unsigned preds,
                     struct trigger_procmap *procmap, int64_t now);
/* Forgets open starts and restarts the decay clock (a new collection). */
void trigger_etw_reset(struct trigger_etw *t, int64_t now);
/* 1 when the event fires the trigger (hit filled), 0 otherwise. */
int trigger_etw_event(struct trigger_etw *t, struct trigger_etw_ctx *cx, struct trigger_hit *hit);
/* A name-based trigger met events nothing could name (no TraceLogging
 * schema, no manifest of the provider in `m`): 1 with a message in buf. */
int trigger_etw_problem(const struct trigger_etw *t, const struct manifests *m, char *buf,
                        size_t cap);
/* The duration threshold at `now` (PerfView's EffectiveTriggerDurationMSec). */
int64_t trigger_etw_effective_msec(const struct trigger_etw *t, int64_t now);
void trigger_etw_release(struct trigger_etw *t);

/* PerfView's StartStopActivityComputer.IsActivityPath. */
int trigger_is_activity_path(const struct etw_guid *g, uint32_t pid);
/* A payload field of the current event by name (built-in layout or
 * TraceLogging schema): 1 found, 0 not. */
int trigger_event_field(struct trigger_etw_ctx *cx, const char *name, struct tv_value *v);
/* The event's display name ("GC/Start", a TraceLogging name, "EventID(n)"). */
char *trigger_event_name(struct trigger_etw_ctx *cx, char *buf, size_t cap);

#endif
