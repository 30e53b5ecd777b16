/* One function per session of the plan: the kernel system logger, the user
 * session, the CLR rundown at stop, the in-memory kernel rundown and the
 * real-time trigger session, with PerfView's property rules
 * (docs/perfview-collection.md §3.1, §4.4, §4.6). */
#include "etw/plan/plan_internal.h"

#include "etw/event/eventsource_guid.h"
#include "etw/event/keywords.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

int plan_kernel_session(struct plan *plan, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  struct plan_session *s;
  uint64_t kernel = st->kernel, stacks, enable, nonos;
  char name[PLAN_NAME_MAX];
  int rc;

  if ((rc = plan_kernel_pmc_keywords(plan, o, &kernel)) != 0)
    return rc;
  if (!kernel)
    return plan_kernel_extras_without_session(plan, o);
  /* The heap's own pages come from VirtualAlloc (PerfView adds it with any
   * OS heap tracing, when there is a kernel session). */
  if (plan_heap_wanted(o))
    kernel |= KW_KERNEL_VIRTUALALLOC;
  /* CPU samples and context switches are useless without knowing processes
   * and images (CommandProcessor Start). */
  if ((kernel & (KW_KERNEL_PROFILE | KW_KERNEL_CONTEXTSWITCH)) &&
      (kernel & (KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD)) !=
          (KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD))
    kernel |= KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD | KW_KERNEL_THREAD;
  stacks = o->gc_collect_only ? 0 : kernel;
  /* TraceEvent's EnableKernelProvider always adds Process and Thread. */
  enable = kernel | KW_KERNEL_PROCESS | KW_KERNEL_THREAD;
  /* PMCProfile reaches Windows as its own group or keyword (pmc_profile,
   * plan_kernel_route), never as an EnableFlags bit. */
  nonos = KW_KERNEL_NONOS & ~KW_KERNEL_PMCPROFILE;
  enable &= ~KW_KERNEL_PMCPROFILE;
  if (plan_at_least(plan, 6, 2, 0))
    nonos &= ~KW_KERNEL_VAMAP;
  if (enable & nonos & ~KW_KERNEL_VAMAP) {
    char names[256];
    keywords_format(&keywords_kernel, enable & nonos & ~KW_KERNEL_VAMAP, names, sizeof(names));
    return plan_fail(plan, ETWCAP_E_UNSUPPORTED, "/KernelEvents: %s %s implemented by TraceEvent "
                "through the extension block of the 'NT Kernel Logger', which etwcap does not "
                "use (it runs its own system logger); leave %s out", names,
                strchr(names, '|') ? "are" : "is", strchr(names, '|') ? "them" : "it");
  }
  if (enable & nonos) {
    if ((rc = plan_note(plan, "VAMap kernel events need Windows 8 or later; left out.")) != 0)
      return rc;
    enable &= ~nonos;
    stacks &= ~nonos;
  }
  if (plan_at_least(plan, 6, 2, 0)) {
    snprintf(name, sizeof(name), "%sKernel", st->base);
  } else {
    snprintf(name, sizeof(name), "NT Kernel Logger");
    if ((rc = plan_note(plan, "Windows before 8 has no private system loggers: the kernel session "
                   "is the shared 'NT Kernel Logger'.")) != 0)
      return rc;
  }
  s = plan_new_session(plan, PLAN_ROLE_KERNEL, name);
  s->when = PLAN_AT_START;
  if (plan_at_least(plan, 6, 2, 0))
    s->log_file_mode |= PLAN_SYSTEM_LOGGER_MODE;
  plan_set_buffers(s, o->buffer_size_mb);
  if (o->in_memory) {
    s->log_file_mode |= PLAN_BUFFERING_MODE;
    s->minimum_buffers = (uint32_t)(st->circular_mb * 1024 / 64);
    s->maximum_buffers = s->minimum_buffers * 5 / 4 + 10;
    s->flush_timer_sec = 1;
  } else {
    if (!(s->file = plan_change_extension(plan->data_file, ".kernel.etl")))
      return ETWCAP_E_NOMEM;
    if (st->circular_mb) {
      s->log_file_mode |= PLAN_FILE_MODE_CIRCULAR;
      s->maximum_file_size_mb = (uint32_t)st->circular_mb;
    } else {
      s->log_file_mode |= PLAN_FILE_MODE_SEQUENTIAL;
    }
  }
  s->kernel_keywords = kernel;
  s->enable_flags = (uint32_t)enable;
  s->stack_keywords = stacks;
  s->stack_id_count = plan_kernel_stack_ids(stacks, s->stack_ids, PLAN_MAX_STACK_IDS);
  s->stack_caching = o->stack_compression && plan_at_least(plan, 10, 0, 0);
  if (s->stack_caching) {
    s->stack_cache_size = PLAN_STACK_CACHE_SIZE;
    s->stack_cache_buckets = PLAN_STACK_CACHE_BUCKETS;
  }
  s->needs_profile_privilege = (enable & KW_KERNEL_PROFILE) != 0;
  if (enable & KW_KERNEL_PROFILE) {
    double ms = o->cpu_sample_msec;
    if (!(ms >= 0.125 && ms <= 1000.0))
      return plan_fail(plan, ETWCAP_E_USAGE, "/CpuSampleMSec: %g is out of range (0.125 to 1000)", ms);
    s->profile_interval_100ns = (uint32_t)(ms * 10000.0 + 0.5);
  }
  return plan_kernel_extras(plan, o, s);
}

