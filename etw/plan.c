/* Building the plan from the options: PerfView's presets and overrides in
 * its order (perfview-collect.md §2, §3), its default provider set (§4.7),
 * its session properties (§4.6), adjusted to what the target Windows can do.
 * Pure: no OS calls, no printing. */
#include "plan.h"

#include "alloc.h"
#include "error.h"
#include "eventsource_guid.h"
#include "keywords.h"
#include "log.h"
#include "providers.h"
#include "strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ALL_KEYWORDS 0xFFFFFFFFFFFFFFFFull

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

/* --- small helpers ------------------------------------------------------- */

static int fail(struct plan *plan, int code, const char *fmt, ...) LOG_PRINTF(3, 4);

static int fail(struct plan *plan, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(plan->error, sizeof(plan->error), fmt, ap);
  va_end(ap);
  return code;
}

static int note(struct plan *plan, const char *fmt, ...) LOG_PRINTF(2, 3);

static int note(struct plan *plan, const char *fmt, ...)
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

static int at_least(const struct plan *plan, unsigned major, unsigned minor, unsigned build)
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
static char *change_extension(const char *path, const char *ext)
{
  const char *dot = strrchr(path, '.');
  const char *sep1 = strrchr(path, '/'), *sep2 = strrchr(path, '\\');
  size_t keep = strlen(path);
  char *s;
  if (dot && (!sep1 || dot > sep1) && (!sep2 || dot > sep2))
    keep = (size_t)(dot - path);
  s = etwcap_malloc(keep + strlen(ext) + 1);
  if (s) {
    memcpy(s, path, keep);
    strcpy(s + keep, ext);
  }
  return s;
}

static void set_buffers(struct plan_session *s, int64_t mb)
{
  s->buffer_size_kb = 64;
  s->minimum_buffers = (uint32_t)(mb * 1024 / 64);
  s->maximum_buffers = s->minimum_buffers * 5 / 4 + 10;
}

static struct plan_session *new_session(struct plan *plan, enum plan_role role, const char *name)
{
  struct plan_session *s = &plan->sessions[plan->session_count++];
  memset(s, 0, sizeof(*s));
  s->role = role;
  snprintf(s->name, sizeof(s->name), "%s", name);
  s->wnode_flags = PLAN_WNODE_FLAG_TRACED_GUID;
  s->clock_type = PLAN_CLOCK_QPC;
  s->flush_timer_sec = 60;
  if (at_least(plan, 6, 3, 0))
    s->log_file_mode |= PLAN_INDEPENDENT_SESSION_MODE;
  return s;
}

/* Appends an enable to a session (merging happens once, at the end). */
static struct plan_provider *push(struct plan_session *s)
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

static int add_known(struct plan_session *s, const char *name, uint8_t level, uint64_t any,
                     int stacks, const char *origin)
{
  const struct provider_info *info = providers_find_name(name, strlen(name));
  struct plan_provider *p;
  if (!info)
    return ETWCAP_E_INTERNAL; /* every default provider is in the table */
  if (!(p = push(s)))
    return ETWCAP_E_NOMEM;
  providers_guid_of(info, &p->guid);
  snprintf(p->name, sizeof(p->name), "%s", info->name);
  p->level = level;
  p->match_any = any;
  p->stacks = stacks;
  p->origin = origin;
  return 0;
}

/* --- the pieces of the plan ------------------------------------------------ */

struct state {
  const struct plan_options *opt;
  uint64_t kernel;      /* kernel keywords as requested (PerfView names) */
  uint64_t clr;         /* /ClrEvents as given or preset */
  uint64_t clr_enabled; /* what the CLR provider gets (NGen rules applied) */
  uint8_t clr_level;
  uint64_t tpl;
  int no_rundown, no_clr_rundown, no_ngen_rundown;
  uint32_t focus_pid;
  int focus_by_pid;
  const char *focus_name;
  struct provider_spec *specs; /* /Providers then /OnlyProviders, parsed */
  size_t spec_count;
  int64_t circular_mb;
  char base[PLAN_NAME_MAX - 64]; /* /SessionName is at most 900 bytes */
};

