/* Command line -> plan_options (see plan_cli.h). */
#include "src/cli/plan_cli.h"

#include "etw/session/controller.h"
#include "src/base/error.h"
#include "src/base/os/os_version.h"
#include "src/base/strutil.h"
#include "src/cli/cli.h"
#include "triggers/trigger_plan.h"

#include <stdio.h>
#include <string.h>

/* /CpuCounters names are resolved against this machine's profile sources;
 * where they cannot be read (off Windows, before Windows 8, Wine's stub)
 * the plan keeps the names as asked and says why. */
static void read_machine_sources(struct plan_options *o)
{
  struct controller ctl;
  char detail[160];
  int rc;
  o->machine_sources_known = 0;
  o->machine_source_count = 0;
  controller_system(&ctl);
  rc = ctl.ops->query_profile_sources(&ctl, o->machine_sources, PLAN_MAX_MACHINE_SOURCES,
                                      &o->machine_source_count);
  if (rc == 0) {
    o->machine_sources_known = 1;
  } else if (rc == ETWCAP_E_NEEDS_WINDOWS) {
    snprintf(o->machine_sources_why, sizeof(o->machine_sources_why),
             "off Windows there are no profile sources to read");
  } else {
    snprintf(o->machine_sources_why, sizeof(o->machine_sources_why),
             "this Windows did not list its profile sources: %s",
             controller_error_text(&ctl, detail, sizeof(detail)));
  }
}

int plan_options_from_cli(const struct cli *cli, const struct trigger_engine *triggers,
                          const struct os_version *running, struct plan_options *o, char *err,
                          size_t err_size)
{
  size_t arg = 0;

  *o = cli->q.plan;
  if (cli->cmd && str_caseeq(cli->cmd->name, "plan")) {
    if (cli->arg_count > 0 &&
        (str_caseeq(cli->args[0], "collect") || str_caseeq(cli->args[0], "start"))) {
      o->command = str_caseeq(cli->args[0], "start") ? "start" : "collect";
      arg = 1;
    }
  } else if (cli->cmd && str_caseeq(cli->cmd->name, "start")) {
    o->command = "start";
  } else if (cli->cmd && str_caseeq(cli->cmd->name, "run")) {
    o->command = "run";
    arg = cli->arg_count; /* the positionals are the command to run */
  }
  if (cli->arg_count > arg + 1) {
    snprintf(err, err_size, "unexpected argument '%s': give at most one DataFile",
             cli->args[arg + 1]);
    return ETWCAP_E_USAGE;
  }

  if (cli->q.target_os) {
    if (os_version_parse(cli->q.target_os, &o->os) != 0) {
      snprintf(err, err_size, "/TargetOS: '%s' is not a Windows version such as 6.3 or "
               "10.0.17763", cli->q.target_os);
      return ETWCAP_E_USAGE;
    }
    o->os_assumed = 1;
  } else if (running) {
    o->os = *running;
    o->os_assumed = 0;
  }

  if (cli->arg_count > arg)
    o->data_file = cli->args[arg]; /* the positional wins, as in PerfView */
  o->max_collect_sec = cli->q.triggers.max_collect_sec;
  o->segments = cli->q.segment_sec > 0 || cli->q.segment_mb > 0;
  o->rundown_period_sec = cli->q.rundown_period_sec;
  if (o->segments && o->circular_mb < 0)
    o->circular_mb = 0; /* segments are files that grow, rotated */
  if (o->min_rundown_sec > o->rundown_timeout_sec) {
    snprintf(err, err_size, "/MinRundownTime:%lld is longer than /RundownTimeout:%lld: the "
             "shortest wait cannot exceed the longest", (long long)o->min_rundown_sec,
             (long long)o->rundown_timeout_sec);
    return ETWCAP_E_USAGE;
  }
  if (o->cpu_counter_count)
    read_machine_sources(o);
  if (triggers && trigger_session_providers(triggers, o->trigger_needs, SESSION_NEEDS_MAX,
                                            &o->trigger_need_count) != 0) {
    snprintf(err, err_size, "the triggers need more than %d providers in their session",
             SESSION_NEEDS_MAX);
    return ETWCAP_E_USAGE;
  }
  return 0;
}
