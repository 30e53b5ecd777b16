/* The plan as a table for people: one block per session, one line per
 * provider with its keywords by name where etwcap knows them. */
#include "etw/plan/plan_describe.h"

#include "src/base/strbuf.h"

#include <stdio.h>

static void provider_text(struct strbuf *b, const struct plan_provider *p)
{
  char g[GUID_STRING_SIZE], buf[1024], lvl[16];
  const struct keyword_set *set = plan_provider_keywords(p);
  const char *ln = level_name(p->level);
  size_t i;
  guid_format(&p->guid, g);
  if (ln)
    snprintf(lvl, sizeof(lvl), "%s", ln);
  else
    snprintf(lvl, sizeof(lvl), "%u", (unsigned)p->level);
  strbuf_printf(b, "    %-13s 0x%016llX  %s (%s)", lvl, (unsigned long long)p->match_any,
                     p->name, g);
  if (p->pass)
    strbuf_printf(b, " pass %u after %u ms", p->pass + 1, p->delay_ms);
  strbuf_printf(b, "  [%s]\n", p->origin ? p->origin : "");
  if (set && p->match_any != ~0ull && p->match_any) {
    keywords_format(set, p->match_any, buf, sizeof(buf));
    strbuf_printf(b, "        keywords: %s\n", buf);
  }
  if (p->match_all)
    strbuf_printf(b, "        match all: 0x%llX\n", (unsigned long long)p->match_all);
  if (p->enable_property) {
    plan_enable_property_names(p->enable_property, buf, sizeof(buf));
    strbuf_printf(b, "        enable properties: %s\n", buf);
  }
  if (p->control_code == PLAN_CONTROL_CAPTURE_STATE)
    strbuf_puts(b, "        control: CAPTURE_STATE (SendManifest)\n");
  for (i = 0; i < p->filter_count; i++) {
    const struct plan_filter *f = &p->filters[i];
    strbuf_printf(b, "        filter %s (0x%08X, %u bytes)", plan_filter_kind(f->type),
                       (unsigned)f->type, (unsigned)f->size);
    if (f->type == PLAN_FILTER_PID) {
      size_t k;
      for (k = 0; k < p->pid_count; k++)
        strbuf_printf(b, " %lu", (unsigned long)p->pids[k]);
    } else if (f->type == PLAN_FILTER_EXECUTABLE_NAME) {
      strbuf_printf(b, " %s", p->exe_names);
    } else if (f->type == PLAN_FILTER_EVENT_ID || f->type == PLAN_FILTER_STACKWALK) {
      const struct provider_id_filter *ids =
          f->type == PLAN_FILTER_EVENT_ID ? &p->events : &p->stack_events;
      size_t k;
      strbuf_puts(b, ids->filter_in ? " only" : " except");
      for (k = 0; k < ids->count; k++)
        strbuf_printf(b, " %u", (unsigned)ids->ids[k]);
    }
    strbuf_puts(b, "\n");
  }
  for (i = 0; i < p->arg_count; i++) {
    const char *v = p->args[i].value;
    strbuf_printf(b, "        argument %s=", p->args[i].key);
    for (; *v; v++) /* one line per argument: show a newline as \n */
      if (*v == '\n')
        strbuf_puts(b, "\\n");
      else
        strbuf_printf(b, "%c", *v);
    strbuf_puts(b, "\n");
  }
}

/* How the flags reach Windows (plan.h, enum plan_kernel_route). */
/* /CpuCounters' sources and /LbrSources, one line each when set. */
static void hardware_text(struct strbuf *b, const struct plan_session *s)
{
  size_t i;
  if (s->profile_source_count) {
    strbuf_puts(b, "  cpu counters");
    for (i = 0; i < s->profile_source_count; i++) {
      const struct plan_profile_source *p = &s->profile_sources[i];
      if (p->resolved)
        strbuf_printf(b, "%s %s (id %lu) every %lu", i ? "," : "", p->name, (unsigned long)p->id,
                      (unsigned long)p->interval);
      else
        strbuf_printf(b, "%s %s (unresolved) every %lu", i ? "," : "", p->name,
                      (unsigned long)p->interval);
    }
    strbuf_puts(b, " events (PMCProfile, TraceProfileSourceConfigInfo)\n");
  }
  if (s->lbr_source_count) {
    strbuf_puts(b, "  lbr       sources");
    for (i = 0; i < s->lbr_source_count; i++)
      strbuf_printf(b, " 0x%04X", (unsigned)s->lbr_sources[i]);
    strbuf_printf(b, ", filters 0x%03X (TraceLbrConfigurationInfo)\n", (unsigned)s->lbr_filters);
  }
}

