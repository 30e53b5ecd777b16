/* `collect`: the trigger engine (triggers/trigger_engine.h) owns the
 * cycle — wait for a start trigger, collect until a stop trigger,
 * /MaxCollectSec, S or 'etwcap stop', go on for DelayAfterTriggerSec, stop;
 * N times with /CollectMultiple:N — and a plain collect is one collection
 * with no trigger; `run` is collect around a command (capture_command.h),
 * and a capture that stays armed after a fire is capture_armed.h's.
 * This file connects the engine to a capture: the live threads' events and
 * messages reach it through trigger_feed.h at each turn of the wait (every
 * 200 ms, main thread), then the clock, which polls the performance
 * counters (PDH).  Each collection ends on the common stop path
 * (capture_cmd_finish: rundown, merge, zip) with the fire in the
 * capture manifest, then /StopCommand runs.
 *
 * `etwcap stop` from another process, S, A and Ctrl+C end the whole run,
 * not just one collection (PerfView's stop cannot end a CollectMultiple
 * run at all, perfview#709). */
#include "src/capture/capture_cmd_internal.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/strbuf.h"
#include "src/capture/capture_armed.h"
#include "src/capture/capture_command.h"
#include "src/capture/session_record.h"
#include "src/capture/trigger_feed.h"
#include "src/cli/cli.h"
#include "src/os/operator_log.h"
#include "src/os/operator_log_source.h"
#include "src/os/os_proc.h"
#include "src/os/own_provider.h"
#include "triggers/counter_monitor.h"
#include "triggers/os/counters_pdh.h"
#include "triggers/trigger_output.h"
#include "triggers/trigger_spec.h"

#include <stdio.h>
#include <string.h>

struct live {
  const struct collection_env *env;
  struct trigger_engine *e;  /* main thread only: the engine and the log are not thread-safe */
  struct trigger_feed feed;  /* the live threads' events and messages, for the engine */
  unsigned collection;       /* the one this process is collecting (1-based) */
  /* The last stop or limit fire, for the log and the capture manifest. */
  struct trigger_fire fire;
  int has_fire;
  /* Stay armed: snapshots or segments (capture_armed.h). */
  struct capture_armed armed;
  int64_t started;              /* FILETIME the engine started at */
  int64_t max_collect_sec;      /* /MaxCollectSec of the whole armed capture */
  char limit_detail[64];
  /* `run`: its command (run_line NULL for collect). */
  const char *run_line;
  struct capture_command command;
  /* /MonitorPerfCounter: polled at each turn, written by etwcap's own
   * provider (`provider`, or the env's seam). */
  struct counter_monitors monitors;
  struct own_provider *provider;
  int monitor_write_failed;
};

/* Counter polls the engine missed while nobody advanced it (the merge and
 * zip between two collections, a long rundown) would all be read at once,
 * the same value many times, and could arm and fire a trigger in an
 * instant: a poll more than two intervals late is skipped instead. */
struct late_counters {
  const struct trigger_counter_source *inner;
  const struct collection_env *env;
  int64_t poll_ticks;
};

static int late_open(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
                     size_t cap)
{
  struct late_counters *lc = ctx;
  return lc->inner->open(lc->inner->ctx, spec, handle, err, cap);
}

static int late_read(void *ctx, void *handle, int64_t now, double *value)
{
  struct late_counters *lc = ctx;
  if (lc->env->utc_now(lc->env->ctx) - now > 2 * lc->poll_ticks)
    return TRIGGER_COUNTER_NO_SAMPLE;
  return lc->inner->read(lc->inner->ctx, handle, now, value);
}

static void late_close(void *ctx, void *handle)
{
  struct late_counters *lc = ctx;
  lc->inner->close(lc->inner->ctx, handle);
}

/* Called by the engine, on the main thread (feed). */
static void on_fire(void *ctx, const struct trigger_fire *f)
{
  struct live *l = ctx;
  char when[64];
  os_time_format_utc(f->filetime, when, sizeof(when));
  if (f->role == TRIGGER_ROLE_START) {
    log_info("start trigger /%s%s%s fired at %s: %s; collection %u starts", f->trigger,
             f->spec[0] ? ":" : "", f->spec, when, f->detail, f->collection);
    return;
  }
  log_info("trigger /%s%s%s fired at %s: %s; collection %u stops %.1f s later "
           "(/DelayAfterTriggerSec)",
           f->trigger, f->spec[0] ? ":" : "", f->spec, when, f->detail, f->collection,
           (double)(f->stop_at - f->filetime) / (double)TRIGGER_TICKS_PER_SEC);
  if (f->role == TRIGGER_ROLE_STOP && l->armed.cli && l->armed.cli->q.event_log)
    collection_env_report(l->env, OPERATOR_TRIGGER_FIRED, "etwcap: trigger /%s%s%s fired at %s: %s",
                          f->trigger, f->spec[0] ? ":" : "", f->spec, when, f->detail);
  l->fire = *f;
  l->has_fire = 1;
}

