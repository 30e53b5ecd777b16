/* See trigger_engine.h.  The built-in triggers are the ETW trigger with
 * PerfView's settings (Triggers.cs GCTooLong, BgcFinalPauseTooLong,
 * StopOnGen2GC, StopOnException; CommandLineArgs.cs for the suspend and IIS
 * specs), so they share one tested state machine. */
#include "triggers/trigger_engine.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "triggers/trigger_counter.h"

#include <stdio.h>
#include <string.h>

enum item_kind { K_COUNTER, K_ETW, K_EVCOUNTER, K_EVENTLOG };

struct item {
  enum item_kind kind;
  enum trigger_role role;
  const char *qualifier;
  char *spec;                   /* owned copy of the value as given */
  struct trigger_counter counter;
  struct trigger_counter_spec counter_spec;
  void *counter_handle;
  int counter_open;
  struct trigger_etw etw;
  struct trigger_evcounter_spec evc;
  int evc_proc_slot;            /* /Process for EventCounters: name slot, -1 none */
  int evc_proc_is_pid;
  uint32_t evc_proc_pid;
  struct trigger_eventlog_spec elog;
};

struct trigger_engine {
  struct item *items;
  size_t count;
  struct trigger_procmap procmap;
  struct manifests manifests;
  int wants_manifests;      /* a trigger on a provider without a built-in table */
  struct trigger_options opt;
  int64_t poll_ticks;
  struct trigger_counter_source src;
  int have_src;
  trigger_fire_fn fire_fn;
  void *fire_ctx;
  enum trigger_phase phase;
  unsigned collection, collections;
  int64_t phase_start;      /* when the current phase began */
  int64_t collection_start; /* when collecting began */
  int64_t next_poll;        /* INT64_MAX when no counter trigger is active */
  int64_t stop_at;          /* STOPPING: when the collection ends */
  int64_t due;              /* trigger_engine_next_deadline, kept up to date */
  /* The phase's event triggers at a glance: the first GUID field of each
   * provider watched, and whether kernel events are (see watch_rebuild). */
  uint32_t watch_data1[8];
  size_t watch_n;           /* WATCH_ALL: too many providers to list */
  int watch_kernel;
  int started;
  struct trigger_fire *fires;
  size_t fire_count, fire_cap;
};

static int64_t compute_deadline(const struct trigger_engine *e);

#define WATCH_ALL ((size_t)-1)

void trigger_options_init(struct trigger_options *o)
{
  memset(o, 0, sizeof(*o));
  o->min_sec_for_trigger = 3;
  o->trigger_poll_msec = 1000;
  o->delay_after_trigger_sec = 5;
}

int trigger_options_any(const struct trigger_options *o)
{
  return o->stop_on_perf_counter_count || o->start_on_perf_counter_count ||
         o->stop_on_etw_event_count || o->stop_on_gc_over_msec ||
         o->stop_on_gc_suspend_over_msec || o->stop_on_bgc_final_pause_over_msec ||
         o->stop_on_request_over_msec || o->stop_on_gen2_gc || o->stop_on_gc_event ||
         o->stop_on_exception || o->stop_on_event_log_message ||
         o->stop_on_event_counter_count || o->stop_on_http_status;
}

static struct item *new_item(struct trigger_engine *e, enum item_kind kind,
                             enum trigger_role role, const char *qualifier, const char *spec)
{
  struct item *grown = etwcap_reallocarray(e->items, e->count + 1, sizeof(*grown)), *it;
  if (!grown)
    return NULL;
  e->items = grown;
  it = &e->items[e->count++];
  memset(it, 0, sizeof(*it));
  it->kind = kind;
  it->role = role;
  it->qualifier = qualifier;
  it->spec = etwcap_strdup(spec ? spec : "");
  if (!it->spec) {
    e->count--;
    return NULL;
  }
  return it;
}

static int prefix_error(int rc, const char *qualifier, char *err, size_t cap)
{
  char msg[1024];
  if (rc == ETWCAP_E_NOMEM)
    snprintf(err, cap, "/%s: %s", qualifier, etwcap_strerror(rc));
  else {
    tv_copy(msg, sizeof(msg), err);
    snprintf(err, cap, "/%s: %s", qualifier, msg);
  }
  return rc;
}

/* Finishes an ETW item from a parsed spec: the global /Process and
 * /DecayToZeroHours apply where the spec does not say (as PerfView appends
 * them to every /StopOnEtwEvent). */
static int add_etw(struct trigger_engine *e, const char *qualifier, const char *spec_text,
                   struct trigger_etw_spec *spec, unsigned preds, const char *process,
                   char *err, size_t cap)
{
  struct item *it = new_item(e, K_ETW, TRIGGER_ROLE_STOP, qualifier, spec_text);
  int rc;
  if (!it) {
    trigger_etw_spec_release(spec);
    return prefix_error(ETWCAP_E_NOMEM, qualifier, err, cap);
  }
  if (process && process[0] && !spec->process[0])
    tv_copy(spec->process, sizeof(spec->process), process);
  if (spec->trigger_msec && spec->decay_hours == 0)
    spec->decay_hours = e->opt.decay_to_zero_hours;
  rc = trigger_etw_init(&it->etw, spec, preds, &e->procmap, 0);
  if (rc == ETWCAP_E_RANGE) {
    snprintf(err, cap, "/%s: more than %d different process names in filters", qualifier,
             TRIGGER_PROCMAP_MAX);
    return ETWCAP_E_USAGE;
  }
  return rc;
}