static void route_text(struct strbuf *b, const struct plan_session *s)
{
  char g[GUID_STRING_SIZE];
  size_t i;
  strbuf_printf(b, "  route     %s", plan_route_name(s->route));
  if (s->route == PLAN_ROUTE_SYSTEM_PROVIDERS)
    strbuf_puts(b, " (EnableTraceEx2 on the System Providers)\n");
  else if (s->route == PLAN_ROUTE_GROUP_MASK)
    strbuf_printf(b, " (EnableFlags 0x%08X at start, then the group mask)\n",
                  (unsigned)s->enable_flags_at_start);
  else
    strbuf_printf(b, " (EnableFlags 0x%08X at start)\n", (unsigned)s->enable_flags_at_start);
  if (s->route == PLAN_ROUTE_GROUP_MASK) {
    strbuf_puts(b, "  groupmask");
    for (i = 0; i < PLAN_GROUP_MASK_WORDS; i++)
      strbuf_printf(b, " %08X", (unsigned)s->group_mask[i]);
    strbuf_puts(b, "\n");
  }
  for (i = 0; i < s->system_provider_count; i++) {
    guid_format(&s->system_providers[i].guid, g);
    strbuf_printf(b, "    %-24s 0x%04llX  (%s)\n", s->system_providers[i].name,
                  (unsigned long long)s->system_providers[i].keywords, g);
  }
}

/* The heap session: what it traces, and how (plan_heap_extension). */
static void heap_text(struct strbuf *b, const struct plan_session *s)
{
  char g[GUID_STRING_SIZE];
  size_t i;
  guid_format(&plan_heap_provider_guid, g);
  strbuf_printf(b, "  heap      provider %s (Wnode.Guid), ", g);
  if (s->heap_exe[0])
    strbuf_printf(b, "programs named %s started from now on (IFEO TracingFlags 1)\n",
                  s->heap_exe);
  else
    strbuf_printf(b, "process %lu\n", (unsigned long)s->heap_pid);
  strbuf_puts(b, "  stacks    heap events");
  for (i = 0; i < s->heap_stack_hook_count; i++)
    strbuf_printf(b, " 0x%04X", (unsigned)s->heap_stack_hooks[i]);
  strbuf_puts(b, " (Alloc, ReAlloc; EnableFlags extension)\n");
}

static void session_text(struct strbuf *b, const struct plan_session *s)
{
  char buf[1024];
  size_t i;
  strbuf_printf(b, "\nSession %s  (%s, %s)\n", s->name, plan_role_name(s->role),
                     s->when == PLAN_AT_STOP ? "created at stop" : "started at start");
  strbuf_printf(b, "  file      %s\n", s->file ? s->file : "(none: real-time or in memory)");
  strbuf_printf(b, "  buffers   %u KB x %u..%u (%llu MB pool)\n",
                     (unsigned)s->buffer_size_kb, (unsigned)s->minimum_buffers,
                     (unsigned)s->maximum_buffers,
                     (unsigned long long)s->buffer_size_kb * s->minimum_buffers / 1024);
  plan_log_file_mode_names(s->log_file_mode, buf, sizeof(buf));
  strbuf_printf(b, "  mode      0x%08X %s", (unsigned)s->log_file_mode, buf);
  if (s->maximum_file_size_mb)
    strbuf_printf(b, ", max file %u MB", (unsigned)s->maximum_file_size_mb);
  strbuf_printf(b, "\n  clock     %s, flush every %u s\n",
                     s->clock_type == PLAN_CLOCK_QPC ? "QPC" : "other", (unsigned)s->flush_timer_sec);
  if (s->route != PLAN_ROUTE_NONE) {
    keywords_format(&keywords_kernel, s->kernel_keywords, buf, sizeof(buf));
    strbuf_printf(b, "  keywords  0x%08llX %s\n", (unsigned long long)s->kernel_keywords, buf);
    strbuf_printf(b, "  flags     0x%08X (EVENT_TRACE_FLAG_*)\n", (unsigned)s->enable_flags);
    route_text(b, s);
    if (s->stack_keywords) {
      keywords_format(&keywords_kernel, s->stack_keywords, buf, sizeof(buf));
      strbuf_printf(b, "  stacks    %s (%u event ids)\n", buf, (unsigned)s->stack_id_count);
    } else {
      strbuf_puts(b, "  stacks    none\n");
    }
    strbuf_printf(b, "  stack caching %s", s->stack_caching ? "on" : "off");
    if (s->stack_caching)
      strbuf_printf(b, " (CacheSize %u, BucketCount %u)", (unsigned)s->stack_cache_size,
                    (unsigned)s->stack_cache_buckets);
    if (s->profile_interval_100ns)
      strbuf_printf(b, "; CPU sampling every %.4g ms", s->profile_interval_100ns / 10000.0);
    strbuf_puts(b, "\n");
    hardware_text(b, s);
  }
  if (s->role == PLAN_ROLE_HEAP)
    heap_text(b, s);
  if (s->role == PLAN_ROLE_RUNDOWN)
    strbuf_printf(b, "  waits     until the file stops growing: at least %u s, at most %u s\n",
                       (unsigned)s->min_rundown_sec, (unsigned)s->rundown_timeout_sec);
  if (s->provider_count)
    strbuf_printf(b, "  providers (%u):\n    %-13s %-18s  %s\n", (unsigned)s->provider_count,
                       "LEVEL", "ANY KEYWORDS", "NAME (GUID)  [why]");
  for (i = 0; i < s->provider_count; i++)
    provider_text(b, &s->providers[i]);
}

