/* Starting and stopping a capture's sessions (see collection.h).  The wait
 * loop is in collection_wait.c. */
#include "src/capture/collection.h"

#include "etw/session/eventsource_registry.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_PROFILE_INTERVAL 10000u /* 1 ms, Windows' default */

void collection_init(struct collection *c, const struct collection_env *env)
{
  memset(c, 0, sizeof(*c));
  c->env = env;
  c->params_version = 2;
  container_capture_init(&c->containers, env ? env->containers : NULL);
}

static int starts_now(const struct plan_session *s)
{
  return s->when == PLAN_AT_START && (s->role == PLAN_ROLE_KERNEL || s->role == PLAN_ROLE_USER ||
                                      s->role == PLAN_ROLE_TRIGGER || s->role == PLAN_ROLE_HEAP);
}

/* Where an in-memory (buffering) session's events go at stop: PerfView's
 * names, X.kernel.etl and X.etl. */
static void in_memory_file(const struct plan *plan, const struct plan_session *s, char *out,
                           size_t size)
{
  const char *df = plan->data_file;
  if (s->role != PLAN_ROLE_KERNEL) {
    snprintf(out, size, "%s", df);
    return;
  }
  snprintf(out, size, "%.*s.kernel.etl", (int)path_stem_len(df, ".etl"), df);
}

static void session_file(const struct plan *plan, const struct plan_session *s, char *out,
                         size_t size)
{
  if (s->file)
    snprintf(out, size, "%s", s->file);
  else if (s->log_file_mode & PLAN_BUFFERING_MODE)
    in_memory_file(plan, s, out, size);
  else
    out[0] = '\0';
}

static void warn_dropped(struct collection *c, unsigned what, const char *fmt, ...)
    LOG_PRINTF(3, 4);

static void warn_dropped(struct collection *c, unsigned what, const char *fmt, ...)
{
  va_list ap;
  char text[1024];
  va_start(ap, fmt);
  vsnprintf(text, sizeof(text), fmt, ap);
  va_end(ap);
  c->dropped |= what;
  log_warn("%s", text);
  if (c->warning_count < sizeof(c->warnings) / sizeof(c->warnings[0]))
    snprintf(c->warnings[c->warning_count++], sizeof(c->warnings[0]), "%s", text);
}

/* --- checks before starting ---------------------------------------------- */

int collection_check_disk(const struct collection_env *env, const struct plan *plan, char *why,
                          size_t why_size)
{
  uint64_t need = COLLECTION_DISK_FLOOR_BYTES, free_bytes = 0, reclaim = 0;
  size_t i;
  int sequential = 0;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    int64_t existing = 0;
    char file[CONTROLLER_PATH_MAX];
    if (!starts_now(s))
      continue;
    session_file(plan, s, file, sizeof(file));
    if (!file[0])
      continue;
    if (s->maximum_file_size_mb)
      need += (uint64_t)s->maximum_file_size_mb * 1024 * 1024;
    else if (s->log_file_mode & PLAN_BUFFERING_MODE)
      need += (uint64_t)s->minimum_buffers * s->buffer_size_kb * 1024;
    else
      sequential = 1;
    /* A file of an earlier capture under the same name is replaced. */
    if (env->file_size(env->ctx, file, &existing) == 0 && existing > 0)
      reclaim += (uint64_t)existing;
  }
  if (sequential)
    need += COLLECTION_SEQUENTIAL_MIN_BYTES;
  need = need > reclaim ? need - reclaim : 0;
  if (env->free_disk(env->ctx, plan->data_file, &free_bytes) != 0) {
    log_warn("cannot tell the free space on the volume of '%s'; starting anyway",
             plan->data_file);
    return 0;
  }
  if (free_bytes < need) {
    snprintf(why, why_size,
             "not enough free disk for '%s': the circular files need up to %llu MB (with "
             "%llu MB kept free for the merge) but the volume has %llu MB free. Lower "
             "/CircularMB or choose a /DataFile on another volume.",
             plan->data_file, (unsigned long long)(need / (1024 * 1024)),
             (unsigned long long)(COLLECTION_DISK_FLOOR_BYTES / (1024 * 1024)),
             (unsigned long long)(free_bytes / (1024 * 1024)));
    return ETWCAP_E_NOSPC;
  }
  log_info("free disk: %llu MB on the volume of '%s' (the capture needs up to %llu MB)",
           (unsigned long long)(free_bytes / (1024 * 1024)), plan->data_file,
           (unsigned long long)(need / (1024 * 1024)));
  return 0;
}