/* An ETW item from a PerfView spec string. */
static int add_etw_text(struct trigger_engine *e, const char *qualifier, const char *shown,
                        const char *text, unsigned preds, const char *process, char *err,
                        size_t cap)
{
  struct trigger_etw_spec spec;
  int rc = trigger_parse_etw_spec(text, &spec, err, cap);
  if (rc) {
    trigger_etw_spec_release(&spec);
    return prefix_error(rc, qualifier, err, cap);
  }
  return add_etw(e, qualifier, shown, &spec, preds, process, err, cap);
}

/* The start of a built-in provider's ETW item, at Informational. */
static void builtin_spec(struct trigger_etw_spec *spec, enum bi_provider bi,
                         const struct etw_guid *guid, uint64_t keywords)
{
  memset(spec, 0, sizeof(*spec));
  spec->provider = *guid;
  spec->bi = bi;
  tv_copy(spec->provider_name, sizeof(spec->provider_name), bi_provider_name(bi));
  spec->keywords = keywords;
  spec->level = 4;
}

/* An ETW item on the CLR provider built from parts. */
static int add_clr(struct trigger_engine *e, const char *qualifier, const char *shown,
                   const char *start, const char *stop, enum trigger_ssid ssid, int64_t msec,
                   uint64_t keywords, unsigned preds, const char *process, char *err,
                   size_t cap)
{
  struct trigger_etw_spec spec;
  builtin_spec(&spec, BI_CLR, &bi_guid_clr, keywords);
  spec.trigger_msec = msec;
  spec.ssid = ssid;
  if (trigger_parse_event_ref(BI_CLR, start, &spec.start, err, cap) ||
      (stop && trigger_parse_event_ref(BI_CLR, stop, &spec.stop, err, cap)))
    return prefix_error(ETWCAP_E_INTERNAL, qualifier, err, cap);
  return add_etw(e, qualifier, shown, &spec, preds, process, err, cap);
}

static int add_counter(struct trigger_engine *e, const char *qualifier, enum trigger_role role,
                       const char *text, char *err, size_t cap)
{
  struct item *it;
  struct trigger_counter_spec spec;
  int rc = trigger_parse_counter_spec(text, &spec, err, cap);
  if (rc)
    return prefix_error(rc, qualifier, err, cap);
  it = new_item(e, K_COUNTER, role, qualifier, text);
  if (!it)
    return prefix_error(ETWCAP_E_NOMEM, qualifier, err, cap);
  it->counter_spec = spec;
  return 0;
}

