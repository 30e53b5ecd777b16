/* Building the plan from the options: the order of the steps, the helpers
 * the steps share, and the final merge and filter building.  The steps live
 * in plan_events.c (PerfView's presets and overrides), plan_sessions.c (one
 * function per session, docs/perfview-collection.md §4.6) and
 * plan_defaults.c (the default provider set, §4.7).  Pure: no OS calls, no
 * printing. */
#include "etw/plan/plan_internal.h"

#include "etw/plan/data_file.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void plan_options_init(struct plan_options *o)
{
  memset(o, 0, sizeof(*o));
  o->command = "collect";
  o->os.major = OS_VERSION_DEFAULT_MAJOR;
  o->os.minor = OS_VERSION_DEFAULT_MINOR;
  o->os.build = OS_VERSION_DEFAULT_BUILD;
  o->os_assumed = 1;
  o->buffer_size_mb = 256;
  o->circular_mb = -1;
  o->stack_compression = 1;
  o->cpu_sample_msec = 1.0;
  o->no_ngen_rundown = 1;
  o->no_v2_rundown = 1;
  o->rundown_timeout_sec = 120;
  o->min_rundown_sec = 0;
  o->rundown_max_mb = -1;
  o->merge = -1;
  o->zip = -1;
}

int plan_fail(struct plan *plan, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(plan->error, sizeof(plan->error), fmt, ap);
  va_end(ap);
  return code;
}

int plan_note(struct plan *plan, const char *fmt, ...)
{
  char buf[1024];
  char **grown;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  grown = etwcap_reallocarray(plan->notes, plan->note_count + 1, sizeof(char *));
  if (!grown)
    return ETWCAP_E_NOMEM;
  plan->notes = grown;
  if (!(grown[plan->note_count] = etwcap_strdup(buf)))
    return ETWCAP_E_NOMEM;
  plan->note_count++;
  return 0;
}

int plan_at_least(const struct plan *plan, unsigned major, unsigned minor, unsigned build)
{
  return os_version_cmp(&plan->os, major, minor, build) >= 0;
}

static char *concat(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  char *s = etwcap_malloc(la + lb + 1);
  if (s) {
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
  }
  return s;
}

/* Path.ChangeExtension(X.etl, ext): replaces the last extension. */
char *plan_change_extension(const char *path, const char *ext)
{
  const char *dot = strrchr(path_base_name(path), '.');
  size_t keep = dot ? (size_t)(dot - path) : strlen(path);
  char *s;
  s = etwcap_malloc(keep + strlen(ext) + 1);
  if (s) {
    memcpy(s, path, keep);
    strcpy(s + keep, ext);
  }
  return s;
}

void plan_set_buffers(struct plan_session *s, int64_t mb)
{
  s->buffer_size_kb = 64;
  s->minimum_buffers = (uint32_t)(mb * 1024 / 64);
  s->maximum_buffers = s->minimum_buffers * 5 / 4 + 10;
}

struct plan_session *plan_new_session(struct plan *plan, enum plan_role role, const char *name)
{
  struct plan_session *s = &plan->sessions[plan->session_count++];
  memset(s, 0, sizeof(*s));
  s->role = role;
  snprintf(s->name, sizeof(s->name), "%s", name);
  s->wnode_flags = PLAN_WNODE_FLAG_TRACED_GUID;
  s->clock_type = PLAN_CLOCK_QPC;
  s->flush_timer_sec = 60;
  if (plan_at_least(plan, 6, 3, 0))
    s->log_file_mode |= PLAN_INDEPENDENT_SESSION_MODE;
  return s;
}

/* Appends an enable to a session (merging happens once, at the end). */
struct plan_provider *plan_push_provider(struct plan_session *s)
{
  struct plan_provider *grown =
      etwcap_reallocarray(s->providers, s->provider_count + 1, sizeof(*grown));
  if (!grown)
    return NULL;
  s->providers = grown;
  memset(&grown[s->provider_count], 0, sizeof(*grown));
  grown[s->provider_count].control_code = PLAN_CONTROL_ENABLE_PROVIDER;
  return &grown[s->provider_count++];
}

int plan_add_known(struct plan_session *s, const char *name, uint8_t level, uint64_t any,
                     int stacks, const char *origin)
{
  const struct provider_entry *info = providers_find_name(name, strlen(name));
  struct plan_provider *p;
  if (!info)
    return ETWCAP_E_INTERNAL; /* every default provider is in the table */
  if (!(p = plan_push_provider(s)))
    return ETWCAP_E_NOMEM;
  providers_guid_of(info, &p->guid);
  snprintf(p->name, sizeof(p->name), "%s", info->name);
  p->level = level;
  p->match_any = any;
  p->stacks = stacks;
  p->origin = origin;
  return 0;
}

/* Windows containers (silos) first shipped with Windows Server 2016 and
 * Windows 10 1607, build 14393 (learn.microsoft.com virtualization/
 * windowscontainers: "Windows Server 2016 ... introduced containers");
 * ENABLE_TRACE_PARAMETERS gives no version of its own for ENABLE_SILOS and
 * SOURCE_CONTAINER_TRACKING, so the plan asks for them from that build on. */