static int spec_providers(struct plan_session *s, struct plan_state *st)
{
  size_t i;
  for (i = 0; i < st->spec_count; i++) {
    struct provider_spec *sp = &st->specs[i];
    struct plan_provider *p = plan_push_provider(s);
    if (!p)
      return ETWCAP_E_NOMEM;
    p->guid = sp->provider.guid;
    snprintf(p->name, sizeof(p->name), "%s", sp->provider.name);
    p->origin = i < st->opt->provider_count ? "/Providers" : "/OnlyProviders";
    p->level = sp->level;
    p->match_any = sp->keywords;
    p->stacks = sp->stacks;
    memcpy(p->pids, sp->pids, sizeof(p->pids));
    p->pid_count = sp->pid_count;
    p->exe_names = sp->exe_names;
    sp->exe_names = NULL;
    p->events = sp->events;
    p->stack_events = sp->stack_events;
    p->args = sp->args;
    p->arg_count = sp->arg_count;
    sp->args = NULL;
    sp->arg_count = 0;
  }
  return 0;
}

/* Tells the user where a /Providers entry meets a default one: etwcap merges
 * (union), where PerfView's later EnableTraceEx2 would replace. */
static int note_overlaps(struct plan *plan, const struct plan_session *s)
{
  size_t i, j;
  for (i = 0; i < s->provider_count; i++) {
    const struct plan_provider *a = &s->providers[i];
    if (!a->origin || strcmp(a->origin, "/Providers") != 0 || (a->level == 0 && a->match_any == 0))
      continue;
    for (j = 0; j < i; j++) {
      const struct plan_provider *b = &s->providers[j];
      if (guid_equal(&a->guid, &b->guid) && strcmp(b->origin, "/Providers") != 0) {
        int rc = plan_note(plan, "%s is enabled by %s and by /Providers: etwcap merges the two "
                      "(union of keywords, highest level), where PerfView's later enable "
                      "replaces the first. To replace it, write %s:0:0 before your spec.",
                      a->name, b->origin, a->name);
        if (rc)
          return rc;
        break;
      }
    }
  }
  return 0;
}