static int build(struct trigger_engine *e, char *err, size_t cap)
{
  const struct trigger_options *o = &e->opt;
  const char *proc = o->process;
  char text[512], shown[64];
  size_t i;
  int rc;

  for (i = 0; i < o->start_on_perf_counter_count; i++)
    if ((rc = add_counter(e, "StartOnPerfCounter", TRIGGER_ROLE_START,
                          o->start_on_perf_counter[i], err, cap)))
      return rc;
  for (i = 0; i < o->stop_on_perf_counter_count; i++)
    if ((rc = add_counter(e, "StopOnPerfCounter", TRIGGER_ROLE_STOP, o->stop_on_perf_counter[i],
                          err, cap)))
      return rc;
  if (o->stop_on_gc_over_msec > 0) {
    snprintf(shown, sizeof(shown), "%lld", (long long)o->stop_on_gc_over_msec);
    if ((rc = add_clr(e, "StopOnGCOverMsec", shown, "GC/Start", "GC/Stop", SSID_DEFAULT,
                      o->stop_on_gc_over_msec, CLR_KEYWORD_GC, PRED_NOT_BACKGROUND, proc, err,
                      cap)))
      return rc;
  }
  if (o->stop_on_bgc_final_pause_over_msec > 0) {
    snprintf(shown, sizeof(shown), "%lld", (long long)o->stop_on_bgc_final_pause_over_msec);
    if ((rc = add_clr(e, "StopOnBGCFinalPauseOverMsec", shown, "GC/SuspendEEStart",
                      "GC/RestartEEStop", SSID_THREAD, o->stop_on_bgc_final_pause_over_msec,
                      CLR_KEYWORD_GC, PRED_GC_PREP, proc, err, cap)))
      return rc;
  }
  if (o->stop_on_gen2_gc &&
      (rc = add_clr(e, "StopOnGen2GC", "", "GC/Start", NULL, SSID_DEFAULT, 0, CLR_KEYWORD_GC,
                    PRED_GEN2, proc, err, cap)))
    return rc;
  if (o->stop_on_exception) {
    struct item *it;
    struct trigger_regex re;
    rc = trigger_parse_exception_regex(o->stop_on_exception, &re, err, cap);
    if (rc)
      return prefix_error(rc, "StopOnException", err, cap);
    rc = add_clr(e, "StopOnException", o->stop_on_exception, "Exception/Start", NULL,
                 SSID_DEFAULT, 0, CLR_KEYWORD_EXCEPTION, PRED_EXCEPTION, proc, err, cap);
    if (rc) {
      trigger_regex_free(&re);
      return rc;
    }
    it = &e->items[e->count - 1];
    it->etw.exc = re;
    it->etw.exc_set = 1;
  }
  if (o->stop_on_gc_suspend_over_msec > 0) {
    snprintf(shown, sizeof(shown), "%lld", (long long)o->stop_on_gc_suspend_over_msec);
    snprintf(text, sizeof(text),
             "E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4/GC/SuspendEEStart;StopEvent=GC/"
             "SuspendEEStop;StartStopID=ThreadID;Keywords=0x1;TriggerMSec=%lld",
             (long long)o->stop_on_gc_suspend_over_msec);
    if ((rc = add_etw_text(e, "StopOnGCSuspendOverMSec", shown, text, 0, proc, err, cap)))
      return rc;
  }
  if (o->stop_on_request_over_msec > 0) {
    snprintf(shown, sizeof(shown), "%lld", (long long)o->stop_on_request_over_msec);
    snprintf(text, sizeof(text), "Microsoft-Windows-IIS/EventID(1);Level=Critical;TriggerMSec=%lld",
             (long long)o->stop_on_request_over_msec);
    if ((rc = add_etw_text(e, "StopOnRequestOverMsec", shown, text, 0, proc, err, cap)))
      return rc;
  }
  for (i = 0; i < o->stop_on_etw_event_count; i++)
    if ((rc = add_etw_text(e, "StopOnEtwEvent", o->stop_on_etw_event[i], o->stop_on_etw_event[i],
                           0, proc, err, cap)))
      return rc;
  if (o->stop_on_gc_event) {
    struct trigger_gc_spec gc;
    const char *p;
    unsigned preds = 0;
    rc = trigger_parse_gc_spec(o->stop_on_gc_event, &gc, err, cap);
    if (rc)
      return prefix_error(rc, "StopOnGCEvent", err, cap);
    p = gc.process[0] ? gc.process : proc;
    if (gc.conditions & GCE_GEN2)
      preds |= PRED_GEN2;
    if (gc.conditions & GCE_INDUCED)
      preds |= PRED_INDUCED;
    if (gc.suspend_over_msec) {
      rc = add_clr(e, "StopOnGCEvent", o->stop_on_gc_event, "GC/SuspendEEStart",
                   "GC/SuspendEEStop", SSID_THREAD, gc.suspend_over_msec, CLR_KEYWORD_GC, 0, p,
                   err, cap);
    } else if (gc.over_msec) {
      rc = add_clr(e, "StopOnGCEvent", o->stop_on_gc_event, "GC/Start", "GC/Stop", SSID_DEFAULT,
                   gc.over_msec, CLR_KEYWORD_GC, preds | PRED_NOT_BACKGROUND, p, err, cap);
    } else {
      rc = add_clr(e, "StopOnGCEvent", o->stop_on_gc_event, "GC/Start", NULL, SSID_DEFAULT, 0,
                   CLR_KEYWORD_GC, preds, p, err, cap);
    }
    if (rc)
      return rc;
  }
  for (i = 0; i < o->stop_on_event_counter_count; i++) {
    struct item *it;
    struct trigger_evcounter_spec spec;
    rc = trigger_parse_evcounter_spec(o->stop_on_event_counter[i], &spec, err, cap);
    if (rc)
      return prefix_error(rc, "StopOnEventCounter", err, cap);
    it = new_item(e, K_EVCOUNTER, TRIGGER_ROLE_STOP, "StopOnEventCounter",
                  o->stop_on_event_counter[i]);
    if (!it)
      return prefix_error(ETWCAP_E_NOMEM, "StopOnEventCounter", err, cap);
    it->evc = spec;
    it->evc_proc_slot = -1;
    if (o->process && o->process[0]) { /* EventCounters come from one process each */
      if (trigger_process_is_pid(o->process, &it->evc_proc_pid))
        it->evc_proc_is_pid = 1;
      else if ((it->evc_proc_slot = trigger_procmap_add(&e->procmap, o->process)) < 0)
        return prefix_error(ETWCAP_E_RANGE, "Process", err, cap);
    }
  }
  if (o->stop_on_http_status) {
    struct trigger_http_spec http;
    struct trigger_etw_spec spec;
    struct item *it;
    rc = trigger_parse_http_spec(o->stop_on_http_status, &http, err, cap);
    if (rc)
      return prefix_error(rc, "StopOnHttpStatus", err, cap);
    builtin_spec(&spec, BI_HTTP, &bi_guid_http, UINT64_MAX);
    if (trigger_parse_event_ref(BI_HTTP, "ResponseHeadersStop", &spec.start, err, cap))
      return prefix_error(ETWCAP_E_INTERNAL, "StopOnHttpStatus", err, cap);
    rc = add_etw(e, "StopOnHttpStatus", o->stop_on_http_status, &spec, PRED_HTTP_STATUS, proc,
                 err, cap);
    if (rc)
      return rc;
    it = &e->items[e->count - 1];
    it->etw.http = http;
  }
  if (o->stop_on_event_log_message) {
    struct item *it;
    struct trigger_eventlog_spec spec;
    rc = trigger_parse_eventlog_spec(o->stop_on_event_log_message, &spec, err, cap);
    if (rc)
      return prefix_error(rc, "StopOnEventLogMessage", err, cap);
    it = new_item(e, K_EVENTLOG, TRIGGER_ROLE_STOP, "StopOnEventLogMessage",
                  o->stop_on_event_log_message);
    if (!it) {
      trigger_eventlog_spec_release(&spec);
      return prefix_error(ETWCAP_E_NOMEM, "StopOnEventLogMessage", err, cap);
    }
    it->elog = spec;
  }
  return 0;
}

