/* `etwcap plan`: print the sessions and providers a collect would start,
 * and its triggers, without starting anything.  Builds the same plan
 * `collect` builds (etw/plan/plan.h) and the same triggers (triggers/, through
 * trigger_describe.h), and prints them as a table or, with /Json, as the
 * JSON document described in docs/plan-json.md: etw/ cannot know about
 * triggers, so the "triggers" member is added here. */
#include "etw/plan/plan.h"
#include "etw/plan/plan_describe.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_version.h"
#include "src/base/strbuf.h"
#include "src/capture/capture_armed.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/plan_cli.h"
#include "src/cli/qualifiers.h"
#include "triggers/counter_monitor.h"
#include "triggers/trigger_describe.h"

#include <stdio.h>
#include <string.h>

static const struct opt_def plan_defs[] = {
  { "Json", NULL, BIND_BOOL(json), NULL, NULL,
    "Print the plan as JSON (schema etwcap-plan/1, see docs/plan-json.md) instead of a table.",
    0, 0, NULL },
  { "TargetOS", NULL, BIND_STRING(target_os), "VERSION", "the running Windows; elsewhere 10.0.20348",
    "Plan for this Windows version (e.g. 6.1, 6.3, 10.0.17763) instead of the running one: "
    "system loggers need 6.2, scope filters 6.3, stack caching 10.0, stack filters 10.0.16299.",
    0, 0, NULL },
};

static const struct opt_group opt_group_plan = OPT_GROUP("Plan output", plan_defs);

static const struct opt_group *const groups[] = { &opt_group_plan,     &opt_group_output,
                                                  &opt_group_events,   &opt_group_rundown,
                                                  &opt_group_merge,    &opt_group_triggers,
                                                  &opt_group_snapshots, &opt_group_segments,
                                                  &opt_group_rundown_period, &opt_group_operators,
                                                  NULL };

/* How a collect stays armed after a fire (capture_armed.h), as JSON
 * members: "snapshots", "segments", "rundownPeriodSec". */
static void armed_json(struct strbuf *b, const struct qualifier_values *q)
{
  strbuf_printf(b,
                ",\n  \"snapshots\": {\"onTrigger\": %s, \"max\": %lld, \"cooldownSec\": %lld}",
                q->snapshot_on_trigger ? "true" : "false",
                (long long)(q->snapshot_on_trigger && q->triggers.collect_multiple > 0
                                ? q->triggers.collect_multiple
                                : 0),
                (long long)capture_armed_cooldown_sec(q));
  strbuf_printf(b,
                ",\n  \"segments\": {\"seconds\": %lld, \"megabytes\": %lld, \"keep\": %lld, "
                "\"keepDays\": %lld, \"maxDiskMB\": %lld}",
                (long long)q->segment_sec, (long long)q->segment_mb, (long long)q->keep_segments,
                (long long)q->keep_days, (long long)q->max_disk_mb);
  strbuf_printf(b, ",\n  \"rundownPeriodSec\": %lld", (long long)q->rundown_period_sec);
}

/* The same for the table: a line each, when they are set. */
static void armed_text(struct strbuf *b, const struct qualifier_values *q)
{
  if (q->snapshot_on_trigger)
    strbuf_printf(b, "\nStays armed: each fire writes a snapshot of the rings, at least %lld s "
                     "apart; %s\n",
                  (long long)capture_armed_cooldown_sec(q),
                  q->triggers.collect_multiple > 0 ? "/CollectMultiple caps them"
                                                   : "no cap (/CollectMultiple sets one)");
  if (q->segment_sec || q->segment_mb)
    strbuf_printf(b, "\nSegments: a new one every %lld s / %lld MB (0: not by that); keep %lld, "
                     "%lld days, %lld MB (0: no limit); a fire marks and keeps its segment\n",
                  (long long)q->segment_sec, (long long)q->segment_mb,
                  (long long)q->keep_segments, (long long)q->keep_days,
                  (long long)q->max_disk_mb);
}

/* /MonitorPerfCounter's counters, as the JSON member "monitors". */
static void monitors_json(struct strbuf *b, const struct counter_monitors *m)
{
  size_t i;
  strbuf_puts(b, ",\n  \"monitors\": [");
  for (i = 0; i < m->count; i++) {
    const struct trigger_counter_spec *c = &m->items[i].spec.counter;
    strbuf_puts(b, i ? ",\n    {\"category\": " : "\n    {\"category\": ");
    strbuf_json_string(b, c->category);
    strbuf_puts(b, ", \"counter\": ");
    strbuf_json_string(b, c->counter);
    strbuf_puts(b, ", \"instance\": ");
    strbuf_json_string(b, c->instance);
    strbuf_printf(b, ", \"intervalSec\": %g}", m->items[i].spec.interval_sec);
  }
  strbuf_puts(b, m->count ? "\n  ]" : "]");
}