int plan_user_session(struct plan *plan, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  struct plan_session *s = plan_new_session(plan, PLAN_ROLE_USER, st->base);
  int64_t circular = st->circular_mb ? st->circular_mb + 300 : 0;
  int rc;
  s->when = PLAN_AT_START;
  plan_set_buffers(s, o->buffer_size_mb);
  if (o->in_memory) {
    s->log_file_mode |= PLAN_BUFFERING_MODE;
    s->minimum_buffers = (uint32_t)(circular * 1024 / 64);
    s->maximum_buffers = s->minimum_buffers * 5 / 4 + 10;
    s->flush_timer_sec = 1;
  } else {
    if (!(s->file = etwcap_strdup(plan->data_file)))
      return ETWCAP_E_NOMEM;
    if (circular) {
      s->log_file_mode |= PLAN_FILE_MODE_CIRCULAR;
      s->maximum_file_size_mb = (uint32_t)circular;
    } else {
      s->log_file_mode |= PLAN_FILE_MODE_SEQUENTIAL;
    }
  }
  if ((rc = plan_default_providers(plan, s, st)) != 0)
    return rc;
  if (st->tpl && st->clr && !plan_at_least(plan, 10, 0, 16299) &&
      (rc = plan_note(plan, "/TplEvents: stacks on task-scheduling events need stack filters "
                      "(Windows 10 1709, build 16299); the TPL events come without stacks.")) != 0)
    return rc;
  if ((rc = spec_providers(s, st)) != 0)
    return rc;
  return note_overlaps(plan, s);
}

int plan_rundown_session(struct plan *plan, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  struct plan_provider *p;
  size_t i;
  int rc;

  snprintf(name, sizeof(name), "%sRundown", st->base);
  s = plan_new_session(plan, PLAN_ROLE_RUNDOWN, name);
  s->when = PLAN_AT_STOP;
  plan_set_buffers(s, o->buffer_size_mb > 256 ? o->buffer_size_mb : 256);
  s->log_file_mode |= PLAN_FILE_MODE_SEQUENTIAL;
  s->maximum_file_size_mb = o->rundown_max_mb > 0 ? (uint32_t)o->rundown_max_mb : 0;
  s->rundown_timeout_sec = (uint32_t)o->rundown_timeout_sec;
  s->min_rundown_sec = (uint32_t)o->min_rundown_sec;
  if (!(s->file = plan_change_extension(plan->data_file, ".clrRundown.etl")))
    return ETWCAP_E_NOMEM;
  if ((rc = plan_add_known(s, "PerfView", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0, "rundown")) != 0)
    return rc;
  /* EventSources write their manifest when enabled with this keyword. */
  if (!st->no_rundown) {
    for (i = 0; i < st->spec_count; i++) {
      if (!eventsource_guid_maybe(&st->specs[i].provider.guid) ||
          provider_spec_is_disable(&st->specs[i]))
        continue;
      if (!(p = plan_push_provider(s)))
        return ETWCAP_E_NOMEM;
      p->guid = st->specs[i].provider.guid;
      snprintf(p->name, sizeof(p->name), "%s", st->specs[i].provider.name);
      p->origin = "manifest rundown";
      p->level = LEVEL_CRITICAL;
      p->match_any = 0x80000000000ull;
    }
  }
  {
    uint64_t pass1 = KW_RUNDOWN_LOADER | KW_RUNDOWN_FORCEEND;
    uint64_t pass2 = KW_RUNDOWN_DEFAULT & ~KW_RUNDOWN_LOADER;
    int minimal = st->no_rundown || st->no_clr_rundown;
    int n, passes = minimal ? 1 : 2;
    if (st->no_ngen_rundown)
      pass2 &= ~KW_RUNDOWN_NGEN;
    if (!(st->clr & KW_CLR_ILTONATIVEMAP))
      pass2 &= ~KW_RUNDOWN_ILTONATIVEMAP;
    if (o->force_ngen_rundown)
      pass2 &= ~KW_RUNDOWN_SUPRESSNGEN;
    for (n = 0; n < passes; n++) {
      uint64_t kw = minimal ? KW_RUNDOWN_MINIMAL : n == 0 ? pass1 : pass2;
      if ((rc = plan_add_known(s, "ClrRundown", LEVEL_VERBOSE, kw, 0,
                          minimal ? "minimal rundown" : "rundown")) != 0)
        return rc;
      s->providers[s->provider_count - 1].pass = (unsigned)n;
      s->providers[s->provider_count - 1].delay_ms = n ? 500 : 0;
      if (!o->no_v2_rundown) {
        if ((rc = plan_add_known(s, "Clr", LEVEL_VERBOSE, kw, 0, "v2 rundown")) != 0)
          return rc;
        s->providers[s->provider_count - 1].pass = (unsigned)n;
        s->providers[s->provider_count - 1].delay_ms = n ? 500 : 0;
      }
    }
  }
  return 0;
}