static int has_kind(const struct trigger_engine *e, enum item_kind k);

static void release_item(struct trigger_engine *e, struct item *it)
{
  etwcap_free(it->spec);
  if (it->kind == K_ETW)
    trigger_etw_release(&it->etw);
  else if (it->kind == K_EVENTLOG)
    trigger_eventlog_spec_release(&it->elog);
  else if (it->kind == K_COUNTER && it->counter_open && e->src.close)
    e->src.close(e->src.ctx, it->counter_handle);
}

void trigger_engine_free(struct trigger_engine *e)
{
  size_t i;
  if (!e)
    return;
  for (i = 0; i < e->count; i++)
    release_item(e, &e->items[i]);
  manifests_free(&e->manifests);
  etwcap_free(e->items);
  etwcap_free(e->fires);
  etwcap_free(e);
}

int trigger_engine_create(struct trigger_engine **out, const struct trigger_options *o,
                          char *err, size_t cap)
{
  struct trigger_engine *e = etwcap_calloc(1, sizeof(*e));
  int rc;
  *out = NULL;
  err[0] = '\0';
  if (!e)
    return ETWCAP_E_NOMEM;
  e->opt = *o;
  if (e->opt.trigger_poll_msec < 1)
    e->opt.trigger_poll_msec = 1;
  e->poll_ticks = e->opt.trigger_poll_msec * (TRIGGER_TICKS_PER_SEC / 1000);
  e->collections = o->collect_multiple > 1 ? (unsigned)o->collect_multiple : 1;
  e->next_poll = INT64_MAX;
  e->stop_at = INT64_MAX;
  rc = build(e, err, cap);
  {
    size_t i;
    for (i = 0; rc == 0 && i < e->count; i++)
      if (e->items[i].kind == K_ETW && e->items[i].etw.spec.bi == BI_NONE)
        e->wants_manifests = 1;
  }
  if (rc == 0 && o->process && o->process[0] && !has_kind(e, K_ETW) &&
      !has_kind(e, K_EVCOUNTER)) {
    snprintf(err, cap, "/Process filters the event triggers (GC, exception, /StopOnEtwEvent, "
             "/StopOnHttpStatus, /StopOnEventCounter ...), and none is given");
    rc = ETWCAP_E_USAGE;
  }
  if (rc) {
    trigger_engine_free(e);
    return rc;
  }
  *out = e;
  return 0;
}

void trigger_engine_set_counter_source(struct trigger_engine *e,
                                       const struct trigger_counter_source *src)
{
  e->src = *src;
  e->have_src = 1;
}

void trigger_engine_set_fire_callback(struct trigger_engine *e, trigger_fire_fn fn, void *ctx)
{
  e->fire_fn = fn;
  e->fire_ctx = ctx;
}

static int has_kind(const struct trigger_engine *e, enum item_kind k)
{
  size_t i;
  for (i = 0; i < e->count; i++)
    if (e->items[i].kind == k)
      return 1;
  return 0;
}

int trigger_engine_has_counters(const struct trigger_engine *e)
{
  return has_kind(e, K_COUNTER);
}

int trigger_engine_has_event_log(const struct trigger_engine *e)
{
  return has_kind(e, K_EVENTLOG);
}

static int has_role_kind(const struct trigger_engine *e, enum trigger_role role,
                         enum item_kind k)
{
  size_t i;
  for (i = 0; i < e->count; i++)
    if (e->items[i].role == role && e->items[i].kind == k)
      return 1;
  return 0;
}

