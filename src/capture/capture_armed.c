/* See capture_armed.h. */
#include "src/capture/capture_armed.h"

#include "etw/event/builtin_events.h"
#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"
#include "src/base/zip/zip_member_text.h"
#include "src/capture/capture_cmd_internal.h"
#include "src/capture/periodic_rundown_files.h"
#include "src/capture/rundown.h"
#include "src/capture/segment_retention.h"
#include "src/cli/cli.h"
#include "src/os/operator_log.h"
#include "triggers/trigger_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENTS_MAX 4096 /* a week of 3-minute segments, and more */

static int64_t elapsed_ms(const struct capture_armed *a, uint64_t since)
{
  return (int64_t)(a->env->now_ms(a->env->ctx) - since);
}

/* --- setup ----------------------------------------------------------------- */

int capture_armed_check(const struct qualifier_values *q)
{
  int snapshots = q->snapshot_on_trigger, segments = q->segment_sec > 0 || q->segment_mb > 0;
  if (!snapshots && !segments && (q->keep_segments || q->keep_days || q->max_disk_mb)) {
    log_error("/KeepSegments, /KeepDays and /MaxDiskMB keep the segments of a rotating "
              "capture: add /SegmentSec or /SegmentMB");
    return ETWCAP_E_USAGE;
  }
  if (snapshots && segments) {
    log_error("/SnapshotOnTrigger and /SegmentSec or /SegmentMB do not combine: snapshots are "
              "written from in-memory rings, segments from files. Choose one");
    return ETWCAP_E_USAGE;
  }
  if (snapshots && !q->plan.in_memory) {
    log_error("/SnapshotOnTrigger writes snapshots from the in-memory rings: add "
              "/InMemoryCircularBuffer (with /CircularMB for their size)");
    return ETWCAP_E_USAGE;
  }
  if (snapshots && !trigger_options_any(&q->triggers)) {
    log_error("/SnapshotOnTrigger needs a stop trigger to fire it (/StopOnPerfCounter, "
              "/StopOnGen2GC, /StopOnException, ...); 'etwcap snapshot' asks for one without");
    return ETWCAP_E_USAGE;
  }
  if (segments && (q->plan.in_memory || q->plan.circular_mb > 0)) {
    log_error("/SegmentSec and /SegmentMB rotate files that grow: they replace "
              "/InMemoryCircularBuffer and /CircularMB (a segment's size is /SegmentMB)");
    return ETWCAP_E_USAGE;
  }
  if (segments && (q->plan.os_heap_pid || q->plan.os_heap_exe)) {
    /* Rotating switches each file with ControlTrace UPDATE, which on the
     * heap session would carry EnableFlags 0 in place of the extension
     * block it started with: what that does is documented nowhere.  Left
     * unrotated, its one file would outlive the segments it belongs to
     * (docs/perfview-collection.md, /OSHeapExe). */
    log_error("/OSHeapProcess and /OSHeapExe do not combine with /SegmentSec or /SegmentMB: "
              "switching the heap session's file has an effect Windows does not document, "
              "and one heap file cannot belong to every segment. Trace the heap in a capture "
              "that is not rotated (with /MaxCollectSec or a stop trigger)");
    return ETWCAP_E_USAGE;
  }
  if (segments && q->triggers.collect_multiple > 1) {
    log_error("/CollectMultiple counts collections that stop at a fire; a rotating capture "
              "does not stop at one (the fire marks its segment)");
    return ETWCAP_E_USAGE;
  }
  return 0;
}

