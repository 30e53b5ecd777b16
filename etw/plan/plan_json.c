/* The plan as JSON (schema "etwcap-plan/1", described in docs/plan-json.md).
 * 64-bit values are hex strings ("0x14C14FCC9D"): JSON numbers lose bits
 * above 2^53 in most readers. */
#include "etw/plan/plan_describe.h"

#include "src/base/strbuf.h"

#include <stdio.h>

static void hex64(struct strbuf *b, const char *key, uint64_t v, int comma)
{
  strbuf_printf(b, "\"%s\": \"0x%llX\"%s", key, (unsigned long long)v, comma ? ", " : "");
}

static void name_array(struct strbuf *b, const char *joined)
{
  const char *p = joined;
  strbuf_puts(b, "[");
  while (*p && !(p[0] == '0' && p[1] == '\0')) {
    size_t n = 0;
    char item[128];
    while (p[n] && p[n] != '|')
      n++;
    snprintf(item, sizeof(item), "%.*s", (int)n, p);
    strbuf_json_string(b, item);
    p += n;
    if (*p == '|') {
      p++;
      strbuf_puts(b, ", ");
    }
  }
  strbuf_puts(b, "]");
}

static void filter_json(struct strbuf *b, const struct plan_filter *f)
{
  uint32_t i;
  strbuf_printf(b, "{\"type\": \"0x%08X\", \"kind\": \"%s\", \"size\": %u, \"data\": \"",
                     (unsigned)f->type, plan_filter_kind(f->type), (unsigned)f->size);
  for (i = 0; i < f->size; i++)
    strbuf_printf(b, "%02x", f->data[i]);
  strbuf_puts(b, "\"}");
}

static void provider_json(struct strbuf *b, const struct plan_provider *p)
{
  char g[GUID_STRING_SIZE], buf[1024];
  const struct keyword_set *set = plan_provider_keywords(p);
  const char *lname = level_name(p->level);
  size_t i;
  guid_format(&p->guid, g);
  strbuf_puts(b, "        {\"name\": ");
  strbuf_json_string(b, p->name);
  strbuf_printf(b, ", \"guid\": \"%s\", \"origin\": ", g);
  strbuf_json_string(b, p->origin ? p->origin : "");
  strbuf_printf(b, ", \"level\": %u, \"levelName\": ", (unsigned)p->level);
  if (lname)
    strbuf_json_string(b, lname);
  else
    strbuf_puts(b, "null");
  strbuf_puts(b, ", ");
  hex64(b, "matchAnyKeyword", p->match_any, 1);
  strbuf_puts(b, "\"keywordNames\": ");
  if (set && p->match_any != ~0ull) {
    keywords_format(set, p->match_any, buf, sizeof(buf));
    name_array(b, buf);
  } else {
    strbuf_puts(b, "null");
  }
  strbuf_puts(b, ", ");
  hex64(b, "matchAllKeyword", p->match_all, 1);
  plan_enable_property_names(p->enable_property, buf, sizeof(buf));
  strbuf_printf(b, "\"enableProperty\": %u, \"enablePropertyNames\": ",
                     (unsigned)p->enable_property);
  name_array(b, buf);
  strbuf_printf(b, ", \"controlCode\": %u, \"pass\": %u, \"delayMs\": %u, \"filters\": [",
                     (unsigned)p->control_code, p->pass, p->delay_ms);
  for (i = 0; i < p->filter_count; i++) {
    if (i)
      strbuf_puts(b, ", ");
    filter_json(b, &p->filters[i]);
  }
  strbuf_puts(b, "], \"arguments\": {");
  for (i = 0; i < p->arg_count; i++) {
    if (i)
      strbuf_puts(b, ", ");
    strbuf_json_string(b, p->args[i].key);
    strbuf_puts(b, ": ");
    strbuf_json_string(b, p->args[i].value);
  }
  strbuf_puts(b, "}}");
}

/* /CpuCounters and /LbrSources: "pmcProfile", "profileSources",
 * "lbrFilters", "lbrSources". */
static void hardware_json(struct strbuf *b, const struct plan_session *s)
{
  size_t i;
  strbuf_printf(b, "\"pmcProfile\": %s, \"profileSources\": [", s->pmc_profile ? "true" : "false");
  for (i = 0; i < s->profile_source_count; i++) {
    const struct plan_profile_source *p = &s->profile_sources[i];
    strbuf_puts(b, i ? ", {\"name\": " : "{\"name\": ");
    strbuf_json_string(b, p->name);
    if (p->resolved)
      strbuf_printf(b, ", \"interval\": %lu, \"id\": %lu}", (unsigned long)p->interval,
                    (unsigned long)p->id);
    else
      strbuf_printf(b, ", \"interval\": %lu, \"id\": null}", (unsigned long)p->interval);
  }
  strbuf_printf(b, "], \"lbrFilters\": \"0x%03X\", \"lbrSources\": [", (unsigned)s->lbr_filters);
  for (i = 0; i < s->lbr_source_count; i++)
    strbuf_printf(b, "%s\"0x%04X\"", i ? ", " : "", (unsigned)s->lbr_sources[i]);
  strbuf_puts(b, "]");
}