#define CONTAINERS_BUILD 14393u

static int containers_supported(const struct plan *plan)
{
  return plan_at_least(plan, 10, 0, CONTAINERS_BUILD);
}

/* Container options go on every user-mode enable of the main, rundown and
 * trigger sessions (PerfView clones the session options into each; a
 * trigger must see the events its capture sees, docs/win32-contract.md
 * §5.5), the focus only on the main and rundown sessions. */
static void apply_session_options(const struct plan *plan, struct plan_session *s,
                                  const struct plan_state *st)
{
  size_t i;
  for (i = 0; i < s->provider_count; i++) {
    struct plan_provider *p = &s->providers[i];
    if (st->opt->containers && containers_supported(plan))
      p->enable_property |= PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
    if (st->opt->container_tracking && containers_supported(plan))
      p->enable_property |= PLAN_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING;
    if (s->role == PLAN_ROLE_TRIGGER)
      continue;
    if (!p->pid_count && !p->exe_names) {
      if (st->focus_by_pid) {
        p->pids[0] = st->focus_pid;
        p->pid_count = 1;
      }
    }
  }
}

static int finish_session(struct plan *plan, struct plan_session *s, const struct plan_state *st)
{
  size_t i;
  int rc;
  if (s->role == PLAN_ROLE_TRIGGER)
    apply_session_options(plan, s, st);
  if (s->role == PLAN_ROLE_USER || s->role == PLAN_ROLE_RUNDOWN) {
    apply_session_options(plan, s, st);
    if (st->focus_name) {
      for (i = 0; i < s->provider_count; i++) {
        struct plan_provider *p = &s->providers[i];
        if (!p->pid_count && !p->exe_names && !(p->exe_names = etwcap_strdup(st->focus_name)))
          return ETWCAP_E_NOMEM;
      }
    }
  }
  if ((rc = plan_merge_providers(s->providers, &s->provider_count)) != 0)
    return rc;
  for (i = 0; i < s->provider_count; i++) {
    struct plan_provider *p = &s->providers[i];
    if (p->stacks || (p->stack_events.present && p->stack_events.filter_in))
      p->enable_property |= PLAN_ENABLE_PROPERTY_STACK_TRACE;
    if (p->arg_count)
      p->match_all |= 1ull << PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT;
    rc = plan_provider_build_filters(p, s->name);
    if (rc == ETWCAP_E_RANGE)
      return plan_fail(plan, ETWCAP_E_USAGE, "%s: more than %d filters for one provider", p->name,
                  PLAN_MAX_FILTERS);
    if (rc)
      return rc;
    for (size_t f = 0; f < p->filter_count; f++)
      if (p->filters[f].type == PLAN_FILTER_SEND_MANIFEST)
        p->control_code = PLAN_CONTROL_CAPTURE_STATE;
  }
  return 0;
}

static int data_file(struct plan *plan, const struct plan_options *o)
{
  const char *given = o->data_file;
  char *name;
  if (!given || !*given)
    given = o->gc_only ? "etwcapGCOnly.etl"
                       : o->gc_collect_only ? "etwcapGCCollectOnly.etl" : "etwcapData.etl";
  /* PerfView checks ".etl" case-sensitively (foo.ETL becomes foo.ETL.etl);
   * file names on Windows are not case-sensitive, so etwcap does not. */
  if (data_file_name(given, &name) != 0)
    return ETWCAP_E_NOMEM;
  plan->data_file = name;
  return 0;
}