/* What the hot path of trigger_engine_event checks first. */
static void watch_rebuild(struct trigger_engine *e, enum trigger_role role)
{
  size_t i, k;
  e->watch_n = 0;
  e->watch_kernel = 0;
  for (i = 0; i < e->count; i++) {
    const struct item *it = &e->items[i];
    uint32_t d1;
    if (it->role != role || (it->kind != K_ETW && it->kind != K_EVCOUNTER))
      continue;
    if (it->kind == K_ETW && it->etw.spec.bi == BI_KERNEL) {
      e->watch_kernel = 1;
      continue;
    }
    d1 = it->kind == K_ETW ? it->etw.spec.provider.data1 : it->evc.provider.data1;
    for (k = 0; k < e->watch_n && e->watch_data1[k] != d1; k++)
      ;
    if (k < e->watch_n)
      continue;
    if (e->watch_n == sizeof(e->watch_data1) / sizeof(e->watch_data1[0])) {
      e->watch_n = WATCH_ALL;
      return;
    }
    e->watch_data1[e->watch_n++] = d1;
  }
}

/* Arms the triggers of a phase at `now`: counters restart their arming,
 * ETW triggers forget open starts and restart their decay. */
static void enter_phase(struct trigger_engine *e, enum trigger_phase phase, int64_t now)
{
  enum trigger_role role = phase == TRIGGER_WAITING_START ? TRIGGER_ROLE_START
                                                          : TRIGGER_ROLE_STOP;
  size_t i;
  e->phase = phase;
  e->phase_start = now;
  e->stop_at = INT64_MAX;
  watch_rebuild(e, role);
  if (phase == TRIGGER_COLLECTING)
    e->collection_start = now;
  for (i = 0; i < e->count; i++) {
    struct item *it = &e->items[i];
    if (it->role != role)
      continue;
    if (it->kind == K_COUNTER)
      trigger_counter_init(&it->counter, &it->counter_spec, e->opt.min_sec_for_trigger,
                           e->opt.trigger_poll_msec,
                           role == TRIGGER_ROLE_START ? 0.0 : e->opt.decay_to_zero_hours, now);
    else if (it->kind == K_ETW)
      trigger_etw_reset(&it->etw, now);
  }
  /* PerfView samples once at once and then every poll interval. */
  e->next_poll = (phase == TRIGGER_WAITING_START || phase == TRIGGER_COLLECTING) &&
                         has_role_kind(e, role, K_COUNTER)
                     ? now
                     : INT64_MAX;
}

static void begin_collection(struct trigger_engine *e, int64_t now)
{
  e->collection++;
  if (has_role_kind(e, TRIGGER_ROLE_START, K_COUNTER)) {
    log_info("collection %u: waiting for a start trigger", e->collection);
    enter_phase(e, TRIGGER_WAITING_START, now);
  } else {
    enter_phase(e, TRIGGER_COLLECTING, now);
  }
}

int trigger_engine_start(struct trigger_engine *e, int64_t now, char *err, size_t cap)
{
  size_t i;
  err[0] = '\0';
  if (e->started)
    return 0;
  for (i = 0; i < e->count; i++) {
    struct item *it = &e->items[i];
    int rc;
    if (it->kind != K_COUNTER)
      continue;
    if (!e->have_src) {
      snprintf(err, cap, "/%s needs performance counter samples, and none are available here",
               it->qualifier);
      return ETWCAP_E_UNSUPPORTED;
    }
    rc = e->src.open(e->src.ctx, &it->counter_spec, &it->counter_handle, err, cap);
    if (rc)
      return prefix_error(rc, it->qualifier, err, cap);
    it->counter_open = 1;
  }
  e->started = 1;
  begin_collection(e, now);
  e->due = compute_deadline(e);
  return 0;
}

static int record(struct trigger_engine *e, struct item *it, const char *qualifier,
                  enum trigger_role role, int64_t ft, const struct etw_event *ev,
                  const struct trigger_hit *hit)
{
  struct trigger_fire *f;
  if (etwcap_grow((void **)&e->fires, &e->fire_cap, e->fire_count, sizeof(*e->fires), 8) != 0)
    return ETWCAP_E_NOMEM;
  f = &e->fires[e->fire_count++];
  memset(f, 0, sizeof(*f));
  f->trigger = qualifier;
  tv_copy(f->spec, sizeof(f->spec), it ? it->spec : "");
  f->role = role;
  f->collection = e->collection;
  f->collection_start = role == TRIGGER_ROLE_START ? ft : e->collection_start;
  f->filetime = ft;
  if (ev) {
    f->raw = ev->timestamp;
    f->has_raw = 1;
    if (ev->has & ETW_HAS_PID_TID) {
      f->pid = ev->pid;
      f->tid = ev->tid;
      f->has_pid = 1;
    }
  }
  f->value = hit->value;
  tv_copy(f->detail, sizeof(f->detail), hit->detail);
  if (role == TRIGGER_ROLE_START) {
    log_info("%s%s%s fired: %s", qualifier, f->spec[0] ? " " : "", f->spec, f->detail);
    enter_phase(e, TRIGGER_COLLECTING, ft);
  } else {
    int64_t delay = role == TRIGGER_ROLE_LIMIT ? 0 : e->opt.delay_after_trigger_sec;
    e->phase = TRIGGER_STOPPING;
    e->next_poll = INT64_MAX;
    e->stop_at = ft + delay * TRIGGER_TICKS_PER_SEC;
    f->stop_at = e->stop_at;
    log_info("%s%s%s fired: %s; collection %u stops in %lld s", qualifier,
             f->spec[0] ? " " : "", f->spec, f->detail,
             e->collection, (long long)delay);
  }
  e->due = compute_deadline(e);
  if (e->fire_fn)
    e->fire_fn(e->fire_ctx, f);
  return 0;
}