/* PerfView's in-memory stop (CommandProcessor Stop): a kernel session with
 * Process|ImageLoad, 256 MB, into X.kernelRundown.etl, started and stopped
 * at once so its DCStart/DCEnd events name every process and image.  A
 * rotating capture runs it at each segment's end: a file switch writes no
 * rundown (docs/win32-contract.md §4.7); /RundownPeriodSec runs it every
 * period too (plan_periodic_rundown). */
int plan_kernel_rundown_session(struct plan *plan, struct plan_state *st)
{
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  uint64_t kw = KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD;
  if (!(st->opt->in_memory || st->opt->segments || st->opt->rundown_period_sec) || !st->kernel ||
      !plan_at_least(plan, 6, 2, 0))
    return 0;
  snprintf(name, sizeof(name), "%sKernelRundown", st->base);
  s = plan_new_session(plan, PLAN_ROLE_KERNEL_RUNDOWN, name);
  s->when = PLAN_AT_STOP;
  s->log_file_mode |= PLAN_SYSTEM_LOGGER_MODE | PLAN_FILE_MODE_SEQUENTIAL;
  plan_set_buffers(s, 256);
  s->kernel_keywords = kw;
  s->enable_flags = (uint32_t)(kw | KW_KERNEL_THREAD);
  if (!(s->file = plan_change_extension(plan->data_file, ".kernelRundown.etl")))
    return ETWCAP_E_NOMEM;
  return 0;
}

/* The CLR part is both of PerfView's passes at once (DoClrRundownForSession:
 * Loader|ForceEnd, then the method keywords), as TraceEventSession
 * CaptureState sends one keyword set.  Unlike the final rundown, which
 * follows /NoNGenRundown, it always asks for Jit and NGen methods and
 * drops SupressNGen ("CLR ETW Keywords and Levels": SuppressNGenKeyword
 * "prevents the generation of events for methods that are inside NGen
 * modules"), so a window whose NGEN images loaded before it still names
 * them.  The kernel part: the kernel rundown session on the group mask
 * (it works on every route from Windows 8, docs/win32-contract.md §8.5), a
 * capture-state request on the System Providers (undocumented, §8.4), none
 * for the NT Kernel Logger, which has no second kernel session. */
int plan_periodic_rundown(struct plan *plan, const struct plan_state *st)
{
  struct plan_periodic_rundown *r = &plan->periodic_rundown;
  size_t i;
  memset(r, 0, sizeof(*r));
  if (st->opt->rundown_period_sec <= 0)
    return 0;
  r->seconds = (uint32_t)st->opt->rundown_period_sec;
  r->clr_keywords = (KW_RUNDOWN_DEFAULT | KW_RUNDOWN_FORCEEND | KW_RUNDOWN_JIT | KW_RUNDOWN_NGEN) &
                    ~KW_RUNDOWN_SUPRESSNGEN;
  if (!(st->clr & KW_CLR_ILTONATIVEMAP))
    r->clr_keywords &= ~KW_RUNDOWN_ILTONATIVEMAP;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    if (s->role != PLAN_ROLE_KERNEL)
      continue;
    if (s->route == PLAN_ROUTE_SYSTEM_PROVIDERS) {
      r->kernel = PLAN_PERIODIC_KERNEL_CAPTURE_STATE;
      return plan_note(plan, "/RundownPeriodSec on /KernelRoute:systemProviders: the kernel "
                       "part is EVENT_CONTROL_CODE_CAPTURE_STATE to each System Provider, a "
                       "mechanism Microsoft does not document for them (WPR's "
                       "CaptureStateOnDemand names the idea, not the call); the groupMask "
                       "route uses a kernel rundown session instead.");
    }
    if (s->route == PLAN_ROUTE_GROUP_MASK) {
      r->kernel = PLAN_PERIODIC_KERNEL_SESSION;
      return 0;
    }
    return plan_note(plan, "/RundownPeriodSec: Windows 7 has one kernel session, the NT Kernel "
                     "Logger, so the periodic rundown records the CLR's names only.");
  }
  return 0;
}