/* "groupMask" (8 words) or "systemProviders", by the route. */
static void route_json(struct strbuf *b, const struct plan_session *s)
{
  size_t i;
  if (s->route == PLAN_ROUTE_GROUP_MASK) {
    strbuf_puts(b, "\"groupMask\": [");
    for (i = 0; i < PLAN_GROUP_MASK_WORDS; i++)
      strbuf_printf(b, "%s\"0x%08X\"", i ? ", " : "", (unsigned)s->group_mask[i]);
    strbuf_puts(b, "], ");
  } else if (s->route == PLAN_ROUTE_SYSTEM_PROVIDERS) {
    strbuf_puts(b, "\"systemProviders\": [");
    for (i = 0; i < s->system_provider_count; i++) {
      const struct plan_system_provider *p = &s->system_providers[i];
      char g[GUID_STRING_SIZE];
      guid_format(&p->guid, g);
      strbuf_printf(b, "%s{\"name\": \"%s\", \"guid\": \"%s\", ", i ? ", " : "", p->name, g);
      hex64(b, "keywords", p->keywords, 0);
      strbuf_puts(b, "}");
    }
    strbuf_puts(b, "], ");
  }
}

/* The heap session's "heap" object (docs/plan-json.md). */
static void heap_json(struct strbuf *b, const struct plan_session *s)
{
  char g[GUID_STRING_SIZE];
  size_t i;
  guid_format(&plan_heap_provider_guid, g);
  strbuf_printf(b, ",\n     \"heap\": {\"provider\": \"%s\", \"pid\": ", g);
  if (s->heap_exe[0]) {
    strbuf_puts(b, "null, \"exe\": ");
    strbuf_json_string(b, s->heap_exe);
  } else {
    strbuf_printf(b, "%lu, \"exe\": null", (unsigned long)s->heap_pid);
  }
  strbuf_puts(b, ", \"stackHooks\": [");
  for (i = 0; i < s->heap_stack_hook_count; i++)
    strbuf_printf(b, "%s\"0x%04X\"", i ? ", " : "", (unsigned)s->heap_stack_hooks[i]);
  strbuf_puts(b, "]}");
}

static void session_json(struct strbuf *b, const struct plan_session *s)
{
  char buf[1024];
  size_t i;
  strbuf_printf(b, "    {\"role\": \"%s\", \"when\": \"%s\", \"name\": ",
                     plan_role_name(s->role), s->when == PLAN_AT_STOP ? "stop" : "start");
  strbuf_json_string(b, s->name);
  strbuf_puts(b, ", \"file\": ");
  if (s->file)
    strbuf_json_string(b, s->file);
  else
    strbuf_puts(b, "null");
  plan_log_file_mode_names(s->log_file_mode, buf, sizeof(buf));
  strbuf_printf(b, ",\n     \"bufferSizeKB\": %u, \"minimumBuffers\": %u, "
                     "\"maximumBuffers\": %u, \"logFileMode\": %u, \"logFileModeNames\": ",
                     (unsigned)s->buffer_size_kb, (unsigned)s->minimum_buffers,
                     (unsigned)s->maximum_buffers, (unsigned)s->log_file_mode);
  name_array(b, buf);
  strbuf_printf(b, ", \"wnodeFlags\": %u, \"clockType\": %u, \"flushTimerSec\": %u, "
                     "\"maximumFileSizeMB\": %u",
                     (unsigned)s->wnode_flags, (unsigned)s->clock_type,
                     (unsigned)s->flush_timer_sec, (unsigned)s->maximum_file_size_mb);
  if (s->route != PLAN_ROUTE_NONE) {
    strbuf_puts(b, ",\n     \"kernel\": {");
    hex64(b, "keywords", s->kernel_keywords, 1);
    keywords_format(&keywords_kernel, s->kernel_keywords, buf, sizeof(buf));
    strbuf_puts(b, "\"keywordNames\": ");
    name_array(b, buf);
    strbuf_printf(b, ", \"enableFlags\": \"0x%08X\", \"route\": \"%s\", "
                     "\"enableFlagsAtStart\": \"0x%08X\", ",
                  (unsigned)s->enable_flags, plan_route_name(s->route),
                  (unsigned)s->enable_flags_at_start);
    route_json(b, s);
    hex64(b, "stackKeywords", s->stack_keywords, 1);
    strbuf_puts(b, "\"stackIds\": [");
    for (i = 0; i < s->stack_id_count; i++) {
      char g[GUID_STRING_SIZE];
      guid_format(&s->stack_ids[i].task, g);
      strbuf_printf(b, "%s{\"task\": \"%s\", \"type\": %u}", i ? ", " : "", g,
                         (unsigned)s->stack_ids[i].type);
    }
    strbuf_printf(b, "], \"stackCaching\": %s, \"stackCacheSize\": %u, "
                       "\"stackCacheBuckets\": %u, \"profileInterval100ns\": %u, "
                       "\"needsProfilePrivilege\": %s, ",
                       s->stack_caching ? "true" : "false", (unsigned)s->stack_cache_size,
                       (unsigned)s->stack_cache_buckets,
                       (unsigned)s->profile_interval_100ns,
                       s->needs_profile_privilege ? "true" : "false");
    hardware_json(b, s);
    strbuf_puts(b, "}");
  }
  if (s->role == PLAN_ROLE_HEAP)
    heap_json(b, s);
  if (s->role == PLAN_ROLE_RUNDOWN)
    strbuf_printf(b, ", \"rundownTimeoutSec\": %u, \"minRundownSec\": %u",
                       (unsigned)s->rundown_timeout_sec, (unsigned)s->min_rundown_sec);
  strbuf_puts(b, ",\n     \"providers\": [");
  for (i = 0; i < s->provider_count; i++) {
    strbuf_puts(b, i ? ",\n" : "\n");
    provider_json(b, &s->providers[i]);
  }
  strbuf_puts(b, s->provider_count ? "\n     ]}" : "]}");
}