int capture_armed_setup(struct capture_armed *a, const struct cli *cli,
                        const struct collection_env *env, struct trigger_options *eopt)
{
  const struct qualifier_values *q = &cli->q;
  int rc = capture_armed_check(q);
  memset(a, 0, sizeof(*a));
  a->cli = cli;
  a->env = env;
  a->ring = q->plan.in_memory;
  a->snapshot_next = 1;
  if (rc)
    return rc;
  a->segments = q->segment_sec > 0 || q->segment_mb > 0;
  a->snapshots_on_fire = q->snapshot_on_trigger;
  a->rundown_period_ms = (uint64_t)q->rundown_period_sec * 1000u;
  a->rundown_ms = env->now_ms(env->ctx);
  if (!capture_armed_active(a))
    return 0;
  a->snapshot_max = eopt->collect_multiple > 0 ? (unsigned)eopt->collect_multiple : 0;
  a->cooldown_ms = (uint64_t)capture_armed_cooldown_sec(q) * 1000u;
  a->segment_sec = q->segment_sec;
  a->segment_mb = q->segment_mb;
  eopt->collect_multiple = INT32_MAX;
  return 0;
}

int64_t capture_armed_cooldown_sec(const struct qualifier_values *q)
{
  return q->snapshot_cooldown_sec >= 0 ? q->snapshot_cooldown_sec
                                       : q->triggers.delay_after_trigger_sec;
}

int capture_armed_active(const struct capture_armed *a)
{
  return a->snapshots_on_fire || a->segments;
}

static void written(void *ctx, const char *zip);

/* --- snapshots ------------------------------------------------------------- */

/* Snapshot X.<n>.etl of the running collection, named for `fired`: the
 * rings written, X.<n>'s own rundown, then the background merge. */
static void take_snapshot(struct capture_armed *a, const struct manifest_trigger *fired)
{
  char name[CONTROLLER_PATH_MAX], probe[CONTROLLER_PATH_MAX];
  struct plan plan;
  unsigned used;
  int rc;
  if (trigger_collect_name(a->base, a->snapshot_next, 1, NULL, NULL, probe, sizeof(probe),
                           &used) ||
      trigger_collect_name(a->base, a->snapshot_next, 0, NULL, NULL, name, sizeof(name),
                           NULL)) {
    log_error("snapshot: the data file name '%s' is too long", a->base);
    return;
  }
  background_wait(&a->job);
  /* A plan for X.<n>: its rundown sessions write X.<n>'s files. */
  rc = capture_cmd_plan(a->env, a->cli, "collect", name, a->engine, &plan);
  if (!rc) {
    log_info("snapshot %s for %s: writing the rings, the sessions go on", name, fired->name);
    rc = collection_flush_to(a->c, &plan);
    if (rc == 0)
      rc = ETWCAP_E_UNSUPPORTED; /* nothing in memory: no ring to write */
    if (rc < 0)
      log_error("snapshot %s: no ring could be written (%s); the capture goes on", name,
                etwcap_strerror(rc));
  }
  if (rc > 0) {
    capture_cmd_rundown(a->c, &plan);
    /* The rings hold a window before now: the periodic kernel rundowns
     * kept name what ran in it and has ended (§8.5). */
    periodic_rundown_files_copy(&a->kept, a->plan->data_file, name);
    a->job.written = written;
    a->job.written_ctx = a;
    if (background_finish(&a->job, name, fired, a->log, a->cli->command_line) == 0) {
      a->snapshot_next++;
      a->snapshots++;
      a->snapshot_ms = a->env->now_ms(a->env->ctx);
    }
  }
  plan_release(&plan);
}

void capture_armed_snapshot_request(void *ctx)
{
  struct capture_armed *a = ctx;
  struct manifest_trigger asked;
  asked.name = "snapshot";
  asked.detail = "asked for by 'etwcap snapshot'";
  asked.filetime = a->env->utc_now(a->env->ctx);
  take_snapshot(a, &asked);
}

/* --- rundown into the capture (/RundownPeriodSec) ------------------------- */

/* The CLR part: TraceEventSession.CaptureState on the CLR rundown provider
 * in the user session, an enable with the periodic keywords, then
 * EVENT_CONTROL_CODE_CAPTURE_STATE with them (plan_periodic_rundown).  The
 * enable leaves the provider on in the user session, so the final
 * rundown's DCEnd events are there too. */
