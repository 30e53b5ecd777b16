/* The events a plan asks for: PerfView's presets (/OnlyProviders,
 * /ThreadTime, /GCOnly, /GCCollectOnly) then the explicit /ClrEventLevel,
 * /ClrEvents, /KernelEvents, /TplEvents in the order CommandLineArgs applies
 * them (docs/perfview-collection.md §2), /FocusProcess, and the parsed
 * /Providers. */
#include "etw/plan/plan_internal.h"

#include "etw/event/keywords.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <string.h>

static int has_stack_request(const char *spec)
{
  /* PerfView's test (CommandLineArgs): the spec text mentions stacks. */
  const char *p;
  for (p = spec; *p; p++)
    if (str_ncaseeq(p, "@StacksEnabled=true", 19) || str_ncaseeq(p, "@EventIDStacksToEnable", 22))
      return 1;
  return 0;
}

int plan_choose_events(struct plan *plan, struct plan_state *st)
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
    return plan_fail(plan, ETWCAP_E_USAGE, "/GCOnly and /GCCollectOnly are two different presets; "
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
    return plan_fail(plan, ETWCAP_E_USAGE, "/GCTriggeredStacks only applies with /GCCollectOnly");
  }
  if (o->wpr) /* PerfView: ThreadTime, DPCs, Driver, Interrupt */
    st->kernel = KW_KERNEL_THREADTIME | KW_KERNEL_DPC | KW_KERNEL_DRIVER | KW_KERNEL_INTERRUPT;
  if (o->clr_event_level) {
    if (level_parse(o->clr_event_level, strlen(o->clr_event_level), &st->clr_level) != 0)
      return plan_fail(plan, ETWCAP_E_USAGE, "/ClrEventLevel: '%s' is not a level (Critical, Error, "
                  "Warning, Informational, Verbose, or 0-255)", o->clr_event_level);
  }
  if (o->clr_events) {
    if ((rc = keywords_parse(&keywords_clr, o->clr_events, &st->clr, err, sizeof(err))) != 0)
      return plan_fail(plan, rc, "%s", err);
    {
      /* Default-Profile (a runbook line): PerfView has no 'Profile' CLR
       * keyword and rejects it; etwcap reads it as the runtime's Profiler
       * keyword, which Default does not contain. */
      const char *p = o->clr_events;
      while (*p) {
        size_t n = strcspn(p, ",+|-");
        if ((n == 7 && str_ncaseeq(p, "Profile", 7)) || (n == 8 && str_ncaseeq(p, "Profiler", 8))) {
          if ((rc = plan_note(plan, "/ClrEvents: '%.*s' is not a keyword of PerfView's ClrEvents "
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
    return plan_fail(plan, rc, "%s", err);
  if (o->tpl_events &&
      (rc = keywords_parse(&keywords_tpl, o->tpl_events, &st->tpl, err, sizeof(err))) != 0)
    return plan_fail(plan, rc, "%s", err);
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

int plan_parse_focus(struct plan *plan, struct plan_state *st)
{
  const char *f = st->opt->focus_process;
  uint64_t pid;
  if (!f)
    return 0;
  if (!*f)
    return plan_fail(plan, ETWCAP_E_USAGE, "/FocusProcess needs a process id or an exe name");
  if ((f[0] == '-' || f[0] == '+') && f[1] >= '0' && f[1] <= '9')
    return plan_fail(plan, ETWCAP_E_USAGE, "/FocusProcess: '%s' is not a process id", f);
  if (!plan_at_least(plan, 6, 3, 0))
    return plan_fail(plan, ETWCAP_E_UNSUPPORTED, "/FocusProcess:%s needs ETW scope filters, which "
                "Windows 8.1 / Server 2012 R2 introduced (target is %u.%u.%u)", f,
                plan->os.major, plan->os.minor, plan->os.build);
  if (f[0] >= '0' && f[0] <= '9') {
    if (str_parse_uint64(f, &pid) != 0 || pid > 0xFFFFFFFFu)
      return plan_fail(plan, ETWCAP_E_USAGE, "/FocusProcess: '%s' is not a process id", f);
    st->focus_by_pid = 1;
    st->focus_pid = (uint32_t)pid;
    return 0;
  }
  if (strlen(f) * 2 + 2 >= 1024)
    return plan_fail(plan, ETWCAP_E_USAGE, "/FocusProcess: the name '%s' is too long", f);
  st->focus_name = f;
  if (!str_ends_with_case(f, ".exe"))
    return plan_note(plan, "/FocusProcess:%s does not end in .exe; ETW matches the exe file name "
                "exactly, so this probably matches nothing (PerfView warns the same).", f);
  return 0;
}

int plan_parse_specs(struct plan *plan, struct plan_state *st)
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
                                  : plan_fail(plan, rc, "/%s: '%s': %s",
                                         i < o->provider_count ? "Providers" : "OnlyProviders",
                                         text, err);
    st->spec_count++;
    if ((st->specs[i].pid_count || st->specs[i].exe_names || st->specs[i].events.present) &&
        !plan_at_least(plan, 6, 3, 0))
      return plan_fail(plan, ETWCAP_E_UNSUPPORTED, "'%s': scope and event-id filters need Windows "
                  "8.1 / Server 2012 R2 or later", text);
    if (st->specs[i].stack_events.present && !plan_at_least(plan, 10, 0, 16299))
      return plan_fail(plan, ETWCAP_E_UNSUPPORTED, "'%s': stack filters by event id need Windows 10 "
                  "1709 (build 16299) or later", text);
  }
  return 0;
}