static int has_stack_request(const char *spec)
{
  /* PerfView's test (CommandLineArgs): the spec text mentions stacks. */
  const char *p;
  for (p = spec; *p; p++)
    if (str_ncaseeq(p, "@StacksEnabled=true", 19) || str_ncaseeq(p, "@EventIDStacksToEnable", 22))
      return 1;
  return 0;
}

static int choose_events(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  char err[512];
  size_t i;
  int rc;

  st->kernel = KW_KERNEL_DEFAULT;
  st->clr = KW_CLR_DEFAULT;
  st->clr_level = LEVEL_VERBOSE;
  st->tpl = 0;
  st->no_rundown = o->no_rundown;
  st->no_clr_rundown = o->no_clr_rundown;
  st->no_ngen_rundown = o->no_ngen_rundown;

  if (o->gc_only && o->gc_collect_only)
    return fail(plan, ETWCAP_E_USAGE, "/GCOnly and /GCCollectOnly are two different presets; "
                "choose one");
  /* Presets in PerfView's order; explicit switches override them after. */
  if (o->only_provider_count) {
    int stacks = 0;
    for (i = 0; i < o->only_provider_count; i++)
      stacks |= has_stack_request(o->only_providers[i]);
    if (stacks) {
      st->kernel = KW_KERNEL_PROCESS | KW_KERNEL_THREAD | KW_KERNEL_IMAGELOAD;
      st->clr = KW_CLR_JIT | KW_CLR_LOADER;
    } else {
      st->kernel = 0;
      st->clr = 0;
      st->no_ngen_rundown = 1;
      st->no_clr_rundown = 1;
    }
  }
  if (o->thread_time)
    st->kernel = KW_KERNEL_THREADTIME;
  if (o->gc_only) {
    st->kernel = KW_KERNEL_PROCESS | KW_KERNEL_THREAD | KW_KERNEL_IMAGELOAD |
                 KW_KERNEL_VIRTUALALLOC;
    st->clr = KW_CLR_GCONLY;
    st->tpl = 0;
  }
  if (o->gc_collect_only) {
    st->kernel = KW_KERNEL_PROCESS | (o->gc_triggered_stacks ? KW_KERNEL_IMAGELOAD : 0);
    st->clr = KW_CLR_GC | (o->gc_triggered_stacks ? KW_CLR_STACK : 0);
    st->clr_level = LEVEL_INFORMATIONAL;
    if (!o->gc_triggered_stacks)
      st->no_rundown = 1;
  } else if (o->gc_triggered_stacks) {
    return fail(plan, ETWCAP_E_USAGE, "/GCTriggeredStacks only applies with /GCCollectOnly");
  }
  if (o->clr_event_level) {
    if (level_parse(o->clr_event_level, strlen(o->clr_event_level), &st->clr_level) != 0)
      return fail(plan, ETWCAP_E_USAGE, "/ClrEventLevel: '%s' is not a level (Critical, Error, "
                  "Warning, Informational, Verbose, or 0-255)", o->clr_event_level);
  }
  if (o->clr_events) {
    if ((rc = keywords_parse(&keywords_clr, o->clr_events, &st->clr, err, sizeof(err))) != 0)
      return fail(plan, rc, "%s", err);
    {
      /* Default-Profile (a runbook line): PerfView has no 'Profile' CLR
       * keyword and rejects it; etwcap reads it as the runtime's Profiler
       * keyword, which Default does not contain. */
      const char *p = o->clr_events;
      while (*p) {
        size_t n = strcspn(p, ",+|-");
        if ((n == 7 && str_ncaseeq(p, "Profile", 7)) || (n == 8 && str_ncaseeq(p, "Profiler", 8))) {
          if ((rc = note(plan, "/ClrEvents: '%.*s' is not a keyword of PerfView's ClrEvents "
                         "(PerfView 3.2.5 rejects it); etwcap reads it as the runtime's Profiler "
                         "keyword 0x20000000000, which Default does not contain.", (int)n, p)) != 0)
            return rc;
          break;
        }
        p += n + (p[n] ? 1 : 0);
      }
    }
  }
  if (o->kernel_events &&
      (rc = keywords_parse(&keywords_kernel, o->kernel_events, &st->kernel, err, sizeof(err))) != 0)
    return fail(plan, rc, "%s", err);
  if (o->tpl_events &&
      (rc = keywords_parse(&keywords_tpl, o->tpl_events, &st->tpl, err, sizeof(err))) != 0)
    return fail(plan, rc, "%s", err);
  if (o->runtime_loading)
    st->clr |= KW_CLR_RUNTIME_LOADING;
  if (st->clr & (KW_CLR_GCSAMPLED_HIGH | KW_CLR_GCSAMPLED_LOW))
    st->clr |= KW_CLR_TYPE | KW_CLR_GCHEAPSURVIVAL;
  st->clr_enabled = st->clr;
  if (st->no_ngen_rundown)
    st->clr_enabled &= ~KW_CLR_NGEN;
  if (o->force_ngen_rundown)
    st->clr_enabled &= ~KW_CLR_SUPRESSNGEN;
  return 0;
}

