/* The selftest's phases (see selftest_phases.h). */
#include "src/selftest/selftest_phases.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_thread.h"
#include "src/base/strbuf.h"
#include "src/base/strutil.h"
#include "src/capture/capture_cmd.h"
#include "src/capture/session_record.h"
#include "src/selftest/selftest_capture.h"
#include "triggers/trigger_output.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHASE_SWITCH_ROUNDS 500u
#define PHASE_SPIN_MS 200u
#define PHASE_WAIT_MS 30000u /* for the phase's session to run */
#define PHASE_STR2(x) #x
#define PHASE_STR(x) PHASE_STR2(x)

/* --- the helper thread ------------------------------------------------------------- */

enum phase_kind { PHASE_SNAPSHOT, PHASE_SEGMENTS, PHASE_ROUTE };

struct helper {
  const struct selftest_config *cfg;
  enum phase_kind kind;
  const char *session;               /* wait until it runs */
  char request[CONTROLLER_PATH_MAX]; /* the capture's request file */
  char snapshot[CONTROLLER_PATH_MAX];/* PHASE_SNAPSHOT: the zip it waits for */
  os_thread thread;
  os_mutex lock;
  int cancelled;                     /* under lock: the capture has returned */
  char why[256];                     /* what went wrong, "" none */
};

static int cancelled(struct helper *h)
{
  int c;
  os_mutex_lock(&h->lock);
  c = h->cancelled;
  os_mutex_unlock(&h->lock);
  return c;
}

/* Sleeps `ms` on the helper's clock unless the capture has returned. */
static int pause_ms(struct helper *h, unsigned ms)
{
  const struct collection_env *env = h->cfg->work_env;
  env->sleep_ms(env->ctx, ms);
  return !cancelled(h);
}

static int session_runs(struct helper *h)
{
  const struct collection_env *env = h->cfg->work_env;
  struct controller_status st;
  unsigned waited;
  for (waited = 0; waited < PHASE_WAIT_MS; waited += 100) {
    if (env->ctl->ops->query(env->ctl, h->session, &st) == 0)
      return 1;
    if (!pause_ms(h, 100))
      return 0;
  }
  snprintf(h->why, sizeof(h->why), "'%s' did not run within %u s", h->session,
           PHASE_WAIT_MS / 1000);
  return 0;
}

static void work(struct helper *h)
{
  struct selftest_spin spin;
  const struct selftest_os *os = h->cfg->os;
  int rc = os->switch_threads(os->ctx, PHASE_SWITCH_ROUNDS, PHASE_SPIN_MS, &spin);
  if (rc && !h->why[0])
    snprintf(h->why, sizeof(h->why), "the thread switches failed: %s", etwcap_strerror(rc));
}

static void ask(struct helper *h, const char *request)
{
  int rc = session_request_write(h->request, request);
  if (rc && !h->why[0])
    snprintf(h->why, sizeof(h->why), "cannot ask the capture to %s (%.120s): %s", request,
             h->request, etwcap_strerror(rc));
}

static void helper_main(void *arg)
{
  struct helper *h = arg;
  int64_t size;
  unsigned waited;
  if (!session_runs(h))
    return;
  if (!pause_ms(h, 1000))
    return;
  work(h);
  switch (h->kind) {
  case PHASE_SNAPSHOT:
    ask(h, "snapshot");
    for (waited = 0; waited < SELFTEST_SNAPSHOT_WAIT_MS; waited += 200)
      if (os_file_size(h->snapshot, &size) == 0 || !pause_ms(h, 200))
        break;
    break;
  case PHASE_SEGMENTS:
    /* Work in each segment, until two have closed. */
    for (waited = 1000 + PHASE_SPIN_MS; waited < SELFTEST_SEGMENTS_RUN_MS; waited += 1000) {
      if (!pause_ms(h, 1000 - PHASE_SPIN_MS))
        return;
      work(h);
    }
    break;
  case PHASE_ROUTE:
    if (!pause_ms(h, 1000))
      return;
    break;
  }
  ask(h, "stop");
}