static int clr_capture_state(struct capture_armed *a, const struct collection_session *s)
{
  struct controller *ctl = a->env->ctl;
  struct plan_provider p;
  int rc;
  memset(&p, 0, sizeof(p));
  p.guid = bi_guid_clr_rundown;
  snprintf(p.name, sizeof(p.name), "ClrRundown");
  p.origin = "periodic rundown";
  p.level = 5; /* Verbose: the method events are Verbose ("Method ETW Events") */
  p.match_any = a->plan->periodic_rundown.clr_keywords;
  p.control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  if ((rc = ctl->ops->enable_provider(ctl, s->handle, &p, a->c->params_version)) != 0)
    return rc;
  p.control_code = PLAN_CONTROL_CAPTURE_STATE;
  return ctl->ops->enable_provider(ctl, s->handle, &p, a->c->params_version);
}

/* The kernel part on the group mask: the plan's kernel rundown session,
 * started and stopped at once, into X.kernelRundown.<n>.etl beside the
 * ring or segment X.etl, merged with it (a sibling by PerfView's names).
 * Only the newest PERIODIC_RUNDOWN_FILES_KEPT (32) are kept, the older
 * ones deleted: a ring holds only its most recent window, and a process
 * alive in it is in a rundown taken during the window or in the last one
 * before it, so the newest 32 name what a ring of up to 31 periods holds
 * (docs/win32-contract.md §8.5), and a capture of any length leaves at
 * most 32 of them for its merge (ETL_MERGE_MAX_INPUTS, 64).  A segment's
 * files go with that segment's merge, which deletes them. */
static void kernel_rundown_session(struct capture_armed *a)
{
  struct plan_session s;
  struct rundown_result rr;
  char file[CONTROLLER_PATH_MAX];
  unsigned n = a->rundowns + 1;
  size_t i;
  for (i = 0; i < a->plan->session_count; i++)
    if (a->plan->sessions[i].role == PLAN_ROLE_KERNEL_RUNDOWN)
      break;
  if (i == a->plan->session_count ||
      periodic_rundown_file_name(a->plan->data_file, n, file, sizeof(file)) != 0)
    return;
  a->rundowns = n;
  s = a->plan->sessions[i];
  s.file = file;
  rundown_kernel(a->env, &s, &rr);
  periodic_rundown_files_written(&a->kept, a->plan->data_file, n);
}

/* A rundown into the running capture (/RundownPeriodSec, struct
 * plan_periodic_rundown): the CLR's in the user session, the kernel's by
 * the route. */
static void rundown_now(struct capture_armed *a)
{
  struct controller *ctl = a->env->ctl;
  const struct plan_periodic_rundown *r = &a->plan->periodic_rundown;
  size_t i;
  char detail[256];
  for (i = 0; i < a->c->count; i++) {
    const struct collection_session *s = &a->c->sessions[i];
    int rc = 0;
    if (!s->running || !s->plan)
      continue;
    if (s->role == PLAN_ROLE_USER && r->clr_keywords)
      rc = clr_capture_state(a, s);
    else if (s->role == PLAN_ROLE_KERNEL && r->kernel == PLAN_PERIODIC_KERNEL_CAPTURE_STATE)
      rc = controller_kernel_capture_state(ctl, s->handle, s->plan, a->c->params_version);
    if (rc)
      log_warn("periodic rundown into '%s': %s", s->name,
               controller_error_text(ctl, detail, sizeof(detail)));
  }
  if (r->kernel == PLAN_PERIODIC_KERNEL_SESSION)
    kernel_rundown_session(a);
  log_info("rundown recorded into the capture (/RundownPeriodSec)");
}

/* --- segments -------------------------------------------------------------- */

/* X.etl -> X.<YYYYMMDDTHHMMSSZ>.etl for the segment that begins at `ft`;
 * a name taken already (two segments in one second) gets -2, -3, ... */