/* A monitored counter's value, into the trace (main thread). */
static void log_counter(void *ctx, const struct counter_monitor *m, double value)
{
  struct live *l = ctx;
  const struct trigger_counter_spec *c = &m->spec.counter;
  struct tl_encoded e;
  char why[512];
  int rc = own_event_counter(&e, c->category, c->counter, c->instance, value);
  if (!rc)
    rc = l->env->own_event ? l->env->own_event(l->env->ctx, &e, why, sizeof(why))
                           : own_provider_write(l->provider, &e, why, sizeof(why));
  else
    snprintf(why, sizeof(why), "the counter's names are too long for one event");
  if (rc && !l->monitor_write_failed) {
    l->monitor_write_failed = 1; /* once: the next polls would say the same */
    log_warn("/MonitorPerfCounter: the value of %s was not written into the trace: %s", m->text,
             why);
  }
}

/* The wait loop's hook (main thread): the clock moves the engine; the
 * collection ends when the engine has moved past it, or run's command
 * has exited.  When it stays armed (capture_armed.h) a stop fire
 * writes a snapshot or marks the segment instead, the collection goes on,
 * and /MaxCollectSec counts the whole capture. */
static int should_stop(void *ctx, uint64_t elapsed_ms, struct manifest_trigger *fired)
{
  struct live *l = ctx;
  int64_t now = l->env->utc_now(l->env->ctx);
  int stop;
  (void)elapsed_ms;
  trigger_feed_run(&l->feed, now);
  counter_monitors_poll(&l->monitors, now, log_counter, l);
  if (l->run_line && capture_command_done(&l->command, fired))
    return 1;
  stop = trigger_engine_phase(l->e) == TRIGGER_DONE ||
         trigger_engine_collection(l->e) != l->collection;
  if (stop && l->has_fire) {
    fired->name = l->fire.trigger;
    fired->detail = l->fire.detail;
    fired->filetime = l->fire.filetime;
  } else if (stop) {
    fired->name = "trigger";
    fired->detail = "";
    fired->filetime = l->feed.last;
  }
  if (capture_armed_active(&l->armed) && l->max_collect_sec &&
      l->feed.last >= l->started + l->max_collect_sec * TRIGGER_TICKS_PER_SEC) {
    snprintf(l->limit_detail, sizeof(l->limit_detail), "collected for %lld s",
             (long long)l->max_collect_sec);
    fired->name = "MaxCollectSec";
    fired->detail = l->limit_detail;
    fired->filetime = l->started + l->max_collect_sec * TRIGGER_TICKS_PER_SEC;
    log_info("/MaxCollectSec: %s; the capture ends", l->limit_detail);
    return 1;
  }
  if (stop && capture_armed_active(&l->armed) && trigger_engine_phase(l->e) != TRIGGER_DONE) {
    int end = capture_armed_fire(&l->armed, fired);
    l->collection = trigger_engine_collection(l->e);
    l->has_fire = 0;
    return end;
  }
  if (!stop)
    capture_armed_turn(&l->armed);
  return stop;
}

/* Before a collection with /StartOnPerfCounter: the wait ends when the
 * engine leaves WAITING_START. */
static int should_start(void *ctx, uint64_t elapsed_ms, struct manifest_trigger *fired)
{
  struct live *l = ctx;
  int go;
  (void)elapsed_ms;
  trigger_feed_run(&l->feed, l->env->utc_now(l->env->ctx));
  go = trigger_engine_phase(l->e) != TRIGGER_WAITING_START;
  fired->name = "start";
  fired->detail = "";
  fired->filetime = 0;
  return go;
}

static const char *trigger_session(const struct plan *plan)
{
  size_t i;
  for (i = 0; i < plan->session_count; i++)
    if (plan->sessions[i].role == PLAN_ROLE_TRIGGER && plan->sessions[i].when == PLAN_AT_START)
      return plan->sessions[i].name;
  return NULL;
}