const char *plan_periodic_kernel_name(enum plan_periodic_kernel kernel)
{
  switch (kernel) {
  case PLAN_PERIODIC_KERNEL_SESSION:
    return "kernelRundownSession";
  case PLAN_PERIODIC_KERNEL_CAPTURE_STATE:
    return "captureState";
  default:
    return "none";
  }
}

/* The providers the triggers need, as trigger_session_providers merges
 * them (lowest level and keywords that carry the watched events). */
static int add_trigger_needs(struct plan *plan, struct plan_session *s,
                             const struct session_provider_need *need, size_t count)
{
  size_t i;
  for (i = 0; i < count; i++) {
    const struct session_provider_need *t = &need[i];
    struct plan_provider *p;
    if (t->kernel) {
      /* Kernel events (process starts for a /Process name, kernel
       * /StopOnEtwEvent events) come to a real-time session only as a
       * private system logger (Windows 8 / Server 2012 and later). */
      if (!plan_at_least(plan, 6, 2, 0))
        return plan_fail(plan, ETWCAP_E_UNSUPPORTED,
                         "%s: a live trigger on kernel events (or on a /Process name, which "
                         "needs the kernel's process events) needs Windows 8 / Server 2012 or "
                         "later; give /Process a process id, or test the trigger with 'etwcap "
                         "replay'",
                         t->why);
      s->log_file_mode |= PLAN_SYSTEM_LOGGER_MODE;
      s->kernel_keywords |= t->keywords;
      s->enable_flags |= (uint32_t)t->keywords;
      continue;
    }
    if (!(p = plan_push_provider(s)))
      return ETWCAP_E_NOMEM;
    memcpy(&p->guid, &t->guid, sizeof(p->guid));
    snprintf(p->name, sizeof(p->name), "%s", t->name);
    p->origin = "trigger";
    p->level = t->level;
    p->match_any = t->keywords;
    if (t->args[0]) {
      const char *eq = strchr(t->args, '=');
      if (!eq)
        continue;
      if (!(p->args = etwcap_calloc(1, sizeof(*p->args))))
        return ETWCAP_E_NOMEM;
      p->arg_count = 1;
      p->args[0].key = etwcap_malloc((size_t)(eq - t->args) + 1);
      p->args[0].value = etwcap_malloc(strlen(eq + 1) + 1);
      if (!p->args[0].key || !p->args[0].value)
        return ETWCAP_E_NOMEM;
      memcpy(p->args[0].key, t->args, (size_t)(eq - t->args));
      p->args[0].key[eq - t->args] = '\0';
      strcpy(p->args[0].value, eq + 1);
    }
  }
  return 0;
}

int plan_trigger_session(struct plan *plan, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  if (!o->trigger_need_count)
    return 0; /* counters and event-log messages need no ETW session */
  if (o->pid)
    snprintf(name, sizeof(name), "%sTrigger_%lu", st->base, o->pid);
  else
    snprintf(name, sizeof(name), "%sTrigger_<pid>", st->base);
  s = plan_new_session(plan, PLAN_ROLE_TRIGGER, name);
  s->when = PLAN_AT_START;
  plan_set_buffers(s, 64); /* TraceEventSession's default for real-time sessions */
  s->log_file_mode |= PLAN_REAL_TIME_MODE;
  s->flush_timer_sec = 1; /* a fire is seen within a second of its event */
  return add_trigger_needs(plan, s, o->trigger_needs, o->trigger_need_count);
}
