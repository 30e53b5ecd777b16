/* The wait between start and stop (see collection.h): one loop polling
 * every way a capture can end, and the status line. */
#include "src/capture/collection.h"

#include "etw/event/keywords.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"
#include "src/capture/session_record.h"
#include "src/os/operator_log.h"

#include <stdio.h>
#include <string.h>

const char *collection_end_text(const struct collection_wait_result *r, char *buf, size_t size)
{
  switch (r->end) {
  case COLLECTION_END_KEY_STOP:
    snprintf(buf, size, "S pressed");
    break;
  case COLLECTION_END_KEY_ABORT:
    snprintf(buf, size, "A pressed (abort)");
    break;
  case COLLECTION_END_SIGNAL:
    snprintf(buf, size, "%s", console_signal_name(r->signal));
    break;
  case COLLECTION_END_STOP_REQUEST:
    snprintf(buf, size, "'etwcap stop' from another process");
    break;
  case COLLECTION_END_ABORT_REQUEST:
    snprintf(buf, size, "'etwcap abort' from another process");
    break;
  case COLLECTION_END_TRIGGER:
    snprintf(buf, size, "trigger %s fired%s%s", r->trigger.name ? r->trigger.name : "?",
             r->trigger.detail && *r->trigger.detail ? ": " : "",
             r->trigger.detail ? r->trigger.detail : "");
    break;
  case COLLECTION_END_SESSIONS_GONE:
    snprintf(buf, size, "the sessions were stopped by another program");
    break;
  case COLLECTION_END_DISK_LOW:
    snprintf(buf, size, "the disk is nearly full");
    break;
  default:
    snprintf(buf, size, "unknown");
  }
  return buf;
}

static void format_mb(char *buf, size_t size, int64_t bytes)
{
  double mb = (double)bytes / 1048576.0;
  if (mb >= 10240.0)
    snprintf(buf, size, "%.1f GB", mb / 1024.0);
  else
    snprintf(buf, size, "%.1f MB", mb);
}