static void exists_message(const char *name, char *why, size_t why_size)
{
  if (str_caseeq(name, "NT Kernel Logger"))
    snprintf(why, why_size,
             "the 'NT Kernel Logger' session is in use by another tool (PerfView, WPR, xperf, "
             "Process Monitor, ...). This Windows has no private kernel sessions, so etwcap "
             "needs it: stop that tool's trace first.");
  else
    snprintf(why, why_size,
             "a session named '%s' is already running: an earlier capture was not stopped (a "
             "'start' without 'stop', or a collect that was killed). Run 'etwcap stop' to "
             "finish it and keep its data, or 'etwcap abort' to discard it, then try again.",
             name);
}

int collection_check_free(const struct collection_env *env, const struct plan *plan, char *why,
                          size_t why_size)
{
  struct controller *ctl = env->ctl;
  size_t i;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    struct controller_status st;
    int rc;
    if (!starts_now(s))
      continue;
    rc = ctl->ops->query(ctl, s->name, &st);
    if (rc == 0) {
      exists_message(s->name, why, why_size);
      return ETWCAP_E_SESSION_EXISTS;
    }
    if (rc != ETWCAP_E_NO_SESSION && rc != ETWCAP_E_UNSUPPORTED) {
      char detail[160];
      log_warn("cannot ask Windows whether '%s' runs (%s); starting anyway", s->name,
               controller_error_text(ctl, detail, sizeof(detail)));
    }
  }
  return 0;
}

/* --- starting ------------------------------------------------------------ */

static int cancelled(void)
{
  enum console_signal sig = console_signal_pending();
  if (sig == CONSOLE_SIGNAL_NONE)
    return 0;
  log_error("%s while starting the capture: stopping the sessions already started",
            console_signal_name(sig));
  return 1;
}

/* Logs why a session did not start, in the words a user needs. */
static void start_failed(struct collection *c, const char *name, int rc)
{
  char detail[160], why[600];
  controller_error_text(c->env->ctl, detail, sizeof(detail));
  switch (rc) {
  case ETWCAP_E_ACCES:
    log_error("cannot start the session '%s' (%s): ETW needs Administrator rights. Run etwcap "
              "from an elevated prompt (Run as administrator) or as SYSTEM.",
              name, detail);
    break;
  case ETWCAP_E_SESSION_EXISTS:
    exists_message(name, why, sizeof(why));
    log_error("%s (%s)", why, detail);
    break;
  case ETWCAP_E_SESSION_LIMIT:
    /* StartTraceW: ERROR_NO_SYSTEM_RESOURCES is "more than the maximum
     * number of real-time/logger sessions" or too little memory for the
     * buffers (StartTraceW remarks). */
    log_error("Windows cannot start the session '%s' (%s): either no trace session slot is "
              "free (64 sessions, 8 of them system loggers, can run at once; 'etwcap "
              "listSessions' shows them) or there is not enough memory for its buffers (a "
              "smaller /BufferSizeMB or /CircularMB helps).",
              name, detail);
    break;
  case ETWCAP_E_RANGE:
    log_error("Windows rejected a parameter of the session '%s' (%s): 'etwcap plan' with the "
              "same options shows every value etwcap passed; please report it with that output.",
              name, detail);
    break;
  case ETWCAP_E_NOSPC:
    log_error("the disk is full: Windows cannot create the file of session '%s' (%s). Free "
              "some space or choose a /DataFile on another volume.",
              name, detail);
    break;
  default:
    log_error("cannot start the session '%s' (%s): %s", name, detail, etwcap_strerror(rc));
  }
}

/* `file` is the log file as ETW reported it at start ("" for none). */
static struct collection_session *add_session(struct collection *c, const struct plan *plan,
                                              const struct plan_session *s, const char *name,
                                              const char *file)
{
  struct collection_session *cs = &c->sessions[c->count++];
  memset(cs, 0, sizeof(*cs));
  cs->role = s->role;
  snprintf(cs->name, sizeof(cs->name), "%s", name);
  if (file && *file)
    snprintf(cs->file, sizeof(cs->file), "%s", file);
  else
    session_file(plan, s, cs->file, sizeof(cs->file));
  cs->log_file_mode = s->log_file_mode;
  cs->maximum_file_size_mb = s->maximum_file_size_mb;
  cs->running = 1;
  cs->plan = s;
  return cs;
}

/* The group mask a kernel session asked for, whatever its route: the
 * groups of its classic flags (plan_group_mask_of_flags), which the System
 * Providers' keywords map to one for one (the page's "legacy flags and
 * groups" column). */
static void asked_mask(const struct plan_session *s, uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  if (s->route == PLAN_ROUTE_GROUP_MASK)
    memcpy(mask, s->group_mask, PLAN_GROUP_MASK_WORDS * sizeof(mask[0]));
  else
    plan_group_mask_of_flags(s->enable_flags, mask);
}