static int parse_focus(struct plan *plan, struct state *st)
{
  const char *f = st->opt->focus_process;
  uint64_t pid;
  if (!f)
    return 0;
  if (!*f)
    return fail(plan, ETWCAP_E_USAGE, "/FocusProcess needs a process id or an exe name");
  if (!at_least(plan, 6, 3, 0))
    return fail(plan, ETWCAP_E_UNSUPPORTED, "/FocusProcess:%s needs ETW scope filters, which "
                "Windows 8.1 / Server 2012 R2 introduced (target is %u.%u.%u)", f,
                plan->os.major, plan->os.minor, plan->os.build);
  if (f[0] >= '0' && f[0] <= '9') {
    if (str_parse_uint64(f, &pid) != 0 || pid > 0xFFFFFFFFu)
      return fail(plan, ETWCAP_E_USAGE, "/FocusProcess: '%s' is not a process id", f);
    st->focus_by_pid = 1;
    st->focus_pid = (uint32_t)pid;
    return 0;
  }
  if (strlen(f) * 2 + 2 >= 1024)
    return fail(plan, ETWCAP_E_USAGE, "/FocusProcess: the name '%s' is too long", f);
  st->focus_name = f;
  if (!str_ends_with_case(f, ".exe"))
    return note(plan, "/FocusProcess:%s does not end in .exe; ETW matches the exe file name "
                "exactly, so this probably matches nothing (PerfView warns the same).", f);
  return 0;
}

static int parse_specs(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  size_t total = o->provider_count + o->only_provider_count, i;
  char err[512];
  if (!total)
    return 0;
  st->specs = etwcap_calloc(total, sizeof(*st->specs));
  if (!st->specs)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < total; i++) {
    const char *text = i < o->provider_count ? o->providers[i]
                                             : o->only_providers[i - o->provider_count];
    int rc = provider_spec_parse(text, &st->specs[i], err, sizeof(err));
    if (rc)
      return rc == ETWCAP_E_NOMEM ? rc
                                  : fail(plan, rc, "/%s: '%s': %s",
                                         i < o->provider_count ? "Providers" : "OnlyProviders",
                                         text, err);
    st->spec_count++;
    if ((st->specs[i].pid_count || st->specs[i].exe_names || st->specs[i].events.present) &&
        !at_least(plan, 6, 3, 0))
      return fail(plan, ETWCAP_E_UNSUPPORTED, "'%s': scope and event-id filters need Windows "
                  "8.1 / Server 2012 R2 or later", text);
    if (st->specs[i].stack_events.present && !at_least(plan, 10, 0, 16299))
      return fail(plan, ETWCAP_E_UNSUPPORTED, "'%s': stack filters by event id need Windows 10 "
                  "1709 (build 16299) or later", text);
  }
  return 0;
}