static int poll_counters(struct trigger_engine *e, int64_t at)
{
  enum trigger_role role = e->phase == TRIGGER_WAITING_START ? TRIGGER_ROLE_START
                                                             : TRIGGER_ROLE_STOP;
  enum trigger_phase phase = e->phase;
  size_t i;
  /* A fire changes the phase; the other triggers of this poll then stand. */
  for (i = 0; i < e->count && e->phase == phase; i++) {
    struct item *it = &e->items[i];
    double value = 0;
    int rc;
    if (it->kind != K_COUNTER || it->role != role)
      continue;
    rc = e->src.read(e->src.ctx, it->counter_handle, at, &value);
    if (rc < 0)
      return rc;
    if (rc == TRIGGER_COUNTER_NO_SAMPLE)
      continue;
    if (rc == 0)
      value = 0; /* the instance does not exist (yet) */
    if (trigger_counter_sample(&it->counter, value, at)) {
      struct trigger_hit hit;
      char path[3 * TRIGGER_NAME_MAX + 4];
      double t = trigger_counter_threshold(&it->counter, at);
      hit.value = value;
      snprintf(hit.detail, sizeof(hit.detail), "%.300s = %.15g %c %.15g for %lld s (%u samples)",
               trigger_counter_path(&it->counter_spec, path, sizeof(path)), value,
               it->counter_spec.greater ? '>' : '<', t, (long long)e->opt.min_sec_for_trigger,
               it->counter.need);
      if (t != it->counter_spec.threshold) {
        char more[96];
        snprintf(more, sizeof(more), " (decayed from %.15g)", it->counter_spec.threshold);
        tv_append(hit.detail, sizeof(hit.detail), more);
      }
      rc = record(e, it, it->qualifier, role, at, NULL, &hit);
      if (rc)
        return rc;
    }
  }
  return 0;
}

static int64_t max_collect_deadline(const struct trigger_engine *e)
{
  if (e->phase != TRIGGER_COLLECTING || e->opt.max_collect_sec <= 0)
    return INT64_MAX;
  return e->collection_start + e->opt.max_collect_sec * TRIGGER_TICKS_PER_SEC;
}

static int64_t compute_deadline(const struct trigger_engine *e)
{
  int64_t d = e->next_poll, m = max_collect_deadline(e);
  if (!e->started || e->phase == TRIGGER_DONE)
    return INT64_MAX;
  if (m < d)
    d = m;
  if (e->phase == TRIGGER_STOPPING && e->stop_at < d)
    d = e->stop_at;
  return d;
}

int64_t trigger_engine_next_deadline(const struct trigger_engine *e)
{
  return compute_deadline(e);
}

int trigger_engine_advance(struct trigger_engine *e, int64_t now)
{
  if (now < e->due)
    return 0; /* the usual case, once per event: nothing is due */
  for (;;) {
    int64_t stop = e->phase == TRIGGER_STOPPING ? e->stop_at : INT64_MAX;
    int64_t limit = max_collect_deadline(e);
    int64_t poll = e->next_poll;
    int rc;
    if (!e->started || e->phase == TRIGGER_DONE) {
      e->due = INT64_MAX;
      return 0;
    }
    if (stop <= now && stop <= limit && stop <= poll) {
      log_info("collection %u stopped", e->collection);
      if (e->collection < e->collections)
        begin_collection(e, stop);
      else {
        e->phase = TRIGGER_DONE;
        e->next_poll = INT64_MAX;
      }
      continue;
    }
    if (limit <= now && limit <= poll) {
      struct trigger_hit hit;
      hit.value = (double)e->opt.max_collect_sec;
      snprintf(hit.detail, sizeof(hit.detail), "collected for %lld s",
               (long long)e->opt.max_collect_sec);
      rc = record(e, NULL, "MaxCollectSec", TRIGGER_ROLE_LIMIT, limit, NULL, &hit);
      if (rc)
        return rc;
      continue;
    }
    if (poll <= now) {
      e->next_poll = poll + e->poll_ticks;
      rc = poll_counters(e, poll);
      if (rc)
        return rc;
      continue;
    }
    e->due = compute_deadline(e);
    return 0;
  }
}

/* Could this event be the reference's?  Only its id, group and opcode are
 * looked at; names need the decoding that follows. */
static int ref_may_match(const struct trigger_event_ref *r, const struct etw_event *ev)
{
  switch (r->kind) {
  case REF_ID:
    return ev->id == r->id;
  case REF_BUILTIN:
    return r->bi->prov == BI_KERNEL ? bi_same_event(r->bi, ev) : ev->id == r->bi->id;
  case REF_NAME:
    return 1;
  default:
    return 0;
  }
}