/* What Windows applied, where it says (TraceQueryInformation is documented
 * from Windows 8, where system loggers, the only sessions with a group
 * mask, begin; the controller turns a missing or stub function into
 * UNSUPPORTED).  The result is kept in cs->kernel_mask for the health
 * report; returns 1 when a group asked for is missing (m->lost names it). */
static int read_back_mask(struct collection *c, struct collection_session *cs,
                          const struct plan_session *s)
{
  struct controller *ctl = c->env->ctl;
  struct collection_kernel_mask *m = &cs->kernel_mask;
  char names[512], detail[160];
  uint32_t any = 0;
  size_t w;
  asked_mask(s, m->asked);
  m->readback = COLLECTION_MASK_NO_QUERY;
  if (ctl->ops->query_group_mask(ctl, cs->handle, m->applied) != 0) {
    log_info("cannot read back the kernel group mask of '%s' (%s): the capture goes on "
             "unchecked",
             cs->name, controller_error_text(ctl, detail, sizeof(detail)));
    return 0;
  }
  if (s->route == PLAN_ROUTE_SYSTEM_PROVIDERS) {
    m->readback = COLLECTION_MASK_INFORMATIONAL;
    plan_group_mask_names(m->applied, names, sizeof(names));
    log_info("the kernel group mask of '%s' reads %s. On the System Providers route this is "
             "for information only: whether keyword enables show in it is not proven, so "
             "groups it lacks are not reported as missing",
             cs->name, names[0] ? names : "empty");
    return 0;
  }
  m->readback = COLLECTION_MASK_READ;
  for (w = 0; w < PLAN_GROUP_MASK_WORDS; w++) {
    m->lost[w] = m->asked[w] & ~m->applied[w];
    any |= m->lost[w];
  }
  return any != 0;
}

/* After the start: a group asked for and not applied is a warning naming it. */
static void check_mask_at_start(struct collection *c, struct collection_session *cs,
                                const struct plan_session *s)
{
  char names[512];
  if (!read_back_mask(c, cs, s))
    return;
  plan_group_mask_names(cs->kernel_mask.lost, names, sizeof(names));
  warn_dropped(c, COLLECTION_DROPPED_KERNEL_GROUPS,
               "Windows did not apply every kernel group asked for in '%s': %s are missing, so "
               "their events will not be in the trace",
               cs->name, names);
}