int plan_build(const struct plan_options *o, struct plan *plan)
{
  struct plan_state st;
  size_t i;
  int rc;

  memset(plan, 0, sizeof(*plan));
  memset(&st, 0, sizeof(st));
  st.opt = o;
  plan->os = o->os;
  plan->os_assumed = o->os_assumed;
  plan->command = !o->command || str_caseeq(o->command, "collect") ? "collect"
                  : str_caseeq(o->command, "start")                ? "start"
                                                                   : "run";
  plan->max_collect_sec = o->max_collect_sec;
  plan->enable_parameters_version = plan_at_least(plan, 6, 3, 0) ? 2 : 1;

  if (!plan_at_least(plan, 6, 1, 0)) {
    rc = plan_fail(plan, ETWCAP_E_UNSUPPORTED, "etwcap needs Windows 7 / Server 2008 R2 (6.1) or "
              "later; the target is %u.%u.%u", o->os.major, o->os.minor, o->os.build);
    goto done;
  }
  if (o->in_memory && !strcmp(plan->command, "start")) {
    rc = plan_fail(plan, ETWCAP_E_USAGE, "/InMemoryCircularBuffer cannot be used with 'start': the "
              "buffers live only as long as the session, and 'stop' has to write them (as in "
              "PerfView, use 'collect')");
    goto done;
  }
  if (o->buffer_size_mb < 1 || o->buffer_size_mb > 1048576) {
    rc = plan_fail(plan, ETWCAP_E_USAGE, "/BufferSizeMB: %lld is out of range (1 to 1048576)",
              (long long)o->buffer_size_mb);
    goto done;
  }
  /* PerfView's Collect makes CircularMB 500; start and run keep 0, files
   * that grow for as long as the capture runs. */
  st.circular_mb = o->circular_mb >= 0 ? o->circular_mb : !strcmp(plan->command, "collect") ? 500 : 0;
  if (st.circular_mb > 1048576) {
    rc = plan_fail(plan, ETWCAP_E_USAGE, "/CircularMB: %lld is out of range", (long long)st.circular_mb);
    goto done;
  }
  if (o->in_memory && !st.circular_mb) {
    rc = plan_fail(plan, ETWCAP_E_USAGE, "/InMemoryCircularBuffer needs /CircularMB greater than 0 "
              "(the size of the ring)");
    goto done;
  }
  if (o->session_name) {
    size_t n = strlen(o->session_name);
    if (!n || n > 900) {
      rc = plan_fail(plan, ETWCAP_E_USAGE, "/SessionName: '%s' must have 1 to 900 characters",
                o->session_name);
      goto done;
    }
    if (!plan_at_least(plan, 6, 2, 0)) {
      rc = plan_fail(plan, ETWCAP_E_UNSUPPORTED, "/SessionName needs Windows 8 / Server 2012 or "
                "later (private kernel system loggers)");
      goto done;
    }
  }
  snprintf(st.base, sizeof(st.base), "%s", o->session_name ? o->session_name : "etwcap");
  if ((rc = data_file(plan, o)) != 0)
    goto done;
  plan->zip = o->zip >= 0 ? o->zip : (o->merge == 0 || o->wpr ? 0 : 1); /* ShouldZip */
  plan->merge = plan->zip ? 1 : (o->merge >= 0 ? o->merge : 1);
  if (plan->zip && !(plan->zip_file = concat(plan->data_file, ".zip"))) {
    rc = ETWCAP_E_NOMEM;
    goto done;
  }
  if ((rc = plan_packet_capture(plan, o)) != 0)
    goto done;
  if ((rc = plan_choose_kernel_route(plan, o->kernel_route)) != 0 ||
      (rc = plan_choose_events(plan, &st)) != 0 || (rc = plan_parse_focus(plan, &st)) != 0 ||
      (rc = plan_parse_specs(plan, &st)) != 0 || (rc = plan_kernel_session(plan, &st)) != 0 ||
      (rc = plan_heap_session(plan, &st)) != 0 || (rc = plan_user_session(plan, &st)) != 0 ||
      (rc = plan_rundown_session(plan, &st)) != 0 ||
      (rc = plan_kernel_rundown_session(plan, &st)) != 0 ||
      (rc = plan_trigger_session(plan, &st)) != 0)
    goto done;
  for (i = 0; i < plan->session_count; i++) {
    if ((rc = finish_session(plan, &plan->sessions[i], &st)) != 0)
      goto done;
    plan_kernel_route(plan->kernel_route_asked, &plan->sessions[i]);
  }
  if ((rc = plan_note_kernel_route(plan)) != 0 || (rc = plan_periodic_rundown(plan, &st)) != 0)
    goto done;
  if ((o->containers || o->container_tracking) && !containers_supported(plan) &&
      (rc = plan_note(plan, "/EnableEventsInContainers and /EnableSourceContainerTracking need "
                      "Windows containers (Windows 10 1607 / Server 2016, build %u); this "
                      "Windows has none, so they are left out.", CONTAINERS_BUILD)) != 0)
    goto done;
  if (st.circular_mb && !o->in_memory)
    rc = plan_note(plan, "The user session's circular file is /CircularMB + 300 MB (%lld MB) and the "
              "kernel's /CircularMB (%lld MB), as in PerfView: the two wrap independently, so "
              "the oldest kernel and user events do not start at the same time.",
              (long long)(st.circular_mb + 300), (long long)st.circular_mb);
done:
  for (i = 0; i < st.spec_count; i++)
    provider_spec_release(&st.specs[i]);
  etwcap_free(st.specs);
  if (rc == ETWCAP_E_NOMEM && !plan->error[0])
    snprintf(plan->error, sizeof(plan->error), "out of memory while building the plan");
  return rc;
}

void plan_release(struct plan *plan)
{
  size_t i, j;
  for (i = 0; i < plan->session_count; i++) {
    struct plan_session *s = &plan->sessions[i];
    for (j = 0; j < s->provider_count; j++)
      plan_provider_release(&s->providers[j]);
    etwcap_free(s->providers);
    etwcap_free(s->file);
    s->providers = NULL;
    s->provider_count = 0;
    s->file = NULL;
  }
  plan->session_count = 0;
  for (i = 0; i < plan->note_count; i++)
    etwcap_free(plan->notes[i]);
  etwcap_free(plan->notes);
  etwcap_free(plan->data_file);
  etwcap_free(plan->zip_file);
  etwcap_free(plan->packet_capture.trace_file);
  etwcap_free(plan->packet_capture.start_args);
  memset(&plan->packet_capture, 0, sizeof(plan->packet_capture));
  plan->notes = NULL;
  plan->note_count = 0;
  plan->data_file = NULL;
  plan->zip_file = NULL;
}