/* null, or netsh's part of /NetworkCapture (struct plan_packet_capture). */
static void packet_capture_json(struct strbuf *b, const struct plan_packet_capture *pc)
{
  if (!pc->on) {
    strbuf_puts(b, "null");
    return;
  }
  strbuf_puts(b, "{\"tool\": \"netsh.exe\", \"startArguments\": ");
  strbuf_json_string(b, pc->start_args);
  strbuf_puts(b, ", \"stopArguments\": \"" PLAN_NETSH_STOP_ARGS "\", \"traceFile\": ");
  strbuf_json_string(b, pc->trace_file);
  strbuf_printf(b, ", \"traceFileKept\": %s, \"packetProvider\": "
                   "\"Microsoft-Windows-NDIS-PacketCapture\"}",
                pc->netmon ? "true" : "false");
}

static void periodic_rundown_json(struct strbuf *b, const struct plan_periodic_rundown *r)
{
  if (!r->seconds) {
    strbuf_puts(b, "null");
    return;
  }
  strbuf_printf(b, "{\"seconds\": %u, ", (unsigned)r->seconds);
  hex64(b, "clrKeywords", r->clr_keywords, 1);
  strbuf_printf(b, "\"kernel\": \"%s\"}", plan_periodic_kernel_name(r->kernel));
}

int plan_to_json(const struct plan *plan, char **out)
{
  struct strbuf b = { 0 };
  size_t i;
  strbuf_printf(&b,
                     "{\n  \"schema\": \"etwcap-plan/1\",\n  \"command\": \"%s\",\n"
                     "  \"windows\": {\"version\": \"%u.%u.%u\", \"major\": %u, \"minor\": %u, "
                     "\"build\": %u, \"assumed\": %s},\n  \"dataFile\": ",
                     plan->command, plan->os.major, plan->os.minor, plan->os.build,
                     plan->os.major, plan->os.minor, plan->os.build,
                     plan->os_assumed ? "true" : "false");
  strbuf_json_string(&b, plan->data_file ? plan->data_file : "");
  strbuf_puts(&b, ",\n  \"zipFile\": ");
  if (plan->zip_file)
    strbuf_json_string(&b, plan->zip_file);
  else
    strbuf_puts(&b, "null");
  strbuf_printf(&b, ",\n  \"merge\": %s, \"zip\": %s, \"maxCollectSec\": %lld, "
                     "\"enableParametersVersion\": %u,\n  \"sessions\": [\n",
                     plan->merge ? "true" : "false", plan->zip ? "true" : "false",
                     (long long)plan->max_collect_sec, plan->enable_parameters_version);
  for (i = 0; i < plan->session_count; i++) {
    session_json(&b, &plan->sessions[i]);
    strbuf_puts(&b, i + 1 < plan->session_count ? ",\n" : "\n");
  }
  strbuf_puts(&b, "  ],\n  \"packetCapture\": ");
  packet_capture_json(&b, &plan->packet_capture);
  strbuf_puts(&b, ",\n  \"periodicRundown\": ");
  periodic_rundown_json(&b, &plan->periodic_rundown);
  strbuf_puts(&b, ",\n  \"notes\": [");
  for (i = 0; i < plan->note_count; i++) {
    strbuf_puts(&b, i ? ",\n    " : "\n    ");
    strbuf_json_string(&b, plan->notes[i]);
  }
  strbuf_puts(&b, plan->note_count ? "\n  ]\n}\n" : "]\n}\n");
  return strbuf_finish(&b, out);
}