static int zip_exists(void *ctx, const char *path)
{
  const struct collection_env *env = ctx;
  int64_t size;
  return env->file_size(env->ctx, path, &size) == 0;
}

/* The data file of collection `n` of `count`: the plain name for a single
 * collection, X.<n>.etl otherwise (skipping indexes whose output exists,
 * as PerfView's GetNewFile does).  *next gets the index after the one
 * used. */
static int collection_name(const struct collection_env *env, const char *base, int zip,
                           unsigned n, unsigned count, char *out, size_t cap, unsigned *next)
{
  char probe[CONTROLLER_PATH_MAX];
  unsigned used = n;
  int rc;
  if (count <= 1) {
    snprintf(out, cap, "%s", base);
    *next = n + 1;
    return 0;
  }
  rc = trigger_collect_name(base, n, zip, zip_exists, (void *)env, probe, sizeof(probe), &used);
  if (!rc)
    rc = trigger_collect_name(base, used, 0, NULL, NULL, out, cap, NULL);
  *next = used + 1;
  return rc;
}

enum run_end { RUN_NEXT, RUN_END };

/* A wait with no sessions (for a start trigger): keys, signals and
 * 'etwcap stop' still end it.  0 to start collecting, else the end. */
static int wait_for_start(struct live *l, const char *request, struct collection_wait_result *wr)
{
  struct collection_wait_options wo;
  struct collection c;
  collection_init(&c, l->env);
  memset(&wo, 0, sizeof(wo));
  wo.request_file = request;
  wo.should_stop = should_start;
  wo.should_stop_ctx = l;
  wo.console = capture_cmd_console();
  wo.keyboard = 1;
  log_info("waiting for the start trigger (collection %u)", l->collection);
  collection_wait(&c, &wo, wr);
  return wr->end == COLLECTION_END_TRIGGER ? 0 : -1;
}

/* A or 'etwcap abort': stops the sessions and keeps their files. */
static int abort_capture(struct collection *c, const struct plan *plan)
{
  collection_stop(c);
  container_capture_release(&c->containers);
  log_error("aborted: the sessions are stopped and their files kept as they are (%s and its "
            "siblings), not merged",
            plan->data_file);
  return ETWCAP_E_CANCELLED;
}

/* Opens the real-time reader of the plan's trigger session, if it has one. */
static int open_trigger_session(struct live *l, const struct plan *plan,
                                struct consumer *sys_consumer, struct consumer **consumer)
{
  const char *tsession = trigger_session(plan);
  int rc;
  *consumer = NULL;
  if (!tsession)
    return 0;
  *consumer = l->env->consumer;
  if (!*consumer) {
    consumer_system(sys_consumer);
    *consumer = sys_consumer;
  }
  rc = (*consumer)->ops->open(*consumer, tsession, trigger_feed_event, &l->feed);
  if (rc) {
    log_error("cannot read the trigger session '%s' in real time (%s: %lu): %s", tsession,
              (*consumer)->api ? (*consumer)->api : "?", (*consumer)->os_code,
              etwcap_strerror(rc));
    *consumer = NULL;
    return rc;
  }
  log_info("watching the trigger session '%s' in real time", tsession);
  return 0;
}

/* Done with the trigger session's events: CloseTrace ends ProcessTrace now
 * (the stop path stops the session itself), so its cost is in the log
 * before the log goes into the zip.  What came after the engine decided
 * belongs to no collection. */
static void close_trigger_session(struct live *l, struct consumer *consumer)
{
  struct consumer_stats cs;
  uint64_t dropped;
  if (consumer) {
    consumer->ops->close(consumer, &cs);
    log_info("trigger session: %llu events seen, %.2f s of CPU", (unsigned long long)cs.events,
             cs.cpu_seconds);
  }
  dropped = trigger_feed_discard(&l->feed);
  if (dropped)
    log_warn("%llu trigger events were dropped: they came faster than the triggers could "
             "look at them",
             (unsigned long long)dropped);
}

/* What else ends the wait, for its first line. */
static const char *ends_also(const struct live *l, const struct cli *cli)
{
  if (l->run_line)
    return "(or wait for the command to exit)";
  if (trigger_options_any(&cli->q.triggers))
    return "(or wait for the trigger)";
  return cli->q.triggers.max_collect_sec > 0 ? "(or wait for /MaxCollectSec)" : NULL;
}

/* One collection of `plan`, start to zip.  *end says whether another may
 * follow. */
/* /EventLog: the source registered with etwcap.exe's message table when
 * the capture may write HKLM (operator_log_source.h). */