static void helper_cancel_and_join(struct helper *h, int started)
{
  os_mutex_lock(&h->lock);
  h->cancelled = 1;
  os_mutex_unlock(&h->lock);
  if (started)
    os_thread_join(&h->thread);
  os_mutex_destroy(&h->lock);
}

/* The first error the phase's capture logs, for its FAIL line. */
static void first_error(void *ctx, enum log_level level, const char *line)
{
  struct selftest_phase *p = ctx;
  if (level >= LOG_ERROR && !p->why[0])
    snprintf(p->why, sizeof(p->why), "%s", line);
}

/* --- one phase ---------------------------------------------------------------------- */

/* One phase's collect, with its helper.  An earlier selftest's request
 * file and snapshot zip are removed first: a phase never judges an older
 * result, nor obeys an old request. */
static void run_phase(const struct selftest_config *cfg, const char *prefix, enum phase_kind kind,
                      const char *data, const char *const *extra, size_t count,
                      struct selftest_phase *p, struct helper *h)
{
  char session[PLAN_NAME_MAX];
  int started, sink;
  memset(h, 0, sizeof(*h));
  h->cfg = cfg;
  h->kind = kind;
  snprintf(session, sizeof(session), "%s", prefix);
  h->session = session;
  os_mutex_init(&h->lock);
  if (session_request_path(data, h->request, sizeof(h->request)) != 0 ||
      trigger_collect_name(data, 1, 1, NULL, NULL, h->snapshot, sizeof(h->snapshot), NULL) != 0) {
    snprintf(p->why, sizeof(p->why), "the file names in '%s' are too long", cfg->dir);
    p->capture_rc = ETWCAP_E_RANGE;
    p->ran = 1;
    os_mutex_destroy(&h->lock);
    return;
  }
  os_remove(h->request);
  os_remove(h->snapshot);
  started = os_thread_create(&h->thread, helper_main, h) == 0;
  p->ran = 1;
  /* A sink may be refused (LOG_MAX_SINKS): the FAIL line then points at the log. */
  sink = log_add_sink(first_error, p, LOG_ERROR) == 0;
  p->capture_rc = started ? selftest_collect(cfg->env, prefix, data, extra, count)
                          : ETWCAP_E_SYSTEM;
  if (sink)
    log_remove_sink(first_error, p);
  helper_cancel_and_join(h, started);
  os_remove(h->request);
  if (!started)
    snprintf(p->why, sizeof(p->why), "cannot start the phase's helper thread");
  else if (h->why[0] && !p->why[0])
    snprintf(p->why, sizeof(p->why), "%s", h->why);
}

static void census_one(const char *path, struct selftest_phase *p)
{
  struct selftest_census *c = &p->census[p->census_count++];
  int64_t size;
  const char *base = path + strlen(path);
  while (base > path && base[-1] != '/' && base[-1] != '\\')
    base--;
  if (os_file_size(path, &size) != 0) {
    snprintf(c->name, sizeof(c->name), "%.100s was not written", base);
    return;
  }
  selftest_census_file(path, c);
}

/* --- segments ------------------------------------------------------------------------- */

/* "X.YYYYMMDDTHHMMSSZ[-N].etl.zip" of the stem "X.", as the capture names
 * a closed segment (its UTC start): sorted by name, oldest first. */
struct segment_names {
  const char *stem;
  char names[SELFTEST_MAX_SEGMENTS * 4][128];
  size_t count;
};

static int is_segment(const char *name, const char *stem)
{
  size_t n = strlen(stem), len = strlen(name);
  return !strncmp(name, stem, n) && len >= n + 16 + 8 && name[n + 8] == 'T' &&
         name[n + 15] == 'Z' && str_ends_with_case(name, ".etl.zip");
}

static int add_segment(void *ctx, const char *name)
{
  struct segment_names *s = ctx;
  if (is_segment(name, s->stem) && s->count < sizeof(s->names) / sizeof(s->names[0]) &&
      strlen(name) < sizeof(s->names[0]))
    snprintf(s->names[s->count++], sizeof(s->names[0]), "%s", name);
  return 0;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(a, b);
}