/* "00:01:23  etwcapKernel 12.3 MB lost 0 | etwcap 4.5 MB lost 0 | 80.1 GB free" */
static void status_text(const struct collection *c, uint64_t elapsed_ms, uint64_t free_bytes,
                        char *buf, size_t size)
{
  unsigned long s = (unsigned long)(elapsed_ms / 1000);
  size_t i, n;
  n = (size_t)snprintf(buf, size, "%02lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
  for (i = 0; i < c->count && n < size; i++) {
    const struct collection_session *cs = &c->sessions[i];
    int64_t bytes = 0;
    char mb[32];
    if (cs->file[0])
      c->env->file_size(c->env->ctx, cs->file, &bytes);
    format_mb(mb, sizeof(mb), bytes);
    n += (size_t)snprintf(buf + n, size - n, "%s%s %s lost %lu", i ? " | " : "  ", cs->name, mb,
                          (unsigned long)(cs->has_status ? cs->status.events_lost : 0));
    if (!cs->running && n < size)
      n += (size_t)snprintf(buf + n, size - n, " (stopped)");
  }
  if (free_bytes && n < size) {
    char mb[32];
    format_mb(mb, sizeof(mb), (int64_t)free_bytes);
    snprintf(buf + n, size - n, " | %s free", mb);
  }
}

/* Queries each running session; returns how many still run. */
static size_t refresh(struct collection *c, uint64_t now)
{
  struct controller *ctl = c->env->ctl;
  int64_t now_ft = c->env->utc_now(c->env->ctx);
  size_t i, running = 0;
  for (i = 0; i < c->count; i++) {
    struct collection_session *cs = &c->sessions[i];
    struct controller_status st;
    int rc;
    if (!cs->running)
      continue;
    rc = ctl->ops->query(ctl, cs->name, &st);
    if (rc == 0) {
      cs->status = st;
      cs->has_status = 1;
      capture_health_observe(&c->health, cs->name, now, now_ft, &st);
      running++;
    } else if (rc == ETWCAP_E_NO_SESSION) {
      cs->running = 0;
      log_warn("the session '%s' is no longer running: another program stopped it", cs->name);
    } else {
      running++; /* cannot tell: assume it still runs */
    }
  }
  return running;
}

/* The kernel session's mask for the health check: the EnableFlags the plan
 * asked.  Where the collection reads back what Windows applied (the group
 * mask, after start), it goes in here as asked/applied words with
 * applied_known set; until then the check has nothing to compare. */
/* The kernel session's mask for the health check: the group mask asked and,
 * where Windows answered the read-back at start, the one it applied
 * (collection_start fills cs->kernel_mask).  The NT Kernel Logger has no
 * group mask: its classic EnableFlags are shown, applied unknown. */
static void health_kernel_mask_fill(const struct collection_session *cs,
                                    struct capture_health_mask *m)
{
  const struct collection_kernel_mask *km = &cs->kernel_mask;
  memset(m, 0, sizeof(*m));
  if (cs->role != PLAN_ROLE_KERNEL || !cs->plan)
    return;
  if (km->readback == COLLECTION_MASK_NOT_KERNEL) {
    m->words = 1;
    m->asked[0] = cs->plan->enable_flags;
    return;
  }
  m->words = PLAN_GROUP_MASK_WORDS;
  memcpy(m->asked, km->asked, sizeof(m->asked));
  /* Only a read-back that proves something is compared: NO_QUERY and
   * INFORMATIONAL (the System Providers route) leave applied unknown. */
  if (km->readback == COLLECTION_MASK_READ) {
    memcpy(m->applied, km->applied, sizeof(m->applied));
    m->applied_known = 1;
  }
}

static enum capture_health_kind health_kind(enum plan_role role)
{
  switch (role) {
  case PLAN_ROLE_KERNEL:
    return CAPTURE_HEALTH_KERNEL;
  case PLAN_ROLE_TRIGGER:
    return CAPTURE_HEALTH_TRIGGER;
  case PLAN_ROLE_RUNDOWN:
  case PLAN_ROLE_KERNEL_RUNDOWN:
    return CAPTURE_HEALTH_RUNDOWN;
  case PLAN_ROLE_USER:
  case PLAN_ROLE_HEAP:
    break;
  }
  return CAPTURE_HEALTH_USER;
}

/* The sessions the health check watches, as the plan made them. */
static void health_begin(struct collection *c, uint64_t start)
{
  size_t i;
  capture_health_init(&c->health, start);
  for (i = 0; i < c->count; i++) {
    const struct collection_session *cs = &c->sessions[i];
    struct capture_health_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.name = cs->name;
    spec.kind = health_kind(cs->role);
    spec.in_memory = (cs->log_file_mode & PLAN_BUFFERING_MODE) != 0;
    if (cs->plan) {
      spec.flush_timer_sec = cs->plan->flush_timer_sec;
      spec.busy = (cs->plan->kernel_keywords &
                   (KW_KERNEL_CONTEXTSWITCH | KW_KERNEL_DISPATCHER | KW_KERNEL_PROFILE)) != 0;
    }
    health_kernel_mask_fill(cs, &spec.mask);
    capture_health_add(&c->health, &spec);
  }
}

static void health_turn(struct collection *c, const struct collection_wait_options *o,
                        uint64_t now)
{
  size_t i;
  if (o->trigger_events)
    for (i = 0; i < c->count; i++)
      if (c->sessions[i].role == PLAN_ROLE_TRIGGER)
        capture_health_delivered(&c->health, c->sessions[i].name,
                                 c->env->utc_now(c->env->ctx), *o->trigger_events);
  capture_health_tick(&c->health, now);
}

/* Each health warning not reported yet to the Application log (/EventLog);
 * `reported` counts them per session. */
static void report_health(const struct collection *c, size_t *reported)
{
  size_t i;
  for (i = 0; i < c->health.count; i++) {
    const struct capture_health_session *s = &c->health.sessions[i];
    for (; reported[i] < s->warning_count; reported[i]++)
      collection_env_report(c->env, OPERATOR_HEALTH_PROBLEM, "etwcap: session '%s': %s",
                            s->name, s->warnings[reported[i]]);
  }
}

/* Bytes the circular files may still add. */
static uint64_t still_to_grow(const struct collection *c)
{
  uint64_t n = 0;
  size_t i;
  for (i = 0; i < c->count; i++) {
    const struct collection_session *cs = &c->sessions[i];
    int64_t bytes = 0;
    uint64_t max = (uint64_t)cs->maximum_file_size_mb * 1024 * 1024;
    if (!cs->running || !cs->file[0] || !max)
      continue;
    c->env->file_size(c->env->ctx, cs->file, &bytes);
    if ((uint64_t)bytes < max)
      n += max - (uint64_t)bytes;
  }
  return n;
}

static int requested(const struct collection_wait_options *o, enum collection_end *end)
{
  char request[32];
  if (!o->request_file)
    return 0;
  session_request_take(o->request_file, request, sizeof(request));
  if (!request[0])
    return 0;
  if (str_caseeq(request, "abort")) {
    *end = COLLECTION_END_ABORT_REQUEST;
    return 1;
  }
  if (str_caseeq(request, "snapshot")) {
    if (o->snapshot)
      o->snapshot(o->snapshot_ctx);
    else
      log_warn("'etwcap snapshot' asked for a snapshot, but this capture keeps no ring in "
               "memory (/InMemoryCircularBuffer): it goes on as it was");
    return 0;
  }
  *end = COLLECTION_END_STOP_REQUEST;
  return 1;
}

void collection_wait(struct collection *c, const struct collection_wait_options *o,
                     struct collection_wait_result *r)
{
  const struct collection_env *env = c->env;
  uint64_t start = env->now_ms(env->ctx);
  uint64_t last_query = 0, last_disk = 0, last_log = 0, free_bytes = 0;
  int queried = 0, disk_checked = 0, warned_disk = 0, drawn = 0;
  size_t reported[CAPTURE_HEALTH_MAX_SESSIONS] = { 0 };
  char line[1024];

  memset(r, 0, sizeof(*r));
  health_begin(c, start);
  if (o->console)
    fprintf(o->console, "Collecting. Press S to stop and write the capture, A to abort%s%s.\n",
            o->ends_also ? " " : "", o->ends_also ? o->ends_also : "");
  for (;;) {
    uint64_t now = env->now_ms(env->ctx), elapsed = now - start;
    enum console_signal sig = console_signal_pending();
    r->elapsed_ms = elapsed;
    if (sig != CONSOLE_SIGNAL_NONE) {
      r->end = COLLECTION_END_SIGNAL;
      r->signal = sig;
      break;
    }
    if (o->keyboard) {
      int key = console_read_key();
      if (key == 's' || key == 'S') {
        r->end = COLLECTION_END_KEY_STOP;
        break;
      }
      if (key == 'a' || key == 'A') {
        r->end = COLLECTION_END_KEY_ABORT;
        break;
      }
    }
    if (requested(o, &r->end))
      break;
    if (o->should_stop && o->should_stop(o->should_stop_ctx, elapsed, &r->trigger)) {
      r->end = COLLECTION_END_TRIGGER;
      break;
    }
    if (!queried || now - last_query >= COLLECTION_QUERY_MS) {
      queried = 1;
      last_query = now;
      if (c->count && refresh(c, now) == 0) {
        r->end = COLLECTION_END_SESSIONS_GONE;
        break;
      }
      health_turn(c, o, now);
      if (o->report_health)
        report_health(c, reported);
    }
    if (o->disk_path && (!disk_checked || now - last_disk >= COLLECTION_DISK_CHECK_MS)) {
      disk_checked = 1;
      last_disk = now;
      if (env->free_disk(env->ctx, o->disk_path, &free_bytes) == 0) {
        uint64_t grow = still_to_grow(c);
        if (free_bytes < COLLECTION_DISK_FLOOR_BYTES) {
          log_error("only %llu MB free on the volume of '%s': stopping now to keep room for "
                    "the merge",
                    (unsigned long long)(free_bytes / 1048576), o->disk_path);
          r->end = COLLECTION_END_DISK_LOW;
          break;
        }
        if (!warned_disk && free_bytes < grow + COLLECTION_DISK_FLOOR_BYTES) {
          warned_disk = 1;
          log_warn("the circular files may still grow by %llu MB but only %llu MB are free on "
                   "the volume of '%s': the capture stops if the disk fills",
                   (unsigned long long)(grow / 1048576),
                   (unsigned long long)(free_bytes / 1048576), o->disk_path);
        }
      } else {
        free_bytes = 0;
      }
    }
    if (o->console && (!drawn || now - last_log >= 1000)) {
      status_text(c, elapsed, free_bytes, line, sizeof(line));
      fprintf(o->console, "\r%-78.200s", line);
      fflush(o->console);
      drawn = 1;
      last_log = now;
    } else if (!o->console && now - last_log >= COLLECTION_STATUS_LOG_SEC * 1000u) {
      if (drawn) {
        status_text(c, elapsed, free_bytes, line, sizeof(line));
        log_info("collecting: %s", line);
      }
      drawn = 1;
      last_log = now;
    }
    env->sleep_ms(env->ctx, COLLECTION_POLL_MS);
  }
  if (o->console && drawn)
    fputc('\n', o->console);
  {
    char why[300];
    status_text(c, r->elapsed_ms, free_bytes, line, sizeof(line));
    log_info("collection ends (%s): %s", collection_end_text(r, why, sizeof(why)), line);
  }
}