/* The same for the table: a line each. */
static void monitors_text(struct strbuf *b, const struct counter_monitors *m)
{
  size_t i;
  if (m->count)
    strbuf_puts(b, "\nCounters logged into the trace (etwcap/PerformanceCounterUpdate):\n");
  for (i = 0; i < m->count; i++)
    strbuf_printf(b, "  %s every %g s%s\n", m->items[i].text, m->items[i].spec.interval_sec,
                  m->items[i].spec.rounded_up ? " (rounded up to the shortest interval)" : "");
}

/* The plan's JSON object with "triggers", "monitors" and the armed
 * settings added as its last members. */
static int json_with_extras(const char *plan_json, const struct trigger_descs *t,
                            const struct counter_monitors *m, const struct qualifier_values *q,
                            char **out)
{
  struct strbuf b = { 0 };
  size_t end = strlen(plan_json);
  char *array = NULL;
  int rc;
  while (end > 0 && plan_json[end - 1] != '}')
    end--;
  if (end == 0)
    return ETWCAP_E_INTERNAL; /* plan_to_json always writes an object */
  end--;
  while (end > 0 && (plan_json[end - 1] == '\n' || plan_json[end - 1] == ' '))
    end--;
  rc = trigger_descs_to_json(t, 4, &array);
  if (rc)
    return rc;
  strbuf_printf(&b, "%.*s,\n  \"triggers\": %s", (int)end, plan_json, array);
  monitors_json(&b, m);
  armed_json(&b, q);
  strbuf_puts(&b, "\n}\n");
  etwcap_free(array);
  return strbuf_finish(&b, out);
}

/* The plan's table with the triggers' block, the monitors and the armed
 * settings after it. */
static int text_with_extras(const char *plan_text, const struct trigger_descs *t,
                            const struct counter_monitors *m, const struct qualifier_values *q,
                            char **out)
{
  struct strbuf b = { 0 };
  char *block = NULL;
  int rc = trigger_descs_to_text(t, &block);
  if (rc)
    return rc;
  strbuf_printf(&b, "%s%s%s", plan_text, block[0] ? "\n" : "", block);
  monitors_text(&b, m);
  armed_text(&b, q);
  etwcap_free(block);
  return strbuf_finish(&b, out);
}

static int run_plan(const struct cli *cli)
{
  struct plan_options opt;
  struct plan plan;
  struct trigger_engine *engine = NULL;
  struct trigger_descs triggers = { NULL, 0 };
  struct counter_monitors monitors = { NULL, 0, NULL };
  struct os_version running;
  char err[1024];
  char *text = NULL, *whole = NULL;
  int built = 0;
  /* The triggers parsed once, as collect parses them: the plan's trigger
   * session and the triggers' description both come from this engine. */
  int rc = capture_armed_check(&cli->q);
  if (rc)
    return rc;
  rc = trigger_engine_create(&engine, &cli->q.triggers, err, sizeof(err));
  if (!rc)
    rc = plan_options_from_cli(cli, engine,
                               os_windows_version(&running) == 0 ? &running : NULL, &opt, err,
                               sizeof(err));
  if (!rc && (rc = trigger_describe(&cli->q.triggers, engine, &triggers)) != 0)
    snprintf(err, sizeof(err), "cannot describe the triggers: %s", etwcap_strerror(rc));
  trigger_engine_free(engine);
  if (!rc)
    rc = counter_monitors_parse(&monitors, cli->q.monitor_perf_counter,
                                cli->q.monitor_perf_counter_count, err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    goto done;
  }
  rc = plan_build(&opt, &plan);
  built = 1;
  if (rc) {
    log_error("%s", plan.error[0] ? plan.error : etwcap_strerror(rc));
    goto done;
  }
  rc = cli->q.json ? plan_to_json(&plan, &text) : plan_to_text(&plan, &text);
  if (rc == 0)
    rc = cli->q.json ? json_with_extras(text, &triggers, &monitors, &cli->q, &whole)
                     : text_with_extras(text, &triggers, &monitors, &cli->q, &whole);
  if (rc == 0) {
    fputs(whole, stdout);
    if (fflush(stdout) != 0)
      rc = ETWCAP_E_IO;
  } else {
    log_error("cannot format the plan: %s", etwcap_strerror(rc));
  }
done:
  etwcap_free(whole);
  etwcap_free(text);
  if (built)
    plan_release(&plan);
  trigger_descs_release(&triggers);
  counter_monitors_release(&monitors);
  return rc;
}

const struct command cmd_plan = {
  "plan", run_plan, 0, "[collect|start] [DataFile]", 0, 2,
  "Print the sessions, providers and triggers a collect would start.",
  "Prints the sessions, providers, keywords, levels, filters and files that 'collect' (or "
  "'start') with the same qualifiers would ask of ETW, and the triggers as 'collect' parses "
  "them, without starting anything. A PerfView "
  "command line can be pasted after 'etwcap plan', e.g. 'etwcap plan /ThreadTime collect "
  "/CircularMB:2048'. Works on any OS; off Windows it plans for Windows 10.0.20348 unless "
  "/TargetOS says otherwise.",
  groups,
};
