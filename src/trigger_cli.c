/* See trigger_cli.h. */
#include "trigger_cli.h"

#include "cli.h"

void trigger_options_from_cli(const struct cli *cli, struct trigger_options *o)
{
  trigger_options_init(o);
  o->stop_on_perf_counter = cli_list(cli, "StopOnPerfCounter", &o->stop_on_perf_counter_count);
  o->start_on_perf_counter =
    cli_list(cli, "StartOnPerfCounter", &o->start_on_perf_counter_count);
  o->min_sec_for_trigger = cli_int(cli, "MinSecForTrigger", 3);
  o->decay_to_zero_hours = cli_float(cli, "DecayToZeroHours", 0);
  o->trigger_poll_msec = cli_int(cli, "TriggerPollMSec", 1000);
  o->stop_on_etw_event = cli_list(cli, "StopOnEtwEvent", &o->stop_on_etw_event_count);
  o->stop_on_gc_over_msec = cli_int(cli, "StopOnGCOverMsec", 0);
  o->stop_on_gc_suspend_over_msec = cli_int(cli, "StopOnGCSuspendOverMSec", 0);
  o->stop_on_bgc_final_pause_over_msec = cli_int(cli, "StopOnBGCFinalPauseOverMsec", 0);
  o->stop_on_request_over_msec = cli_int(cli, "StopOnRequestOverMsec", 0);
  o->stop_on_gen2_gc = cli_bool(cli, "StopOnGen2GC", 0);
  o->stop_on_gc_event = cli_string(cli, "StopOnGCEvent", NULL);
  o->stop_on_exception = cli_string(cli, "StopOnException", NULL);
  o->stop_on_event_log_message = cli_string(cli, "StopOnEventLogMessage", NULL);
  o->stop_on_event_counter =
    cli_list(cli, "StopOnEventCounter", &o->stop_on_event_counter_count);
  o->stop_on_http_status = cli_string(cli, "StopOnHttpStatus", NULL);
  o->process = cli_string(cli, "Process", NULL);
  o->delay_after_trigger_sec = cli_int(cli, "DelayAfterTriggerSec", 5);
  o->collect_multiple = cli_int(cli, "CollectMultiple", 0);
  o->stop_command = cli_string(cli, "StopCommand", NULL);
  o->max_collect_sec = cli_int(cli, "MaxCollectSec", 0);
}