static int kernel_session(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  struct plan_session *s;
  uint64_t kernel = st->kernel, stacks, enable, nonos;
  char name[PLAN_NAME_MAX];
  int rc;

  if (!kernel)
    return 0;
  /* CPU samples and context switches are useless without knowing processes
   * and images (CommandProcessor Start). */
  if ((kernel & (KW_KERNEL_PROFILE | KW_KERNEL_CONTEXTSWITCH)) &&
      (kernel & (KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD)) !=
          (KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD))
    kernel |= KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD | KW_KERNEL_THREAD;
  stacks = o->gc_collect_only ? 0 : kernel;
  /* TraceEvent's EnableKernelProvider always adds Process and Thread. */
  enable = kernel | KW_KERNEL_PROCESS | KW_KERNEL_THREAD;
  nonos = KW_KERNEL_NONOS;
  if (at_least(plan, 6, 2, 0))
    nonos &= ~KW_KERNEL_VAMAP;
  if (enable & nonos & ~KW_KERNEL_VAMAP) {
    char names[256];
    keywords_format(&keywords_kernel, enable & nonos & ~KW_KERNEL_VAMAP, names, sizeof(names));
    return fail(plan, ETWCAP_E_UNSUPPORTED, "/KernelEvents: %s %s implemented by TraceEvent "
                "through the extension block of the 'NT Kernel Logger', which etwcap does not "
                "use (it runs its own system logger); leave %s out", names,
                strchr(names, '|') ? "are" : "is", strchr(names, '|') ? "them" : "it");
  }
  if (enable & nonos) {
    if ((rc = note(plan, "VAMap kernel events need Windows 8 or later; left out.")) != 0)
      return rc;
    enable &= ~nonos;
    stacks &= ~nonos;
  }
  if (at_least(plan, 6, 2, 0)) {
    snprintf(name, sizeof(name), "%sKernel", st->base);
  } else {
    snprintf(name, sizeof(name), "NT Kernel Logger");
    if ((rc = note(plan, "Windows before 8 has no private system loggers: the kernel session "
                   "is the shared 'NT Kernel Logger'.")) != 0)
      return rc;
  }
  s = new_session(plan, PLAN_ROLE_KERNEL, name);
  s->when = PLAN_AT_START;
  if (at_least(plan, 6, 2, 0))
    s->log_file_mode |= PLAN_SYSTEM_LOGGER_MODE;
  set_buffers(s, o->buffer_size_mb);
  if (o->in_memory) {
    s->log_file_mode |= PLAN_BUFFERING_MODE;
    s->minimum_buffers = (uint32_t)(st->circular_mb * 1024 / 64);
    s->maximum_buffers = s->minimum_buffers * 5 / 4 + 10;
    s->flush_timer_sec = 1;
  } else {
    if (!(s->file = change_extension(plan->data_file, ".kernel.etl")))
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
  s->stack_caching = o->stack_compression && at_least(plan, 10, 0, 0);
  s->needs_profile_privilege = (enable & KW_KERNEL_PROFILE) != 0;
  if (enable & KW_KERNEL_PROFILE) {
    double ms = o->cpu_sample_msec;
    if (!(ms >= 0.125 && ms <= 1000.0))
      return fail(plan, ETWCAP_E_USAGE, "/CpuSampleMSec: %g is out of range (0.125 to 1000)", ms);
    s->profile_interval_100ns = (uint32_t)(ms * 10000.0 + 0.5);
  }
  return 0;
}

/* PerfView's default user-mode providers (CommandProcessor Start, §4.7). */
static int default_providers(struct plan_session *s, struct state *st)
{
  const struct plan_options *o = st->opt;
  const char *d = "default";
  uint64_t clr = st->clr;
  int rc = 0;
#define ADD(name, level, any, stacks)                                                    \
  do {                                                                                   \
    if ((rc = add_known(s, name, level, any, stacks, d)) != 0)                           \
      return rc;                                                                         \
  } while (0)

  ADD("PerfView", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
  if (clr && (clr & KW_CLR_CORE) == KW_CLR_CORE) {
    ADD("DotNet", LEVEL_VERBOSE, ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-Kernel-EventTracing", LEVEL_VERBOSE, 0x70, 1);
    if (!(st->kernel & KW_KERNEL_FILEIOINIT))
      ADD("Microsoft-Windows-Kernel-File", LEVEL_VERBOSE, 0x80, 1);
    ADD("Microsoft-Windows-Kernel-Process", LEVEL_INFORMATIONAL, 0x10, 1);
    ADD("ASP.NET", st->clr_level, 0xFFFFFFFFFFFFFFFDull, 0);
    ADD("Microsoft-Windows-ASPNET", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-IIS", LEVEL_CRITICAL, 0, 0);
    ADD("Microsoft-PerfTrack-IEFRAME", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    ADD("Microsoft-PerfTrack-MSHTML", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-WinINet", LEVEL_VERBOSE, 0x2, 0);
    ADD("Microsoft-Windows-Application Server-Applications", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    ADD("Microsoft-IE", LEVEL_INFORMATIONAL, 0x1300, 0);
    ADD("Microsoft-Windows-DNS-Client", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-DirectComposition", LEVEL_VERBOSE, 0x4, 0);
    ADD("Microsoft-Windows-Immersive-Shell", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-XAML", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    ADD("Microsoft-JScript", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-DotNETRuntimePrivate", LEVEL_INFORMATIONAL, 0x4002000B, 0);
    ADD("ClrNativePrivate", LEVEL_INFORMATIONAL, 0x4002000B, 0);
    if (st->tpl) {
      struct plan_provider *p;
      ADD(".NetTasks", st->clr_level, st->tpl, 0);
      p = &s->providers[s->provider_count - 1];
      if (os_version_cmp(&o->os, 10, 0, 16299) >= 0) {
        /* Stacks only for the task-scheduling events 7, 10 and 12. */
        p->stack_events.present = 1;
        p->stack_events.filter_in = 1;
        p->stack_events.ids[0] = 7;
        p->stack_events.ids[1] = 10;
        p->stack_events.ids[2] = 12;
        p->stack_events.count = 3;
      }
    }
    ADD(".NetFramework", st->clr_level, 0x16, 1);
    ADD("Microsoft.Tasks.Nuget", LEVEL_INFORMATIONAL, 0x80, 0);
    ADD("Microsoft-AdoNet-SystemData", LEVEL_INFORMATIONAL, 0x1, 1);
    ADD("ETWCLrProfiler Diagnostics", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    ADD("Microsoft-Diagnostics-DiagnosticSource", LEVEL_INFORMATIONAL, 0xFFFFFFFFFFFFF7FFull, 1);
    {
      struct plan_provider *p = &s->providers[s->provider_count - 1];
      static const char spec[] =
          "HttpHandlerDiagnosticListener/System.Net.Http.Request@Activity2Start:Request.RequestUri\n"
          "HttpHandlerDiagnosticListener/System.Net.Http.Response@Activity2Stop:Response.StatusCode";
      p->args = etwcap_calloc(1, sizeof(*p->args));
      if (!p->args)
        return ETWCAP_E_NOMEM;
      p->arg_count = 1;
      p->args[0].key = etwcap_strdup("FilterAndPayloadSpecs");
      p->args[0].value = etwcap_strdup(spec);
      if (!p->args[0].key || !p->args[0].value)
        return ETWCAP_E_NOMEM;
    }
    ADD("Microsoft-AspNetCore-Hosting", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    ADD("Microsoft-ApplicationInsights-Core", LEVEL_VERBOSE, ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-Kernel-Power", LEVEL_INFORMATIONAL, 0xFFB, 0);
    ADD("Microsoft-Windows-Kernel-Processor-Power", LEVEL_INFORMATIONAL, 0xE5D, 0);
    ADD("Microsoft-Windows-PowerCpl", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-PowerCfg", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
    if ((st->kernel & KW_KERNEL_CONTEXTSWITCH) && (st->kernel & KW_KERNEL_DISPATCHER)) {
      d = "ThreadTime";
      ADD("Microsoft-Antimalware-Engine", LEVEL_VERBOSE, ALL_KEYWORDS, 1);
      ADD("Microsoft-Antimalware-AMFilter", LEVEL_VERBOSE, ALL_KEYWORDS, 1);
      ADD("Microsoft-Antimalware-Service", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("Microsoft-Antimalware-RTP", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("Microsoft-Antimalware-Protection", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-HttpService", st->clr_level, ALL_KEYWORDS, 1);
      ADD("Microsoft-Windows-TCPIP", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 1);
      ADD("Microsoft-Windows-NDIS-PacketCapture", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WebIO", LEVEL_INFORMATIONAL, ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WinINet", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WinHttp", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-RPC", LEVEL_INFORMATIONAL, 0, 0);
      d = "default";
    }
  } else if (clr & KW_CLR_GC) {
    ADD("Microsoft-Windows-DotNETRuntimePrivate", LEVEL_INFORMATIONAL, KW_CLR_GC, 0);
    ADD("ClrNativePrivate", LEVEL_INFORMATIONAL, KW_CLR_GC, 0);
  }
  if (clr) {
    if (st->kernel & KW_KERNEL_REFERENCESET)
      ADD("Win32HeapRanges", LEVEL_VERBOSE, 0, 0);
    if (!o->gc_only && !o->gc_collect_only) {
      ADD("MeasurementBlock", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
      ADD("CodeMarkers", LEVEL_VERBOSE, ALL_KEYWORDS, 0);
    }
    d = "ClrEvents";
    ADD("Microsoft-Windows-DotNETRuntime", st->clr_level, st->clr_enabled, 0);
    ADD("ClrNative", st->clr_level, st->clr_enabled,
        (st->clr_enabled & KW_CLR_GC) && st->clr_level >= LEVEL_VERBOSE);
  }
  if (o->gc_only && !o->provider_count)
    ADD("Microsoft-Windows-Kernel-Memory", LEVEL_VERBOSE, 0x60, 0);
  if (o->user_crit_contention) {
    d = "UserCritContention";
    ADD("Microsoft-Windows-Win32k", LEVEL_VERBOSE, 0x10000000, 0);
  }
  if (o->ccw_refcount) {
    d = "CCWRefCount";
    ADD("InteropEventProvider", LEVEL_VERBOSE, ALL_KEYWORDS, 1);
  }
#undef ADD
  return 0;
}

static int spec_providers(struct plan_session *s, struct state *st)
{
  size_t i;
  for (i = 0; i < st->spec_count; i++) {
    struct provider_spec *sp = &st->specs[i];
    struct plan_provider *p = push(s);
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
      if (plan_guid_equal(&a->guid, &b->guid) && strcmp(b->origin, "/Providers") != 0) {
        int rc = note(plan, "%s is enabled by %s and by /Providers: etwcap merges the two "
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

static int user_session(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  struct plan_session *s = new_session(plan, PLAN_ROLE_USER, st->base);
  int64_t circular = st->circular_mb ? st->circular_mb + 300 : 0;
  int rc;
  s->when = PLAN_AT_START;
  set_buffers(s, o->buffer_size_mb);
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
  if ((rc = default_providers(s, st)) != 0)
    return rc;
  if ((rc = spec_providers(s, st)) != 0)
    return rc;
  return note_overlaps(plan, s);
}

static int rundown_session(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  struct plan_provider *p;
  size_t i;
  int rc;

  snprintf(name, sizeof(name), "%sRundown", st->base);
  s = new_session(plan, PLAN_ROLE_RUNDOWN, name);
  s->when = PLAN_AT_STOP;
  set_buffers(s, o->buffer_size_mb > 256 ? o->buffer_size_mb : 256);
  s->log_file_mode |= PLAN_FILE_MODE_SEQUENTIAL;
  s->maximum_file_size_mb = o->rundown_max_mb > 0 ? (uint32_t)o->rundown_max_mb : 0;
  s->rundown_timeout_sec = (uint32_t)o->rundown_timeout_sec;
  s->min_rundown_sec = (uint32_t)o->min_rundown_sec;
  if (!(s->file = change_extension(plan->data_file, ".clrRundown.etl")))
    return ETWCAP_E_NOMEM;
  if ((rc = add_known(s, "PerfView", LEVEL_VERBOSE, ALL_KEYWORDS, 0, "rundown")) != 0)
    return rc;
  /* EventSources write their manifest when enabled with this keyword. */
  if (!st->no_rundown) {
    for (i = 0; i < st->spec_count; i++) {
      if (!eventsource_guid_maybe(&st->specs[i].provider.guid) ||
          provider_spec_is_disable(&st->specs[i]))
        continue;
      if (!(p = push(s)))
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
      if ((rc = add_known(s, "ClrRundown", LEVEL_VERBOSE, kw, 0,
                          minimal ? "minimal rundown" : "rundown")) != 0)
        return rc;
      s->providers[s->provider_count - 1].pass = (unsigned)n;
      s->providers[s->provider_count - 1].delay_ms = n ? 500 : 0;
      if (!o->no_v2_rundown) {
        if ((rc = add_known(s, "Clr", LEVEL_VERBOSE, kw, 0, "v2 rundown")) != 0)
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
 * at once so its DCStart/DCEnd events name every process and image. */
static int kernel_rundown_session(struct plan *plan, struct state *st)
{
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  uint64_t kw = KW_KERNEL_PROCESS | KW_KERNEL_IMAGELOAD;
  if (!st->opt->in_memory || !st->kernel || !at_least(plan, 6, 2, 0))
    return 0;
  snprintf(name, sizeof(name), "%sKernelRundown", st->base);
  s = new_session(plan, PLAN_ROLE_KERNEL_RUNDOWN, name);
  s->when = PLAN_AT_STOP;
  s->log_file_mode |= PLAN_SYSTEM_LOGGER_MODE | PLAN_FILE_MODE_SEQUENTIAL;
  set_buffers(s, 256);
  s->kernel_keywords = kw;
  s->enable_flags = (uint32_t)(kw | KW_KERNEL_THREAD);
  if (!(s->file = change_extension(plan->data_file, ".kernelRundown.etl")))
    return ETWCAP_E_NOMEM;
  return 0;
}

static int trigger_session(struct plan *plan, struct state *st)
{
  const struct plan_options *o = st->opt;
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  int rc;
  if (!o->trigger_gc && !o->trigger_exception && !o->trigger_iis && !o->trigger_etw_other)
    return 0;
  if (o->trigger_etw_other &&
      (rc = note(plan, "The providers that /StopOnEtwEvent, /StopOnEventCounter and "
                 "/StopOnHttpStatus listen to are added to the trigger session by the trigger "
                 "engine when it parses them; they are not shown here.")) != 0)
    return rc;
  if (o->pid)
    snprintf(name, sizeof(name), "%sTrigger_%lu", st->base, o->pid);
  else
    snprintf(name, sizeof(name), "%sTrigger_<pid>", st->base);
  s = new_session(plan, PLAN_ROLE_TRIGGER, name);
  s->when = PLAN_AT_START;
  set_buffers(s, 64); /* TraceEventSession's default for real-time sessions */
  s->log_file_mode |= PLAN_REAL_TIME_MODE;
  s->flush_timer_sec = 1;
  if (o->trigger_gc && (rc = add_known(s, "Clr", LEVEL_INFORMATIONAL, KW_CLR_GC, 0, "trigger")))
    return rc;
  if (o->trigger_exception &&
      (rc = add_known(s, "Clr", LEVEL_INFORMATIONAL, 0x8000, 0, "trigger")) != 0)
    return rc;
  if (o->trigger_iis &&
      (rc = add_known(s, "Microsoft-Windows-IIS", LEVEL_CRITICAL, ALL_KEYWORDS, 0, "trigger")))
    return rc;
  return 0;
}

/* Container and focus options go on every user-mode enable of the main and
 * rundown sessions (PerfView clones the session options into each). */
static void apply_session_options(struct plan_session *s, const struct state *st)
{
  size_t i;
  for (i = 0; i < s->provider_count; i++) {
    struct plan_provider *p = &s->providers[i];
    if (st->opt->containers)
      p->enable_property |= PLAN_ENABLE_PROPERTY_ENABLE_SILOS;
    if (st->opt->container_tracking)
      p->enable_property |= PLAN_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING;
    if (!p->pid_count && !p->exe_names) {
      if (st->focus_by_pid) {
        p->pids[0] = st->focus_pid;
        p->pid_count = 1;
      }
    }
  }
}

static int finish_session(struct plan *plan, struct plan_session *s, const struct state *st)
{
  size_t i;
  int rc;
  if (s->role == PLAN_ROLE_USER || s->role == PLAN_ROLE_RUNDOWN) {
    apply_session_options(s, st);
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
      return fail(plan, ETWCAP_E_USAGE, "%s: more than %d filters for one provider", p->name,
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
  size_t len;
  char *name;
  if (!given || !*given)
    given = o->gc_only ? "etwcapGCOnly.etl"
                       : o->gc_collect_only ? "etwcapGCCollectOnly.etl" : "etwcapData.etl";
  len = strlen(given);
  name = etwcap_strdup(given);
  if (!name)
    return ETWCAP_E_NOMEM;
  if (len > 8 && str_ends_with_case(name, ".etl.zip"))
    name[len - 4] = '\0';
  /* PerfView checks ".etl" case-sensitively (foo.ETL becomes foo.ETL.etl);
   * file names on Windows are not case-sensitive, so etwcap does not. */
  if (!str_ends_with_case(name, ".etl")) {
    char *with = concat(name, ".etl");
    etwcap_free(name);
    if (!with)
      return ETWCAP_E_NOMEM;
    name = with;
  }
  plan->data_file = name;
  return 0;
}

int plan_build(const struct plan_options *o, struct plan *plan)
{
  struct state st;
  size_t i;
  int rc;

  memset(plan, 0, sizeof(*plan));
  memset(&st, 0, sizeof(st));
  st.opt = o;
  plan->os = o->os;
  plan->os_assumed = o->os_assumed;
  plan->command = (o->command && str_caseeq(o->command, "start")) ? "start" : "collect";
  plan->max_collect_sec = o->max_collect_sec;
  plan->enable_parameters_version = at_least(plan, 6, 3, 0) ? 2 : 1;

  if (!at_least(plan, 6, 1, 0)) {
    rc = fail(plan, ETWCAP_E_UNSUPPORTED, "etwcap needs Windows 7 / Server 2008 R2 (6.1) or "
              "later; the target is %u.%u.%u", o->os.major, o->os.minor, o->os.build);
    goto done;
  }
  if (o->in_memory && !strcmp(plan->command, "start")) {
    rc = fail(plan, ETWCAP_E_USAGE, "/InMemoryCircularBuffer cannot be used with 'start': the "
              "buffers live only as long as the session, and 'stop' has to write them (as in "
              "PerfView, use 'collect')");
    goto done;
  }
  if (o->buffer_size_mb < 1 || o->buffer_size_mb > 1048576) {
    rc = fail(plan, ETWCAP_E_USAGE, "/BufferSizeMB: %lld is out of range (1 to 1048576)",
              (long long)o->buffer_size_mb);
    goto done;
  }
  st.circular_mb = o->circular_mb >= 0 ? o->circular_mb : !strcmp(plan->command, "collect") ? 500 : 0;
  if (st.circular_mb > 1048576) {
    rc = fail(plan, ETWCAP_E_USAGE, "/CircularMB: %lld is out of range", (long long)st.circular_mb);
    goto done;
  }
  if (o->in_memory && !st.circular_mb) {
    rc = fail(plan, ETWCAP_E_USAGE, "/InMemoryCircularBuffer needs /CircularMB greater than 0 "
              "(the size of the ring)");
    goto done;
  }
  if (o->session_name) {
    size_t n = strlen(o->session_name);
    if (!n || n > 900) {
      rc = fail(plan, ETWCAP_E_USAGE, "/SessionName: '%s' must have 1 to 900 characters",
                o->session_name);
      goto done;
    }
    if (!at_least(plan, 6, 2, 0)) {
      rc = fail(plan, ETWCAP_E_UNSUPPORTED, "/SessionName needs Windows 8 / Server 2012 or "
                "later (private kernel system loggers)");
      goto done;
    }
  }
  snprintf(st.base, sizeof(st.base), "%s", o->session_name ? o->session_name : "etwcap");
  if ((rc = data_file(plan, o)) != 0)
    goto done;
  plan->zip = o->zip >= 0 ? o->zip : (o->merge == 0 ? 0 : 1);
  plan->merge = plan->zip ? 1 : (o->merge >= 0 ? o->merge : 1);
  if (plan->zip && !(plan->zip_file = concat(plan->data_file, ".zip"))) {
    rc = ETWCAP_E_NOMEM;
    goto done;
  }
  if ((rc = choose_events(plan, &st)) != 0 || (rc = parse_focus(plan, &st)) != 0 ||
      (rc = parse_specs(plan, &st)) != 0 || (rc = kernel_session(plan, &st)) != 0 ||
      (rc = user_session(plan, &st)) != 0 || (rc = rundown_session(plan, &st)) != 0 ||
      (rc = kernel_rundown_session(plan, &st)) != 0 || (rc = trigger_session(plan, &st)) != 0)
    goto done;
  for (i = 0; i < plan->session_count; i++)
    if ((rc = finish_session(plan, &plan->sessions[i], &st)) != 0)
      goto done;
  if (st.circular_mb && !o->in_memory)
    rc = note(plan, "The user session's circular file is /CircularMB + 300 MB (%lld MB) and the "
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
  plan->notes = NULL;
  plan->note_count = 0;
  plan->data_file = NULL;
  plan->zip_file = NULL;
}