/* The cheap first look: is this event from the item's provider, with an id
 * the item waits for?  Most events of a trace are not, and they must cost
 * next to nothing. */
static int item_wants(const struct item *it, const struct etw_event *ev)
{
  const struct trigger_etw_spec *s = &it->etw.spec;
  if (it->kind == K_EVCOUNTER)
    return (ev->has & ETW_HAS_PROVIDER) && guid_equal(&ev->provider, &it->evc.provider);
  if (s->bi == BI_KERNEL) {
    if (!bi_kernel_group(ev))
      return 0;
  } else if (!(ev->has & ETW_HAS_PROVIDER) || !guid_equal(&ev->provider, &s->provider)) {
    return 0;
  }
  return ref_may_match(&s->start, ev) || (s->trigger_msec && ref_may_match(&s->stop, ev));
}

static int evc_process_passes(const struct trigger_engine *e, const struct item *it,
                              const struct etw_event *ev)
{
  uint32_t pid;
  if (it->evc_proc_is_pid)
    return ev->pid == it->evc_proc_pid;
  if (it->evc_proc_slot < 0)
    return 1;
  return trigger_procmap_pid(&e->procmap, it->evc_proc_slot, &pid) && ev->pid == pid;
}

/* The events a trigger wants: decoded and offered to each interested
 * trigger from item `first` on.  Kept out of line so the common path (an
 * event no trigger wants) has a small frame. */
static __attribute__((noinline)) int dispatch(struct trigger_engine *e,
                                               const struct etw_event *ev, int64_t ft,
                                               enum trigger_role role, size_t first)
{
  struct trigger_etw_ctx cx;
  struct trigger_hit hit;
  enum trigger_phase phase = e->phase;
  size_t i;
  int rc;
  trigger_etw_ctx_init(&cx, ev, ft, &e->procmap, &e->manifests);
  for (i = first; i < e->count && e->phase == phase; i++) {
    struct item *it = &e->items[i];
    int fired;
    if (it->role != role || (it->kind != K_ETW && it->kind != K_EVCOUNTER) ||
        !item_wants(it, ev))
      continue;
    if (it->kind == K_EVCOUNTER && !evc_process_passes(e, it, ev))
      continue;
    fired = it->kind == K_ETW ? trigger_etw_event(&it->etw, &cx, &hit)
                              : trigger_evcounter_event(&it->evc, &cx, &hit);
    if (fired < 0)
      return fired;
    if (fired && (rc = record(e, it, it->qualifier, role, ft, ev, &hit)) != 0)
      return rc;
  }
  return 0;
}

int trigger_engine_event(struct trigger_engine *e, const struct etw_event *ev, int64_t ft)
{
  enum trigger_role role;
  size_t i;
  int rc;
  if (ft >= e->due && (rc = trigger_engine_advance(e, ft)) != 0)
    return rc;
  if (e->procmap.count)
    trigger_procmap_event(&e->procmap, ev);
  if (e->wants_manifests && ev->id == MANIFEST_ID &&
      (rc = manifests_feed(&e->manifests, ev)) != 0)
    return rc;
  if (e->phase == TRIGGER_WAITING_START)
    role = TRIGGER_ROLE_START;
  else if (e->phase == TRIGGER_COLLECTING)
    role = TRIGGER_ROLE_STOP;
  else
    return 0;
  if (e->watch_n != WATCH_ALL) {
    if (ev->is_kernel) {
      if (!e->watch_kernel)
        return 0;
    } else if (!(ev->has & ETW_HAS_PROVIDER)) {
      return 0;
    } else {
      for (i = 0; i < e->watch_n && e->watch_data1[i] != ev->provider.data1; i++)
        ;
      if (i == e->watch_n && !e->watch_kernel) /* kernel task GUIDs of real-time events */
        return 0;
    }
  }
  for (i = 0; i < e->count; i++) {
    const struct item *it = &e->items[i];
    if (it->role == role && (it->kind == K_ETW || it->kind == K_EVCOUNTER) &&
        item_wants(it, ev))
      return dispatch(e, ev, ft, role, i);
  }
  return 0;
}

int trigger_engine_message(struct trigger_engine *e, const struct trigger_message *m)
{
  size_t i;
  int rc = trigger_engine_advance(e, m->ft);
  if (rc)
    return rc;
  if (e->phase != TRIGGER_COLLECTING)
    return 0;
  for (i = 0; i < e->count; i++) {
    struct item *it = &e->items[i];
    struct trigger_hit hit;
    if (it->kind != K_EVENTLOG || it->role != TRIGGER_ROLE_STOP)
      continue;
    if ((rc = trigger_eventlog_message(&it->elog, m, &hit)) != 0)
      return rc < 0 ? rc : record(e, it, it->qualifier, TRIGGER_ROLE_STOP, m->ft, NULL, &hit);
  }
  return 0;
}

size_t trigger_engine_trigger_count(const struct trigger_engine *e)
{
  return e->count;
}