/* netsh's part of /NetworkCapture (struct plan_packet_capture). */
static void packet_capture_text(struct strbuf *b, const struct plan_packet_capture *pc)
{
  if (!pc->on)
    return;
  strbuf_puts(b, "\nPacket capture (netsh.exe from the system folder)\n");
  strbuf_printf(b, "  start     netsh.exe %s  (after the sessions start)\n", pc->start_args);
  strbuf_puts(b, "  stop      netsh.exe " PLAN_NETSH_STOP_ARGS "  (after the sessions stop; "
                 "also by 'stop' and 'abort')\n");
  strbuf_printf(b, "  file      %s (%s)\n", pc->trace_file,
                pc->netmon ? "netsh's full capture, kept for Network Monitor, not merged"
                           : "netsh's own, at most 1 MB, deleted after the stop");
  strbuf_puts(b, "  packets   Microsoft-Windows-NDIS-PacketCapture events in the user session\n");
}

/* /RundownPeriodSec (struct plan_periodic_rundown). */
static void periodic_rundown_text(struct strbuf *b, const struct plan_periodic_rundown *r)
{
  if (!r->seconds)
    return;
  strbuf_printf(b, "\nRundown into the capture every %u s\n", (unsigned)r->seconds);
  strbuf_printf(b, "  CLR       ClrRundown 0x%llX in the user session (enable, then capture "
                   "state: modules, JIT and NGEN methods)\n",
                (unsigned long long)r->clr_keywords);
  if (r->kernel == PLAN_PERIODIC_KERNEL_SESSION)
    strbuf_printf(b, "  kernel    the kernel rundown session, started and stopped at once, into "
                     "its own file beside the capture (processes, images; the newest %d "
                     "files kept)\n",
                  PLAN_PERIODIC_RUNDOWN_FILES_KEPT);
  else
    strbuf_printf(b, "  kernel    %s\n",
                  r->kernel == PLAN_PERIODIC_KERNEL_CAPTURE_STATE
                      ? "a capture-state request to each System Provider (undocumented for "
                        "them)"
                      : "none");
}

int plan_to_text(const struct plan *plan, char **out)
{
  struct strbuf b = { 0 };
  size_t i;
  strbuf_printf(&b, "What 'etwcap %s' would do on Windows %u.%u.%u%s\n", plan->command,
                     plan->os.major, plan->os.minor, plan->os.build,
                     plan->os_assumed ? " (assumed, not the running system: /TargetOS picks "
                                        "another)"
                                      : " (the running system)");
  strbuf_printf(&b, "Data file %s", plan->data_file);
  if (plan->zip_file)
    strbuf_printf(&b, " -> %s (merged and zipped)", plan->zip_file);
  else if (plan->merge)
    strbuf_puts(&b, " (merged, not zipped)");
  else
    strbuf_puts(&b, " (not merged)");
  if (plan->max_collect_sec)
    strbuf_printf(&b, "; stops after %lld s", (long long)plan->max_collect_sec);
  strbuf_puts(&b, "\n");
  for (i = 0; i < plan->session_count; i++)
    session_text(&b, &plan->sessions[i]);
  packet_capture_text(&b, &plan->packet_capture);
  periodic_rundown_text(&b, &plan->periodic_rundown);
  if (plan->note_count)
    strbuf_puts(&b, "\nNotes:\n");
  for (i = 0; i < plan->note_count; i++)
    strbuf_printf(&b, "  - %s\n", plan->notes[i]);
  return strbuf_finish(&b, out);
}