/* Every segment zip of an earlier selftest is removed before; after, the
 * first SELFTEST_MAX_SEGMENTS are read. */
static void segments(const struct selftest_config *cfg, int remove, struct selftest_phase *p)
{
  static struct segment_names s;
  char stem[64], path[CONTROLLER_PATH_MAX];
  const char *dir = cfg->dir && *cfg->dir ? cfg->dir : ".";
  size_t i;
  memset(&s, 0, sizeof(s));
  snprintf(stem, sizeof(stem), "%.*s.", (int)(strlen(SELFTEST_SEGMENTS_FILE) - 4),
           SELFTEST_SEGMENTS_FILE);
  s.stem = stem;
  os_dir_list(dir, add_segment, &s);
  qsort(s.names, s.count, sizeof(s.names[0]), by_name);
  for (i = 0; i < s.count; i++) {
    selftest_join_path(path, sizeof(path), cfg->dir, s.names[i]);
    if (remove)
      os_remove(path);
    else if (p->census_count < SELFTEST_MAX_SEGMENTS)
      census_one(path, p);
  }
}

/* --- all of them ---------------------------------------------------------------------- */

/* Whether the selftest's budget leaves `need_sec` for the phase: then
 * *max_sec is its /MaxCollectSec (its safety net, within what is left less
 * the stop's rundown and merge); else the phase is marked as not run. */
static int budget(const struct selftest_config *cfg, uint64_t start_ms, unsigned need_sec,
                  unsigned *max_sec, struct selftest_phase *p)
{
  uint64_t used = (cfg->env->now_ms(cfg->env->ctx) - start_ms) / 1000;
  unsigned left = used < SELFTEST_BUDGET_SEC ? SELFTEST_BUDGET_SEC - (unsigned)used : 0;
  if (left < need_sec + SELFTEST_PHASE_STOP_SEC) {
    p->ran = 1;
    p->capture_rc = ETWCAP_E_TIMEOUT;
    snprintf(p->why, sizeof(p->why), "not run: %u s of the selftest's %u s are left, %u s "
                                     "needed",
             left, SELFTEST_BUDGET_SEC, need_sec + SELFTEST_PHASE_STOP_SEC);
    return 0;
  }
  *max_sec = left - SELFTEST_PHASE_STOP_SEC;
  if (*max_sec > SELFTEST_PHASE_MAX_SEC)
    *max_sec = SELFTEST_PHASE_MAX_SEC;
  return 1;
}