static void prepare_event_log_source(const struct collection_env *env)
{
  struct registry system;
  const struct registry *r = env->registry;
  char exe[CONTROLLER_PATH_MAX];
  if (!r) {
    registry_system(&system);
    r = &system;
  }
  operator_log_source_prepare(r, os_is_elevated(),
                              os_exe_path(exe, sizeof(exe)) == 0 ? exe : NULL);
}

static int run_one(struct live *l, const struct cli *cli, const struct plan *plan,
                   const char *base_record, enum run_end *end)
{
  const struct collection_env *env = l->env;
  struct collection_wait_options wo;
  struct collection_wait_result wr;
  struct log_memory log;
  struct collection c;
  struct consumer sys_consumer, *consumer = NULL;
  char record[CONTROLLER_PATH_MAX] = "", request[CONTROLLER_PATH_MAX] = "";
  char base_rec[CONTROLLER_PATH_MAX];
  int rc = 0;

  *end = RUN_END;
  capture_cmd_log_begin(&log, cli);
  capture_cmd_open_console(); /* again for each collection: the merge closes it */
  if (session_record_path(plan->data_file, record, sizeof(record)) ||
      session_request_path(plan->data_file, request, sizeof(request))) {
    log_error("the data file name '%s' is too long", plan->data_file);
    request[0] = '\0';
    rc = ETWCAP_E_RANGE;
    goto done;
  }
  os_remove(request); /* a request left by an earlier capture is not for us */
  if (trigger_engine_phase(l->e) == TRIGGER_WAITING_START && wait_for_start(l, request, &wr)) {
    log_info("ended before the start trigger fired: nothing was collected");
    goto done;
  }
  rc = capture_cmd_prepare(env, plan);
  if (!rc) {
    collection_init(&c, env);
    rc = collection_start(&c, plan);
    capture_cmd_cancelled_message(rc);
  }
  if (!rc && (rc = open_trigger_session(l, plan, &sys_consumer, &consumer)) != 0)
    collection_stop(&c);
  if (!rc && l->run_line && (rc = capture_command_start(&l->command, env, l->run_line)) != 0) {
    close_trigger_session(l, consumer);
    collection_stop(&c);
  }
  if (rc)
    goto done;

  capture_cmd_write_record(&c, plan, cli, "collect", &log);
  container_capture_at_start(&c.containers, env->utc_now(env->ctx));
  counter_monitors_restart(&l->monitors, env->utc_now(env->ctx));
  if (cli->q.event_log)
    prepare_event_log_source(env);
  if (cli->q.event_log)
    collection_env_report(env, OPERATOR_CAPTURE_STARTED, "etwcap started capturing %s (%s)",
                          plan->data_file, cli->command_line);
  if (base_record) {
    /* `etwcap stop` names the DataFile collect was given, not X.N.etl: a
     * record under that name too (it names X.N.etl inside) leads it to
     * this collection's request file. */
    struct plan alias = *plan;
    alias.data_file = (char *)base_record;
    capture_cmd_write_record(&c, &alias, cli, "collect", &log);
  }
  memset(&wo, 0, sizeof(wo));
  wo.ends_also = ends_also(l, cli);
  wo.request_file = request;
  wo.should_stop = should_stop;
  wo.should_stop_ctx = l;
  if (l->armed.ring) {
    wo.snapshot = capture_armed_snapshot_request;
    wo.snapshot_ctx = &l->armed;
  }
  wo.console = capture_cmd_console();
  wo.keyboard = 1; /* keys come from the console, or from tests through console_push_key */
  wo.disk_path = plan->data_file;
  wo.report_health = cli->q.event_log;
  l->feed.events = 0; /* this collection's, for its health check */
  wo.trigger_events = &l->feed.events;
  l->armed.c = &c;
  l->armed.log = &log;
  collection_wait(&c, &wo, &wr);
  close_trigger_session(l, consumer);
  capture_armed_finish(&l->armed); /* its merge logs into this log, which is about to be zipped */
  l->armed.c = NULL;

  if (wr.end == COLLECTION_END_KEY_ABORT || wr.end == COLLECTION_END_ABORT_REQUEST)
    rc = abort_capture(&c, plan);
  else
    rc = capture_cmd_finish(&c, plan, cli, &log,
                            wr.end == COLLECTION_END_TRIGGER
                                ? &wr.trigger
                                : capture_armed_segment_fire(&l->armed),
                            record);
  capture_armed_retain(&l->armed);
  if (cli->q.event_log)
    collection_env_report(env, OPERATOR_CAPTURE_ENDED, "etwcap ended the capture of %s: %s",
                          plan->data_file, rc ? etwcap_strerror(rc) : "written");
  if (l->run_line)
    capture_command_end(&l->command);
  if (base_record && session_record_path(base_record, base_rec, sizeof(base_rec)) == 0)
    os_remove(base_rec);
  os_remove(record);
  if (wr.end == COLLECTION_END_TRIGGER && rc == 0 && !l->run_line &&
      !capture_armed_active(&l->armed)) {
    capture_stop_command(env, cli->q.triggers.stop_command,
                         plan->zip ? plan->zip_file : plan->data_file);
    if (trigger_engine_phase(l->e) != TRIGGER_DONE)
      *end = RUN_NEXT;
  }
done:
  if (request[0])
    os_remove(request);
  console_close();
  capture_cmd_log_end(&log);
  return rc;
}

