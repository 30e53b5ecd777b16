/* Command line → plan_options (see plan_cli.h). */
#include "plan_cli.h"

#include "cli.h"
#include "error.h"
#include "os_version.h"
#include "strutil.h"
#include "trigger_cli.h"
#include "trigger_plan.h"

#include <stdio.h>
#include <string.h>

/* The trigger session's providers, from the trigger qualifiers (commands
 * without them, start and plan start, keep the triggers off). */
static int trigger_needs(const struct cli *cli, struct plan_options *o, char *err,
                         size_t err_size)
{
  struct trigger_options t;
  int rc;
  trigger_options_from_cli(cli, &t);
  o->use_triggers = trigger_options_any(&t);
  if (!o->use_triggers)
    return 0;
  err[0] = '\0';
  rc = trigger_session_providers(&t, o->trigger_needs, SESSION_NEEDS_MAX,
                                 &o->trigger_need_count, err, err_size);
  if (rc && !err[0])
    snprintf(err, err_size, "the trigger qualifiers are not valid: %s", etwcap_strerror(rc));
  return rc;
}

int plan_options_from_cli(const struct cli *cli, struct plan_options *o, char *err,
                          size_t err_size)
{
  size_t arg = 0;
  const char *target;

  plan_options_init(o);
  if (cli->cmd && str_caseeq(cli->cmd->name, "plan")) {
    if (cli->arg_count > 0 &&
        (str_caseeq(cli->args[0], "collect") || str_caseeq(cli->args[0], "start"))) {
      o->command = str_caseeq(cli->args[0], "start") ? "start" : "collect";
      arg = 1;
    }
  } else if (cli->cmd && str_caseeq(cli->cmd->name, "start")) {
    o->command = "start";
  }
  if (cli->arg_count > arg + 1) {
    snprintf(err, err_size, "unexpected argument '%s': give at most one DataFile",
             cli->args[arg + 1]);
    return ETWCAP_E_USAGE;
  }

  target = cli_string(cli, "TargetOS", NULL);
  if (target) {
    if (os_version_parse(target, &o->os) != 0) {
      snprintf(err, err_size, "/TargetOS: '%s' is not a Windows version such as 6.3 or "
               "10.0.17763", target);
      return ETWCAP_E_USAGE;
    }
    o->os_assumed = 1;
  } else if (os_windows_version(&o->os) == 0) {
    o->os_assumed = 0;
  }

  o->data_file = cli_string(cli, "DataFile", NULL);
  if (cli->arg_count > arg)
    o->data_file = cli->args[arg]; /* the positional wins, as in PerfView */
  o->buffer_size_mb = cli_int(cli, "BufferSizeMB", 256);
  o->circular_mb = cli_int(cli, "CircularMB", -1);
  o->in_memory = cli_bool(cli, "InMemoryCircularBuffer", 0);
  o->stack_compression = cli_bool(cli, "StackCompression", 1);
  o->session_name = cli_string(cli, "SessionName", NULL);
  o->max_collect_sec = cli_int(cli, "MaxCollectSec", 0);
  o->cpu_sample_msec = cli_float(cli, "CpuSampleMSec", 1.0);

  o->kernel_events = cli_string(cli, "KernelEvents", NULL);
  o->kernel_route = cli_string(cli, "KernelRoute", NULL);
  o->clr_events = cli_string(cli, "ClrEvents", NULL);
  o->clr_event_level = cli_string(cli, "ClrEventLevel", NULL);
  o->tpl_events = cli_string(cli, "TplEvents", NULL);
  o->providers = cli_list(cli, "Providers", &o->provider_count);
  o->only_providers = cli_list(cli, "OnlyProviders", &o->only_provider_count);
  o->thread_time = cli_bool(cli, "ThreadTime", 0);
  o->gc_only = cli_bool(cli, "GCOnly", 0);
  o->gc_collect_only = cli_bool(cli, "GCCollectOnly", 0);
  o->gc_triggered_stacks = cli_bool(cli, "GCTriggeredStacks", 0);
  o->runtime_loading = cli_bool(cli, "RuntimeLoading", 0);
  o->ccw_refcount = cli_bool(cli, "CCWRefCount", 0);
  o->user_crit_contention = cli_bool(cli, "UserCritContention", 0);
  o->focus_process = cli_string(cli, "FocusProcess", NULL);
  o->containers = cli_bool(cli, "EnableEventsInContainers", 0);
  o->container_tracking = cli_bool(cli, "EnableSourceContainerTracking", 0);

  o->no_rundown = cli_bool(cli, "NoRundown", 0);
  o->no_clr_rundown = cli_bool(cli, "NoClrRundown", 0);
  o->no_ngen_rundown = cli_bool(cli, "NoNGenRundown", 1);
  o->force_ngen_rundown = cli_bool(cli, "ForceNgenRundown", 0);
  o->no_v2_rundown = cli_bool(cli, "NoV2Rundown", 1);
  o->rundown_timeout_sec = cli_int(cli, "RundownTimeout", 120);
  o->min_rundown_sec = cli_int(cli, "MinRundownTime", 0);
  o->rundown_max_mb = cli_int(cli, "RundownMaxMB", -1);
  if (o->min_rundown_sec > o->rundown_timeout_sec) {
    snprintf(err, err_size, "/MinRundownTime:%lld is longer than /RundownTimeout:%lld: the "
             "shortest wait cannot exceed the longest", (long long)o->min_rundown_sec,
             (long long)o->rundown_timeout_sec);
    return ETWCAP_E_USAGE;
  }
  o->merge = cli_is_set(cli, "Merge") ? cli_bool(cli, "Merge", 1) : -1;
  o->zip = cli_is_set(cli, "Zip") ? cli_bool(cli, "Zip", 1) : -1;

  o->trigger_gc = cli_is_set(cli, "StopOnGCOverMsec") || cli_is_set(cli, "StopOnGCSuspendOverMSec") ||
                  cli_is_set(cli, "StopOnBGCFinalPauseOverMsec") ||
                  cli_bool(cli, "StopOnGen2GC", 0) || cli_is_set(cli, "StopOnGCEvent");
  o->trigger_exception = cli_is_set(cli, "StopOnException");
  o->trigger_iis = cli_is_set(cli, "StopOnRequestOverMsec");
  o->trigger_etw_other = cli_is_set(cli, "StopOnEtwEvent") || cli_is_set(cli, "StopOnEventCounter") ||
                         cli_is_set(cli, "StopOnHttpStatus");
  return trigger_needs(cli, o, err, err_size);
}