int trigger_engine_trigger_at(const struct trigger_engine *e, size_t i, struct trigger_view *out)
{
  static const enum trigger_kind kinds[] = { [K_COUNTER] = TRIGGER_KIND_COUNTER,
                                             [K_ETW] = TRIGGER_KIND_ETW,
                                             [K_EVCOUNTER] = TRIGGER_KIND_EVENTCOUNTER,
                                             [K_EVENTLOG] = TRIGGER_KIND_EVENTLOG };
  const struct item *it;
  memset(out, 0, sizeof(*out));
  if (i >= e->count)
    return ETWCAP_E_RANGE;
  it = &e->items[i];
  out->kind = kinds[it->kind];
  out->role = it->role;
  out->qualifier = it->qualifier;
  out->spec = it->spec;
  out->counter = &it->counter_spec;
  out->etw = &it->etw;
  out->evcounter = &it->evc;
  out->eventlog = &it->elog;
  return 0;
}

enum trigger_phase trigger_engine_phase(const struct trigger_engine *e)
{
  return e->phase;
}

unsigned trigger_engine_collection(const struct trigger_engine *e)
{
  return e->collection;
}

int64_t trigger_engine_collection_start(const struct trigger_engine *e)
{
  return e->phase == TRIGGER_WAITING_START ? 0 : e->collection_start;
}

int trigger_engine_wants_manifests(const struct trigger_engine *e)
{
  return e->wants_manifests;
}

int trigger_engine_preload(struct trigger_engine *e, const struct etw_event *ev)
{
  if (!e->wants_manifests || ev->id != MANIFEST_ID)
    return 0;
  return manifests_feed(&e->manifests, ev);
}

size_t trigger_engine_fire_count(const struct trigger_engine *e)
{
  return e->fire_count;
}

const struct trigger_fire *trigger_engine_fire_at(const struct trigger_engine *e, size_t i)
{
  return i < e->fire_count ? &e->fires[i] : NULL;
}

size_t trigger_engine_problems(const struct trigger_engine *e, char *buf, size_t cap)
{
  size_t i, n = 0;
  char line[512];
  buf[0] = '\0';
  for (i = 0; i < e->count; i++) {
    const struct item *it = &e->items[i];
    char what[400];
    if (it->kind == K_ETW && trigger_etw_problem(&it->etw, &e->manifests, what, sizeof(what))) {
      snprintf(line, sizeof(line), "/%s %s: ", it->qualifier, it->spec);
      tv_append(line, sizeof(line), what);
      tv_append(line, sizeof(line), "\n");
      tv_append(buf, cap, line);
      n++;
    }
  }
  for (i = 0; i < e->procmap.count; i++) {
    if (e->procmap.slots[i].ever)
      continue;
    snprintf(line, sizeof(line),
             "process filter '%s': no process of that name was seen (it needs kernel "
             "Process/Start or DCStart events, or a CLR RuntimeInformation event, naming it), "
             "so events were dropped\n",
             e->procmap.slots[i].name);
    tv_append(buf, cap, line);
    n++;
  }
  return n;
}

static uint64_t kernel_flag_of_group(unsigned group)
{
  switch (group) {
  case KERNEL_GROUP_PROCESS: return 0x1; /* Process */
  case KERNEL_GROUP_THREAD: return 0x2;  /* Thread */
  case KERNEL_GROUP_IMAGE: return 0x4;   /* ImageLoad */
  default: return 0;
  }
}

static uint64_t kernel_flags_of_ref(const struct trigger_event_ref *r)
{
  return r->kind == REF_BUILTIN ? kernel_flag_of_group(r->bi->group) : 0;
}

void trigger_engine_needs(const struct trigger_engine *e, trigger_need_fn fn, void *ctx)
{
  size_t i;
  char args[64];
  int names = 0;
  for (i = 0; i < e->count; i++) {
    const struct item *it = &e->items[i];
    if (it->kind == K_ETW) {
      const struct trigger_etw_spec *s = &it->etw.spec;
      if (s->bi == BI_KERNEL)
        fn(ctx, &bi_guid_kernel, "Windows Kernel", 1,
           kernel_flags_of_ref(&s->start) | kernel_flags_of_ref(&s->stop), 0, "",
           it->qualifier);
      else
        fn(ctx, &s->provider, s->provider_name, 0, s->keywords, s->level, "", it->qualifier);
      if (it->etw.proc_slot >= 0)
        names = 1;
    } else if (it->kind == K_EVCOUNTER) {
      /* EventCounters are written only while the EventSource is enabled
       * with an interval; TraceEvent passes it as an argument. */
      snprintf(args, sizeof(args), "EventCounterIntervalSec=%g",
               (double)e->opt.trigger_poll_msec / 1000.0);
      fn(ctx, &it->evc.provider, it->evc.source, 0, 0, 4, args, it->qualifier);
      if (it->evc_proc_slot >= 0)
        names = 1;
    }
  }
  if (names)
    fn(ctx, &bi_guid_kernel, "Windows Kernel", 1, 0x1, 0, "", "Process");
}