static int segment_name(const struct capture_armed *a, int64_t ft, char *out, size_t cap)
{
  struct civil_time t;
  size_t len = path_stem_len(a->base, ".etl");
  int64_t size;
  unsigned n;
  filetime_to_civil(ft, &t);
  for (n = 1; n < 100; n++) {
    char zip[CONTROLLER_PATH_MAX + 8], suffix[8] = "";
    int w;
    if (n > 1)
      snprintf(suffix, sizeof(suffix), "-%u", n);
    w = snprintf(out, cap, "%.*s.%04d%02u%02uT%02u%02u%02uZ%s.etl", (int)len, a->base, t.year,
                 t.month, t.day, t.hour, t.minute, t.second, suffix);
    if (w < 0 || (size_t)w >= cap)
      return ETWCAP_E_RANGE;
    snprintf(zip, sizeof(zip), "%s.zip", out);
    if (a->env->file_size(a->env->ctx, out, &size) != 0 &&
        a->env->file_size(a->env->ctx, zip, &size) != 0)
      return 0;
  }
  return ETWCAP_E_EXIST;
}

int capture_armed_first_segment(struct capture_armed *a, char *out, size_t cap)
{
  a->segment_ms = a->env->now_ms(a->env->ctx);
  return segment_name(a, a->env->utc_now(a->env->ctx), out, cap);
}

struct found_segments {
  const char *dir, *stem; /* the folder, and "X." */
  size_t stem_len;
  struct segment list[SEGMENTS_MAX];
  char *paths[SEGMENTS_MAX];
  size_t count;
  const struct collection_env *env;
};

/* 1 when the n bytes at q are what segment_name puts between the 'Z' and
 * ".etl": nothing, or "-2" to "-99". */
static int segment_suffix_ok(const char *q, size_t n)
{
  if (n == 0)
    return 1;
  if (n < 2 || n > 3 || q[0] != '-' || q[1] < '1' || q[1] > '9' || (n == 2 && q[1] == '1'))
    return 0;
  return n == 2 || (q[2] >= '0' && q[2] <= '9');
}

/* "X.YYYYMMDDTHHMMSSZ[-N].etl.zip", as segment_name and the background
 * zip name it: its start time, or 0 if not ours.  Retention deletes what
 * this accepts, so any other name in the folder (X.<stamp>Z.old.etl.zip,
 * a copy the user made) is left alone. */
static int64_t segment_start(const char *name, const char *stem, size_t stem_len)
{
  struct civil_time t;
  const char *p = name + stem_len;
  char digits[16];
  size_t len = strlen(name);
  if (strncmp(name, stem, stem_len) != 0 || len < stem_len + 16 + 8 ||
      !str_ends_with_case(name, ".etl.zip") || p[8] != 'T' || p[15] != 'Z' ||
      !segment_suffix_ok(p + 16, len - stem_len - 16 - 8))
    return 0;
  memcpy(digits, p, 8);
  memcpy(digits + 8, p + 9, 6);
  digits[14] = '\0';
  if (strspn(digits, "0123456789") != 14)
    return 0;
  memset(&t, 0, sizeof(t));
  t.second = (unsigned)atoi(digits + 12);
  digits[12] = '\0';
  t.minute = (unsigned)atoi(digits + 10);
  digits[10] = '\0';
  t.hour = (unsigned)atoi(digits + 8);
  digits[8] = '\0';
  t.day = (unsigned)atoi(digits + 6);
  digits[6] = '\0';
  t.month = (unsigned)atoi(digits + 4);
  digits[4] = '\0';
  t.year = atoi(digits);
  return filetime_from_civil(&t);
}

static int collect_segment(void *ctx, const char *name)
{
  struct found_segments *f = ctx;
  char path[CONTROLLER_PATH_MAX], *text = NULL, why[256];
  int64_t start = segment_start(name, f->stem, f->stem_len), size = 0;
  size_t len;
  int w;
  if (!start || f->count == SEGMENTS_MAX)
    return 0;
  /* A name too long to join to the folder is skipped: cut short, the
   * path would name another file, which retention would delete. */
  w = snprintf(path, sizeof(path), "%s%s", f->dir, name);
  if (w < 0 || (size_t)w >= sizeof(path) || f->env->file_size(f->env->ctx, path, &size) != 0)
    return 0;
  if (!(f->paths[f->count] = etwcap_strdup(path)))
    return ETWCAP_E_NOMEM;
  f->list[f->count].closed = start;
  f->list[f->count].bytes = (uint64_t)size;
  /* A segment that holds a fire says so in its manifest. */
  f->list[f->count].fired =
      zip_member_text(path, "etwcap-capture.json", 1u << 20, &text, &len, why, sizeof(why)) == 0 &&
      strstr(text, "\"trigger\": {") != NULL;
  etwcap_free(text);
  f->count++;
  return 0;
}