void selftest_phases_run(const struct selftest_config *cfg, const char *prefix,
                         uint64_t start_ms, struct selftest_outcome *o)
{
  static struct helper h;
  char data[CONTROLLER_PATH_MAX], zip[CONTROLLER_PATH_MAX], route[64], max[32];
  const char *args[6];
  unsigned max_sec;
  size_t i;

  args[1] = "/BufferSizeMB:16";
  args[2] = "/RundownTimeout:" PHASE_STR(SELFTEST_PHASE_RUNDOWN_SEC);
  args[3] = max;
  log_info("selftest: phase SNAPSHOT (/InMemoryCircularBuffer, then 'etwcap snapshot')");
  if (budget(cfg, start_ms, SELFTEST_SNAPSHOT_NEED_SEC, &max_sec, &o->snapshot)) {
    snprintf(max, sizeof(max), "/MaxCollectSec:%u", max_sec);
    args[0] = "/InMemoryCircularBuffer";
    args[4] = "/CircularMB:64";
    selftest_join_path(data, sizeof(data), cfg->dir, SELFTEST_SNAPSHOT_FILE);
    run_phase(cfg, prefix, PHASE_SNAPSHOT, data, args, 5, &o->snapshot, &h);
    if (!o->snapshot.capture_rc)
      census_one(h.snapshot, &o->snapshot);
  }

  log_info("selftest: phase SEGMENTS (/SegmentSec:%d for %u s)", SELFTEST_SEGMENT_SEC,
           SELFTEST_SEGMENTS_RUN_MS / 1000);
  if (budget(cfg, start_ms, SELFTEST_SEGMENTS_RUN_MS / 1000 + 2, &max_sec, &o->segments)) {
    snprintf(max, sizeof(max), "/MaxCollectSec:%u", max_sec);
    args[0] = "/SegmentSec:" PHASE_STR(SELFTEST_SEGMENT_SEC);
    selftest_join_path(data, sizeof(data), cfg->dir, SELFTEST_SEGMENTS_FILE);
    segments(cfg, 1, &o->segments);
    run_phase(cfg, prefix, PHASE_SEGMENTS, data, args, 4, &o->segments, &h);
    if (!o->segments.capture_rc)
      segments(cfg, 0, &o->segments);
  }

  if (o->os_build < SELFTEST_ROUTES_BUILD)
    return;
  for (i = 0; i < 2; i++) {
    log_info("selftest: phase ROUTES (/KernelRoute:%s)", selftest_route_names[i]);
    if (!budget(cfg, start_ms, SELFTEST_ROUTE_NEED_SEC, &max_sec, &o->routes[i]))
      continue;
    snprintf(max, sizeof(max), "/MaxCollectSec:%u", max_sec);
    snprintf(route, sizeof(route), "/KernelRoute:%s", selftest_route_names[i]);
    args[0] = route;
    args[4] = "/CircularMB:64";
    selftest_join_path(data, sizeof(data), cfg->dir, SELFTEST_ROUTE_FILE);
    selftest_join_path(zip, sizeof(zip), cfg->dir, SELFTEST_ROUTE_FILE ".zip");
    os_remove(zip);
    run_phase(cfg, prefix, PHASE_ROUTE, data, args, 5, &o->routes[i], &h);
    if (!o->routes[i].capture_rc)
      census_one(zip, &o->routes[i]);
  }
}

/* --- the routes side by side ----------------------------------------------------------- */

static void line(FILE *out, struct strbuf *txt, const char *fmt, ...) LOG_PRINTF(3, 4);
static void line(FILE *out, struct strbuf *txt, const char *fmt, ...)
{
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (out)
    fprintf(out, "%s\n", buf);
  if (txt)
    strbuf_printf(txt, "%s\n", buf);
}

void selftest_phases_print_routes(const struct selftest_outcome *o, FILE *out,
                                  struct strbuf *txt)
{
  static const struct {
    const char *name;
    size_t offset;
  } rows[] = {
    { "events", offsetof(struct selftest_census, events) },
    { "CSwitch", offsetof(struct selftest_census, cswitch) },
    { "ReadyThread", offsetof(struct selftest_census, ready_thread) },
    { "SampledProfile", offsetof(struct selftest_census, samples) },
    { "Process/Start", offsetof(struct selftest_census, process_start) },
    { "Process/DCStart", offsetof(struct selftest_census, process_dcstart) },
    { "Process/DCEnd", offsetof(struct selftest_census, process_dcend) },
    { "Image/Load", offsetof(struct selftest_census, image_load) },
    { "Image/DCStart", offsetof(struct selftest_census, image_dcstart) },
    { "CLR rundown", offsetof(struct selftest_census, clr_rundown) },
  };
  const struct selftest_census *a = &o->routes[0].census[0], *b = &o->routes[1].census[0];
  size_t i;
  if (!o->routes[0].ran && !o->routes[1].ran)
    return;
  line(out, txt, "ROUTES census, the same capture by each kernel route:");
  line(out, txt, "  %-16s %16s %16s", "event", selftest_route_names[0], selftest_route_names[1]);
  for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
    line(out, txt, "  %-16s %16llu %16llu", rows[i].name,
         (unsigned long long)*(const uint64_t *)(const void *)((const char *)a + rows[i].offset),
         (unsigned long long)*(const uint64_t *)(const void *)((const char *)b + rows[i].offset));
}