/* The counters the engine and the monitors poll: the env's (tests) or
 * PDH's, each poll more than two intervals late skipped (late_counters). */
static void use_counters(struct live *l, const struct trigger_options *opt,
                         struct trigger_counter_source *counters, struct late_counters *late,
                         struct trigger_counter_source *late_src, int *pdh)
{
  if (l->env->counters) {
    *counters = *l->env->counters;
  } else {
    *counters = counters_pdh_system();
    *pdh = 1;
  }
  late->inner = counters;
  late->env = l->env;
  late->poll_ticks = (opt->trigger_poll_msec > 0 ? opt->trigger_poll_msec : 1000) * 10000;
  late_src->ctx = late;
  late_src->open = late_open;
  late_src->read = late_read;
  late_src->close = late_close;
  trigger_engine_set_counter_source(l->e, late_src);
}

/* Subscribes to the event log /StopOnEventLogMessage watches. */
static int watch_event_log(struct live *l, const struct trigger_options *opt,
                           struct eventlog_source *eventlog, void **handle)
{
  struct trigger_eventlog_spec spec;
  char err[512];
  int rc;
  *eventlog = l->env->eventlog ? *l->env->eventlog : eventlog_system();
  rc = trigger_parse_eventlog_spec(opt->stop_on_event_log_message, &spec, err, sizeof(err));
  if (!rc) {
    rc = eventlog->open(eventlog->ctx, spec.log, trigger_feed_message, &l->feed, handle, err,
                        sizeof(err));
    if (!rc)
      log_info("watching the '%s' event log for /StopOnEventLogMessage", spec.log);
    trigger_eventlog_spec_release(&spec);
  }
  if (rc)
    log_error("/StopOnEventLogMessage: %s", err);
  return rc;
}

/* /MonitorPerfCounter: parses the specs, opens the counters in `src` and
 * the provider that writes their values.  A capture that logs nothing of
 * what was asked would look complete and is not: each failure is an error
 * before anything is collected. */