static int by_start(const void *x, const void *y)
{
  int64_t a = ((const struct segment *)x)->closed, b = ((const struct segment *)y)->closed;
  return a < b ? -1 : a > b;
}

/* The retention limits over every segment of X in its folder, this
 * capture's and earlier ones'. */
static void apply_retention(struct capture_armed *a)
{
  static struct found_segments f; /* large; main thread only */
  const struct qualifier_values *q = &a->cli->q;
  struct retention r = { q->keep_segments, q->keep_days, q->max_disk_mb };
  char dir[CONTROLLER_PATH_MAX], stem[CONTROLLER_PATH_MAX];
  int doomed[SEGMENTS_MAX];
  size_t i, j, dir_len = path_dir_len(a->base), base_len = path_stem_len(a->base, ".etl");
  if (!r.keep_segments && !r.keep_days && !r.max_disk_mb)
    return;
  memset(&f, 0, sizeof(f));
  snprintf(dir, sizeof(dir), "%.*s", (int)dir_len, a->base);
  snprintf(stem, sizeof(stem), "%.*s.", (int)(base_len - dir_len), a->base + dir_len);
  f.dir = dir;
  f.stem = stem;
  f.stem_len = strlen(stem);
  f.env = a->env;
  os_dir_list(dir_len ? dir : ".", collect_segment, &f);
  /* Sort the paths with their segments: an index sort keeps them paired. */
  for (i = 1; i < f.count; i++)
    for (j = i; j > 0 && by_start(&f.list[j - 1], &f.list[j]) > 0; j--) {
      struct segment s = f.list[j];
      char *p = f.paths[j];
      f.list[j] = f.list[j - 1];
      f.paths[j] = f.paths[j - 1];
      f.list[j - 1] = s;
      f.paths[j - 1] = p;
    }
  retention_doomed(f.list, f.count, &r, a->env->utc_now(a->env->ctx), doomed);
  for (i = 0; i < f.count; i++) {
    if (doomed[i]) {
      if (os_remove(f.paths[i]) == 0) {
        log_info("deleted the segment '%s' (/KeepSegments, /KeepDays, /MaxDiskMB)", f.paths[i]);
        if (a->cli->q.event_log)
          collection_env_report(a->env, OPERATOR_SEGMENT_DELETED,
                                "etwcap deleted the segment %s (retention)", f.paths[i]);
      } else
        log_warn("cannot delete the segment '%s'", f.paths[i]);
    }
    etwcap_free(f.paths[i]);
  }
}

/* A background capture is written: the operators hear of it, and a
 * rotating capture applies its retention. */
static void written(void *ctx, const char *zip)
{
  struct capture_armed *a = ctx;
  if (a->cli->q.event_log)
    collection_env_report(a->env,
                          a->segments ? OPERATOR_SEGMENT_WRITTEN : OPERATOR_SNAPSHOT_WRITTEN,
                          "etwcap wrote %s", zip);
  if (a->segments)
    apply_retention(a);
}

/* Closes the segment being written and goes on in the next: each session's
 * file switched (ControlTrace UPDATE) and a kernel session's events put
 * back, the closed one's kernel and CLR rundown (each segment names its
 * processes, images and methods on its own: docs/win32-contract.md §4.7),
 * its merge in the background. */