int collection_kernel_put_back(struct collection *c, struct collection_session *cs)
{
  struct controller *ctl = c->env->ctl;
  const struct plan_session *s = cs->plan;
  char names[512], detail[160], what[CAPTURE_HEALTH_TEXT_MAX];
  int rc;
  if (cs->role != PLAN_ROLE_KERNEL || !s ||
      (s->route != PLAN_ROUTE_GROUP_MASK && s->route != PLAN_ROUTE_SYSTEM_PROVIDERS))
    return 0;
  if ((rc = controller_kernel_on(ctl, cs->handle, s, c->params_version)) != 0) {
    log_error("cannot turn the kernel events of '%s' back on by the %s route after its switch "
              "to '%s' (%s): %s; this segment may have no kernel events",
              cs->name, plan_route_name(s->route), cs->file,
              controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
    return rc;
  }
  if (read_back_mask(c, cs, s)) {
    plan_group_mask_names(cs->kernel_mask.lost, names, sizeof(names));
    snprintf(what, sizeof(what), "lost %.120s at its switch to '%.120s'", names, cs->file);
    capture_health_remask(&c->health, cs->name, cs->kernel_mask.applied, what);
  } else if (cs->kernel_mask.readback == COLLECTION_MASK_READ) {
    capture_health_remask(&c->health, cs->name, cs->kernel_mask.applied, "");
  }
  return 0;
}

/* /CpuCounters before the start, as TraceEventProfileSources.Set: every
 * name must have been found in the machine's list (plan_cli), then each
 * source's interval is set machine-wide, then the list of sources to
 * sample, machine-wide too (handle 0): the setting is not the session's.
 * PerfView stops on any failure; so does etwcap, since the user asked for
 * exactly these counters. */
static int set_cpu_counters(struct collection *c, const struct plan_session *s)
{
  struct controller *ctl = c->env->ctl;
  struct plan_machine_source machine[PLAN_MAX_MACHINE_SOURCES];
  struct plan_profile_source list[PLAN_MAX_PROFILE_SOURCES];
  uint32_t ids[PLAN_MAX_PROFILE_SOURCES];
  char detail[1024];
  size_t i, count = 0;
  int rc;
  if (!s->profile_source_count)
    return 0;
  /* The names are looked up here, in the machine the capture runs on. */
  if ((rc = ctl->ops->query_profile_sources(ctl, machine, PLAN_MAX_MACHINE_SOURCES, &count)) !=
      0) {
    log_error("/CpuCounters: cannot read this machine's profile sources (%s): %s. Leave "
              "/CpuCounters out to collect without hardware counters.",
              controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
    return rc;
  }
  memcpy(list, s->profile_sources, s->profile_source_count * sizeof(*list));
  if ((rc = plan_resolve_profile_sources(list, s->profile_source_count, machine, count, detail,
                                         sizeof(detail))) != 0) {
    log_error("%s", detail);
    return rc;
  }
  for (i = 0; i < s->profile_source_count; i++) {
    const struct plan_profile_source *p = &list[i];
    if ((rc = ctl->ops->set_source_interval(ctl, p->id, p->interval)) != 0) {
      log_error("cannot set the interval of CPU counter %s (id %lu) to %lu (%s): %s", p->name,
                (unsigned long)p->id, (unsigned long)p->interval,
                controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
      return rc;
    }
    log_info("CPU counter %s (id %lu): a sample every %lu events", p->name, (unsigned long)p->id,
             (unsigned long)p->interval);
    ids[i] = p->id;
  }
  if ((rc = ctl->ops->set_profile_sources(ctl, ids, s->profile_source_count)) != 0)
    log_error("Windows refused the CPU counters for '%s' (%s): %s. Leave /CpuCounters out to "
              "collect without them.",
              s->name, controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
  return rc;
}

/* A kernel session: system loggers on Windows 8+, the NT Kernel Logger on
 * 7, as the plan says; never the NT Kernel Logger in place of a refused
 * system logger (that would take the one session other tools share). */
static int start_kernel(struct collection *c, const struct plan *plan,
                        const struct plan_session *s)
{
  struct controller *ctl = c->env->ctl;
  struct collection_session *cs;
  char detail[160], file[CONTROLLER_PATH_MAX];
  uint64_t handle = 0;
  int rc;

  if (s->needs_profile_privilege && (rc = ctl->ops->enable_profile_privilege(ctl)) != 0)
    warn_dropped(c, COLLECTION_DROPPED_PROFILE_PRIVILEGE,
                 "cannot enable SeSystemProfilePrivilege (%s): the trace may have no CPU "
                 "samples",
                 controller_error_text(ctl, detail, sizeof(detail)));
  if (s->profile_interval_100ns) {
    rc = ctl->ops->set_profile_interval(ctl, s->profile_interval_100ns);
    if (rc && s->profile_interval_100ns != DEFAULT_PROFILE_INTERVAL) {
      log_error("cannot set the CPU sampling interval to %.4f ms (%s): %s. Leave "
                "/CpuSampleMSec out to sample every 1 ms.",
                s->profile_interval_100ns / 10000.0,
                controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
      return rc;
    }
    if (rc)
      warn_dropped(c, COLLECTION_DROPPED_PROFILE_INTERVAL,
                   "cannot set the CPU sampling interval (%s): Windows keeps its current one",
                   controller_error_text(ctl, detail, sizeof(detail)));
    else
      c->profile_interval_100ns = s->profile_interval_100ns;
  }
  if ((rc = set_cpu_counters(c, s)) != 0)
    return rc;
  if (cancelled())
    return ETWCAP_E_CANCELLED;

  if ((rc = ctl->ops->start(ctl, s, &handle, file, sizeof(file))) != 0) {
    start_failed(c, s->name, rc);
    return rc;
  }
  cs = add_session(c, plan, s, s->name, file);
  cs->handle = handle;
  log_info("started kernel session '%s' -> %s (flags 0x%08X by %s, %lu MB pool, %s)", s->name,
           cs->file[0] ? cs->file : "(in memory)", (unsigned)s->enable_flags,
           plan_route_name(s->route),
           (unsigned long)((uint64_t)s->minimum_buffers * s->buffer_size_kb / 1024),
           (s->log_file_mode & (PLAN_FILE_MODE_CIRCULAR | PLAN_BUFFERING_MODE)) ? "circular"
                                                                              : "sequential");

  if (s->stack_id_count &&
      (rc = ctl->ops->set_stack_ids(ctl, handle, s->stack_ids, s->stack_id_count)) != 0)
    warn_dropped(c, COLLECTION_DROPPED_STACKS,
                 "Windows refused the kernel stack settings (%s): kernel events come without "
                 "call stacks",
                 controller_error_text(ctl, detail, sizeof(detail)));
  if ((rc = controller_kernel_on(ctl, handle, s, c->params_version)) != 0) {
    log_error("cannot turn on the kernel events of '%s' by the %s route (%s): %s", s->name,
              plan_route_name(s->route), controller_error_text(ctl, detail, sizeof(detail)),
              etwcap_strerror(rc));
    return rc;
  }
  if (s->route != PLAN_ROUTE_NT_KERNEL_LOGGER)
    check_mask_at_start(c, cs, s);
  if (s->stack_caching &&
      (rc = ctl->ops->set_stack_caching(ctl, handle, 1, s->stack_cache_size,
                                        s->stack_cache_buckets)) != 0)
    warn_dropped(c, COLLECTION_DROPPED_STACK_CACHING,
                 "Windows refused kernel stack caching (%s): /StackCompression is dropped and "
                 "kernel stacks are stored in full (larger files)",
                 controller_error_text(ctl, detail, sizeof(detail)));
  if (s->lbr_source_count &&
      (rc = ctl->ops->set_lbr(ctl, handle, s->lbr_filters, s->lbr_sources,
                              s->lbr_source_count)) != 0) {
    log_error("Windows refused last-branch recording on '%s' (%s): %s. Leave /LbrSources out "
              "to collect without it.",
              s->name, controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
    return rc;
  }
  return 0;
}

static const struct registry *registry_of(const struct collection_env *env)
{
  static struct registry system;
  if (env->registry)
    return env->registry;
  registry_system(&system);
  return &system;
}

/* EventSource arguments for processes that start after the enable, where
 * TraceEvent puts them (docs/win32-contract.md §6.1-§6.2), and before the
 * enable, as TraceEvent does (SetFilterDataForEtwSession precedes
 * EnableTraceEx2): an EventSource that registers between the two and reads
 * the registry then finds them (docs/win32-contract.md §6.4).  A failure
 * costs only those later processes' arguments: a warning. */
static void hand_off(struct collection *c, const struct plan_provider *p, uint64_t handle,
                     const char *session)
{
  int rc;
  if (!eventsource_registry_data(p))
    return;
  rc = eventsource_registry_put(registry_of(c->env), p, handle);
  if (rc == ETWCAP_E_NEEDS_WINDOWS)
    return; /* no registry here: nothing to hand off */
  c->provider_data_stored = 1; /* even a failed put may have made the key */
  if (rc)
    warn_dropped(c, COLLECTION_DROPPED_PROVIDER_DATA,
                 "cannot store the arguments of %s for processes that start later (HKLM\%s, "
                 "%s): only processes already running when '%s' started get them",
                 p->name, EVENTSOURCE_REGISTRY_BASE, etwcap_strerror(rc), session);
}

/* The enable the hand-off was for failed: nothing must point at it. */
static void take_back(struct collection *c, const struct plan_provider *p, uint64_t handle)
{
  int rc = eventsource_registry_drop(registry_of(c->env), p, handle);
  if (rc && rc != ETWCAP_E_NEEDS_WINDOWS)
    log_warn("cannot remove the stored arguments of %s from HKLM\%s (%s); 'etwcap abort' "
             "tries again",
             p->name, EVENTSOURCE_REGISTRY_BASE, etwcap_strerror(rc));
}

static size_t remove_provider_data(const struct collection_env *env, const char *const *names,
                                   size_t count, int prefix)
{
  size_t removed = 0;
  int rc = eventsource_registry_remove(registry_of(env), names, count, prefix, &removed);
  if (rc && rc != ETWCAP_E_NEEDS_WINDOWS)
    log_warn("cannot remove the EventSource arguments of '%s%s'%s from HKLM\%s (%s); 'etwcap "
             "abort' tries again",
             names[0], prefix ? "*" : "", count > 1 ? " and its other sessions" : "",
             EVENTSOURCE_REGISTRY_BASE, etwcap_strerror(rc));
  else if (removed)
    log_info("removed %lu stored EventSource argument set%s of '%s%s'%s",
             (unsigned long)removed, removed == 1 ? "" : "s", names[0], prefix ? "*" : "",
             count > 1 ? " and its other sessions" : "");
  return removed;
}

size_t collection_remove_provider_data(const struct collection_env *env, const char *name,
                                       int prefix)
{
  return remove_provider_data(env, &name, 1, prefix);
}

/* At stop, once every session is stopped (docs/win32-contract.md §6.5): one
 * walk of the Publishers key for all the capture's stopped sessions, and
 * only when this process stored a hand-off or stops sessions it knows from
 * a record (`stop` after `start`: whether `start` stored one is unknown). */
static void remove_capture_provider_data(struct collection *c)
{
  const char *names[PLAN_MAX_SESSIONS];
  size_t i, n = 0, adopted = 0;
  for (i = 0; i < c->count; i++) {
    if (c->sessions[i].running)
      continue; /* still running (its stop failed): 'abort' cleans up after it */
    names[n++] = c->sessions[i].name;
    adopted += !c->sessions[i].plan;
  }
  if (n && (c->provider_data_stored || adopted))
    remove_provider_data(c->env, names, n, 0);
  c->provider_data_stored = 0;
}

/* The EventSource session keyword for p, as TraceEvent's
 * FindFreeSessionKeyword takes it: the lowest of 44..47 that no session
 * enabling the provider holds in its MatchAllKeyword, so that two
 * controllers of one EventSource keep their per-session state apart.
 * When Windows cannot say which are held (a stub), the plan's bit; when all
 * four are held, the provider cannot take arguments for one more session. */
static int session_keyword(struct collection *c, const struct plan_provider *p, int *bit)
{
  struct controller *ctl = c->env->ctl;
  char detail[160];
  uint64_t in_use = 0;
  int rc = ctl->ops->query_provider_keywords(ctl, &p->guid, &in_use);
  *bit = PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT;
  if (rc) {
    log_info("cannot list the sessions that enable %s (%s): its arguments go with session "
             "keyword bit %d",
             p->name, controller_error_text(ctl, detail, sizeof(detail)), *bit);
    return 0;
  }
  if ((*bit = plan_session_keyword_free(in_use)) < 0) {
    log_warn("%s: four other sessions hold its session keywords (bits %d to %d), so it cannot "
             "take arguments for one more; stop one of them",
             p->name, PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT, PLAN_EVENTSOURCE_SESSION_KEYWORD_LAST);
    return controller_fail(ctl, ETWCAP_E_SESSION_LIMIT, "EnumerateTraceGuidsEx", 0,
                           "session keywords 44-47 held");
  }
  return 0;
}

/* Hands off and enables p (its arguments, if any, with a free session
 * keyword, kept in *bit; 0 when it has none). */
static int enable_one(struct collection *c, const struct plan_provider *p, uint64_t handle,
                      const char *session, uint8_t *bit)
{
  struct controller *ctl = c->env->ctl;
  struct plan_provider keyed;
  const struct plan_provider *use = p;
  int b, rc;
  *bit = 0;
  if (p->arg_count) {
    if ((rc = session_keyword(c, p, &b)) != 0)
      return rc;
    if ((rc = plan_provider_with_session_keyword(p, session, b, &keyed)) != 0)
      return rc;
    use = &keyed;
    *bit = (uint8_t)b;
  }
  hand_off(c, use, handle, session);
  if ((rc = ctl->ops->enable_provider(ctl, handle, use, c->params_version)) != 0)
    take_back(c, use, handle);
  if (use == &keyed)
    plan_provider_release_filters(&keyed);
  return rc;
}

/* A provider of the default set may fail to enable (already enabled by as
 * many sessions as Windows allows, on hosts with EDR agents or
 * autologgers): that costs its events, not the capture.  What the user
 * asked for by name (/Providers, /OnlyProviders) and what a trigger
 * listens to are essential. */
static int essential(const struct plan_provider *p)
{
  return p->origin && (!strcmp(p->origin, "/Providers") || !strcmp(p->origin, "/OnlyProviders") ||
                       !strcmp(p->origin, "trigger"));
}

static int start_user(struct collection *c, const struct plan *plan,
                      const struct plan_session *s)
{
  struct controller *ctl = c->env->ctl;
  struct collection_session *cs;
  char file[CONTROLLER_PATH_MAX];
  uint64_t handle = 0;
  size_t i;
  int rc = ctl->ops->start(ctl, s, &handle, file, sizeof(file));
  if (rc) {
    start_failed(c, s->name, rc);
    return rc;
  }
  cs = add_session(c, plan, s, s->name, file);
  cs->handle = handle;
  /* The trigger session as a system logger: the kernel events a trigger
   * watches (plan_trigger_session), by the same route as the kernel's. */
  if (s->route != PLAN_ROUTE_NONE) {
    if ((rc = controller_kernel_on(ctl, handle, s, c->params_version)) != 0) {
      char detail[160];
      log_error("cannot enable the kernel events of '%s' (%s): %s", s->name,
                controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
      return rc;
    }
    check_mask_at_start(c, cs, s);
  }
  log_info("started session '%s' -> %s (%lu providers, %lu MB pool, %s)", s->name,
           cs->file[0]                                 ? cs->file
           : (s->log_file_mode & PLAN_REAL_TIME_MODE) ? "(real time)"
                                                       : "(in memory)",
           (unsigned long)s->provider_count,
           (unsigned long)((uint64_t)s->minimum_buffers * s->buffer_size_kb / 1024),
           (s->log_file_mode & (PLAN_FILE_MODE_CIRCULAR | PLAN_BUFFERING_MODE)) ? "circular"
                                                                              : "sequential");
  for (i = 0; i < s->provider_count; i++) {
    const struct plan_provider *p = &s->providers[i];
    char why[1024];
    uint8_t bit;
    if (cancelled())
      return ETWCAP_E_CANCELLED;
    rc = enable_one(c, p, handle, s->name, &bit);
    if (i < COLLECTION_KEYWORD_PROVIDERS)
      cs->keyword_bits[i] = rc ? 0 : bit;
    if (!rc)
      continue;
    controller_enable_failure(ctl, p, rc, why, sizeof(why));
    if (essential(p) || rc == ETWCAP_E_ACCES) {
      log_error("cannot enable provider %s in '%s'", why, s->name);
      return rc;
    }
    warn_dropped(c, COLLECTION_DROPPED_PROVIDER, "provider %s is left out of '%s': %s", p->name,
                 s->name, why);
  }
  return 0;
}

/* The heap session, as PerfView's StartWindowsHeapSession (which has no
 * providers to enable: its extension block names what it traces). */
static int start_heap(struct collection *c, const struct plan *plan, const struct plan_session *s)
{
  int rc;
  if ((rc = start_user(c, plan, s)) != 0)
    return rc;
  if (!s->heap_exe[0])
    log_info("tracing the OS heap of process %lu", (unsigned long)s->heap_pid);
  return 0;
}

/* /OSHeapExe's TracingFlags, set last of all: the caller writes the
 * session record (which `stop` and `abort` put the value back from) as
 * soon as collection_start returns, so a capture killed before that leaves
 * the least time with the value set and nothing saying so. */
static int set_heap_flag(struct collection *c, const struct plan *plan)
{
  char why[1024];
  size_t i;
  int rc;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    if (s->role != PLAN_ROLE_HEAP || !s->heap_exe[0] || !starts_now(s))
      continue;
    if ((rc = heap_tracing_flag_set(registry_of(c->env), s->heap_exe, &c->heap_flag, why,
                                    sizeof(why))) != 0) {
      log_error("%s", why);
      return rc;
    }
    log_info("tracing the OS heap of %s processes started from now on", s->heap_exe);
  }
  return 0;
}

int collection_start(struct collection *c, const struct plan *plan)
{
  size_t i;
  int rc = 0;
  c->params_version = plan->enable_parameters_version ? plan->enable_parameters_version : 1;
  c->start_filetime = c->env->utc_now(c->env->ctx);
  c->start_ms = c->env->now_ms(c->env->ctx);
  for (i = 0; i < plan->session_count && !rc; i++) {
    const struct plan_session *s = &plan->sessions[i];
    if (!starts_now(s))
      continue;
    if (cancelled()) {
      rc = ETWCAP_E_CANCELLED;
      break;
    }
    rc = s->role == PLAN_ROLE_KERNEL ? start_kernel(c, plan, s)
         : s->role == PLAN_ROLE_HEAP ? start_heap(c, plan, s)
                                     : start_user(c, plan, s);
  }
  if (!rc && plan->packet_capture.on)
    rc = cancelled() ? ETWCAP_E_CANCELLED
                     : packet_capture_start(&c->packet, c->env, &plan->packet_capture);
  if (!rc)
    rc = set_heap_flag(c, plan);
  if (rc) {
    if (c->count)
      log_info("stopping the %lu session%s already started", (unsigned long)c->count,
               c->count == 1 ? "" : "s");
    collection_stop(c);
  }
  return rc;
}

void collection_adopt(struct collection *c, enum plan_role role, const char *name,
                      const char *file, uint32_t log_file_mode, uint32_t maximum_file_size_mb)
{
  struct collection_session *cs;
  if (c->count >= PLAN_MAX_SESSIONS)
    return;
  cs = &c->sessions[c->count++];
  memset(cs, 0, sizeof(*cs));
  cs->role = role;
  snprintf(cs->name, sizeof(cs->name), "%s", name);
  snprintf(cs->file, sizeof(cs->file), "%s", file ? file : "");
  cs->log_file_mode = log_file_mode;
  cs->maximum_file_size_mb = maximum_file_size_mb;
  cs->running = 1;
}

/* --- stopping ------------------------------------------------------------ */

/* The block PerfView sends with FLUSH is the session's own
 * (docs/win32-contract.md §4.4 rule 3): the plan's, or, for a session known
 * from a record only, what a QUERY says it runs with.  NULL when neither is
 * known. */
static const struct plan_session *flush_block(struct controller *ctl,
                                              const struct collection_session *s,
                                              struct plan_session *tmp)
{
  struct controller_status st;
  if (s->plan)
    return s->plan;
  if (ctl->ops->query(ctl, s->name, &st) != 0)
    return NULL;
  memset(tmp, 0, sizeof(*tmp));
  tmp->role = s->role;
  tmp->wnode_flags = PLAN_WNODE_FLAG_TRACED_GUID;
  tmp->clock_type = st.clock_type;
  tmp->buffer_size_kb = st.buffer_size_kb;
  tmp->minimum_buffers = st.minimum_buffers;
  tmp->maximum_buffers = st.maximum_buffers;
  tmp->maximum_file_size_mb = st.maximum_file_size_mb;
  tmp->log_file_mode = st.log_file_mode;
  tmp->flush_timer_sec = st.flush_timer_sec;
  return tmp;
}

int collection_flush_to(struct collection *c, const struct plan *plan)
{
  struct controller *ctl = c->env->ctl;
  size_t i;
  int written = 0, first = 0;
  for (i = 0; i < c->count; i++) {
    struct collection_session *s = &c->sessions[i];
    struct plan_session block;
    char file[CONTROLLER_PATH_MAX], detail[160];
    int rc;
    if (!s->running || !(s->log_file_mode & PLAN_BUFFERING_MODE) || !s->plan)
      continue;
    in_memory_file(plan, s->plan, file, sizeof(file));
    rc = ctl->ops->flush(ctl, flush_block(ctl, s, &block), s->name, file);
    if (rc) {
      log_error("cannot write the in-memory buffers of '%s' to '%s' (%s): %s", s->name, file,
                controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
      if (!first)
        first = rc;
      continue;
    }
    log_info("wrote the ring of '%s' to '%s'; the session goes on", s->name, file);
    written++;
  }
  return first ? first : written;
}

const struct collection_kernel_mask *collection_kernel_mask_of(const struct collection *c,
                                                               const char *name)
{
  size_t i;
  for (i = 0; i < c->count; i++)
    if (str_caseeq(c->sessions[i].name, name))
      return &c->sessions[i].kernel_mask;
  return NULL;
}

int collection_stop(struct collection *c)
{
  struct controller *ctl = c->env->ctl;
  size_t i;
  int first = 0, heap_rc;
  for (i = 0; i < c->count; i++) {
    struct collection_session *s = &c->sessions[i];
    struct controller_status st;
    struct plan_session block;
    char detail[160];
    int rc;
    if (!s->running)
      continue;
    if ((s->log_file_mode & PLAN_BUFFERING_MODE) && s->file[0] &&
        (rc = ctl->ops->flush(ctl, flush_block(ctl, s, &block), s->name, s->file)) != 0)
      log_warn("cannot write the in-memory buffers of '%s' to '%s' (%s): %s", s->name, s->file,
               controller_error_text(ctl, detail, sizeof(detail)), etwcap_strerror(rc));
    rc = ctl->ops->stop(ctl, s->name, &st);
    if (rc == 0) {
      s->running = 0;
      s->status = st;
      s->has_status = 1;
      log_info("stopped '%s': %lu buffers written, %lu events lost, %lu buffers lost", s->name,
               (unsigned long)st.buffers_written, (unsigned long)st.events_lost,
               (unsigned long)(st.log_buffers_lost + st.realtime_buffers_lost));
      if (st.events_lost)
        log_warn("'%s' lost %lu events: its buffers filled faster than Windows could write "
                 "them. A larger /BufferSizeMB helps.",
                 s->name, (unsigned long)st.events_lost);
    } else if (rc == ETWCAP_E_NO_SESSION) {
      s->running = 0;
      log_info("'%s' was already stopped", s->name);
    } else {
      log_error("cannot stop the session '%s' (%s): %s. Run 'etwcap abort' to stop it.",
                s->name, controller_error_text(ctl, detail, sizeof(detail)),
                etwcap_strerror(rc));
      if (!first)
        first = rc;
    }
  }
  /* TraceEvent removes a session's stored arguments at its stop; here after
   * every stop, so a slow registry never delays one (the console handler's
   * few seconds at logoff or shutdown). */
  remove_capture_provider_data(c);
  /* As TraceEvent's Stop resets the heap tracing flags it set. */
  if ((heap_rc = collection_heap_flag_clear(c->env, &c->heap_flag)) != 0 && !first)
    first = heap_rc;
  if (c->profile_interval_100ns && c->profile_interval_100ns != DEFAULT_PROFILE_INTERVAL) {
    /* The interval is machine-wide: put Windows' default back, as
     * TraceEvent does at every stop. */
    if (ctl->ops->set_profile_interval(ctl, DEFAULT_PROFILE_INTERVAL) != 0)
      log_warn("cannot put the CPU sampling interval back to 1 ms");
    c->profile_interval_100ns = 0;
  }
  /* After the sessions, as PerfView ends it last: no packet is lost to
   * the trace, and a slow netsh (its NetMon report) holds nothing up. */
  packet_capture_stop(&c->packet, c->env);
  return first;
}

int collection_heap_flag_clear(const struct collection_env *env, struct heap_tracing_flag *f)
{
  char why[1024];
  int rc = heap_tracing_flag_clear(registry_of(env), f, why, sizeof(why));
  if (rc)
    log_error("%s. New %s processes are still heap-traced: run 'etwcap abort' elevated, or "
              "delete that value with regedit",
              why, f->exe);
  return rc;
}