static int start_monitors(struct live *l, const struct cli *cli,
                          const struct trigger_counter_source *src)
{
  char err[1024];
  size_t i;
  int rc = counter_monitors_parse(&l->monitors, cli->q.monitor_perf_counter,
                                  cli->q.monitor_perf_counter_count, err, sizeof(err));
  if (!rc && l->monitors.count && !l->env->own_event)
    rc = own_provider_open(&l->provider, err, sizeof(err));
  if (!rc)
    rc = counter_monitors_open(&l->monitors, src, l->started, err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  for (i = 0; i < l->monitors.count; i++)
    log_info("/MonitorPerfCounter: logging %s every %g s%s", l->monitors.items[i].text,
             l->monitors.items[i].spec.interval_sec,
             l->monitors.items[i].spec.rounded_up ? " (rounded up to the shortest interval)"
                                                  : "");
  return 0;
}

/* A capture that stays armed counts /MaxCollectSec itself: the engine
 * counts it per collection, and such a capture is one collection however
 * many fires it sees. */
static void whole_capture_limit(struct live *l, struct trigger_options *eopt)
{
  l->max_collect_sec = eopt->max_collect_sec;
  eopt->max_collect_sec = 0;
}

/* collect, or run with `run_line`: the engine's cycle around collections
 * planned for `command`. */
static int capture(const struct cli *cli, const struct collection_env *env, const char *command,
                   const char *run_line)
{
  struct trigger_options eopt = cli->q.triggers;
  const struct trigger_options *opt = &eopt;
  struct trigger_counter_source counters = { NULL, NULL, NULL, NULL }, late_src;
  struct late_counters late;
  struct eventlog_source eventlog = { NULL, NULL, NULL };
  void *eventlog_handle = NULL;
  struct live l;
  struct plan plan;
  char err[512], base[CONTROLLER_PATH_MAX], name[CONTROLLER_PATH_MAX];
  unsigned count = opt->collect_multiple > 1 ? (unsigned)opt->collect_multiple : 1;
  unsigned n = 1, next;
  int rc, pdh = 0;
  enum run_end end = RUN_NEXT;

  memset(&l, 0, sizeof(l));
  l.env = env;
  l.run_line = run_line;
  if ((rc = capture_armed_setup(&l.armed, cli, env, &eopt)) != 0)
    return rc;
  if (capture_armed_active(&l.armed)) {
    whole_capture_limit(&l, &eopt);
    count = 1; /* one collection, its snapshots or segments within it */
  }
  rc = trigger_engine_create(&l.e, opt, err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  /* The first collection's plan; its DataFile, as the plan normalises it
   * (extension, default name), is the base of the others' names. */
  rc = capture_cmd_plan(env, cli, command, NULL, l.e, &plan);
  if (rc) {
    plan_release(&plan);
    trigger_engine_free(l.e);
    return rc;
  }
  snprintf(base, sizeof(base), "%s", plan.data_file);
  l.armed.base = base;
  l.armed.engine = l.e;
  l.armed.plan = &plan;
  if (l.armed.segments) {
    /* The first segment's plan: X.<UTC start>.etl. */
    plan_release(&plan);
    rc = capture_armed_first_segment(&l.armed, name, sizeof(name));
    if (rc)
      log_error("the data file name '%s' is too long", base);
    else
      rc = capture_cmd_plan(env, cli, command, name, l.e, &plan);
    if (rc) {
      plan_release(&plan);
      trigger_engine_free(l.e);
      return rc;
    }
  }

  l.started = env->utc_now(env->ctx);
  trigger_feed_init(&l.feed, l.e, l.started);
  trigger_engine_set_fire_callback(l.e, on_fire, &l);
  if (trigger_engine_has_counters(l.e) || cli->q.monitor_perf_counter_count)
    use_counters(&l, opt, &counters, &late, &late_src, &pdh);
  rc = trigger_engine_start(l.e, l.started, err, sizeof(err));
  if (rc)
    log_error("%s", err);
  if (!rc)
    rc = start_monitors(&l, cli, &late_src);
  if (!rc && trigger_engine_has_event_log(l.e))
    rc = watch_event_log(&l, opt, &eventlog, &eventlog_handle);
  while (!rc && end == RUN_NEXT) {
    l.collection = trigger_engine_collection(l.e);
    l.has_fire = 0;
    if (count > 1) {
      /* X.<n>.etl: this collection's own plan. */
      rc = collection_name(env, base, plan.zip, n, count, name, sizeof(name), &next);
      if (rc) {
        log_error("the data file name '%s' is too long", base);
        break;
      }
      n = next;
      log_info("collection %u of %u: %s", l.collection, count, name);
      plan_release(&plan);
      if ((rc = capture_cmd_plan(env, cli, command, name, l.e, &plan)) != 0)
        break;
    }
    rc = run_one(&l, cli, &plan, count > 1 || l.armed.segments ? base : NULL, &end);
  }
  plan_release(&plan);
  if (eventlog_handle)
    eventlog.close(eventlog.ctx, eventlog_handle);
  trigger_feed_destroy(&l.feed);
  trigger_engine_free(l.e);
  counter_monitors_release(&l.monitors);
  own_provider_close(l.provider);
  if (pdh)
    counters_pdh_release(&counters);
  return rc;
}

int capture_cmd_collect(const struct cli *cli, const struct collection_env *env)
{
  return capture(cli, env, "collect", NULL);
}

int capture_cmd_run(const struct cli *cli, const struct collection_env *env)
{
  struct strbuf b = { NULL, 0, 0, 0 };
  char *line;
  size_t i;
  int rc;
  for (i = 0; i < cli->arg_count; i++)
    strbuf_printf(&b, strchr(cli->args[i], ' ') ? "%s\"%s\"" : "%s%s", i ? " " : "",
                  cli->args[i]);
  if ((rc = strbuf_finish(&b, &line)) != 0)
    return rc;
  rc = capture(cli, env, "run", line);
  etwcap_free(line);
  return rc;
}