static void rotate(struct capture_armed *a)
{
  char name[CONTROLLER_PATH_MAX];
  struct controller *ctl = a->env->ctl;
  struct plan next, closed;
  size_t i, j;
  background_wait(&a->job);
  if (segment_name(a, a->env->utc_now(a->env->ctx), name, sizeof(name)) != 0 ||
      capture_cmd_plan(a->env, a->cli, "collect", name, a->engine, &next) != 0) {
    log_error("cannot name the next segment after '%s'; the capture goes on in it",
              a->plan->data_file);
    a->segment_ms = a->env->now_ms(a->env->ctx);
    return;
  }
  closed = *a->plan;
  *a->plan = next;
  for (i = 0; i < a->c->count; i++) {
    struct collection_session *s = &a->c->sessions[i];
    char detail[160];
    if (!s->running || !s->plan || !s->file[0])
      continue;
    for (j = 0; j < a->plan->session_count; j++)
      if (!strcmp(a->plan->sessions[j].name, s->name))
        break;
    if (j == a->plan->session_count || !a->plan->sessions[j].file)
      continue;
    if (ctl->ops->switch_file(ctl, &a->plan->sessions[j], s->name,
                              a->plan->sessions[j].file) != 0) {
      log_error("cannot switch '%s' to '%s' (%s); it goes on writing '%s'", s->name,
                a->plan->sessions[j].file, controller_error_text(ctl, detail, sizeof(detail)),
                s->file);
      continue;
    }
    snprintf(s->file, sizeof(s->file), "%s", a->plan->sessions[j].file);
    s->plan = &a->plan->sessions[j];
    /* UPDATE left a kernel session only the groups of the EnableFlags it
     * carried (ControlTraceW; docs/win32-contract.md §4.5-§4.6). */
    collection_kernel_put_back(a->c, s);
  }
  log_info("segment '%s' closed; the capture goes on in '%s'", closed.data_file,
           a->plan->data_file);
  capture_cmd_rundown(a->c, &closed);
  a->job.written = written;
  a->job.written_ctx = a;
  background_finish(&a->job, closed.data_file, a->segment_fired ? &a->segment_fire.t : NULL,
                    a->log, a->cli->command_line);
  a->segment_fired = 0;
  a->segment_ms = a->env->now_ms(a->env->ctx);
  plan_release(&closed);
}

void capture_armed_turn(struct capture_armed *a)
{
  int64_t size;
  if (!a->c)
    return;
  if (a->rundown_period_ms && elapsed_ms(a, a->rundown_ms) >= (int64_t)a->rundown_period_ms) {
    rundown_now(a);
    a->rundown_ms = a->env->now_ms(a->env->ctx);
  }
  if (!a->segments)
    return;
  if ((a->segment_sec > 0 && elapsed_ms(a, a->segment_ms) >= a->segment_sec * 1000) ||
      (a->segment_mb > 0 &&
       a->env->file_size(a->env->ctx, a->plan->data_file, &size) == 0 &&
       size >= a->segment_mb * 1048576))
    rotate(a);
}

/* --- fires ----------------------------------------------------------------- */

int capture_armed_fire(struct capture_armed *a, const struct manifest_trigger *fired)
{
  if (a->segments) {
    manifest_trigger_keep(&a->segment_fire, fired);
    a->segment_fired = 1;
    log_info("%s fired: it marks the segment '%s', which retention keeps; still armed",
             fired->name, a->plan->data_file);
    return 0;
  }
  if (a->snapshots && (uint64_t)elapsed_ms(a, a->snapshot_ms) < a->cooldown_ms) {
    log_info("%s fired %.1f s after the last snapshot, within /SnapshotCooldownSec: no "
             "snapshot; still armed",
             fired->name, (double)elapsed_ms(a, a->snapshot_ms) / 1000.0);
    return 0;
  }
  take_snapshot(a, fired);
  return a->snapshot_max && a->snapshots >= a->snapshot_max;
}

const struct manifest_trigger *capture_armed_segment_fire(const struct capture_armed *a)
{
  return a->segments && a->segment_fired ? &a->segment_fire.t : NULL;
}

void capture_armed_finish(struct capture_armed *a)
{
  background_wait(&a->job);
}

void capture_armed_retain(struct capture_armed *a)
{
  if (a->segments)
    apply_retention(a);
}
