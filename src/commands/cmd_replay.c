/* `etwcap replay TRACE [trigger qualifiers]`: the trigger engine over a
 * recorded .etl or .etl.zip on the trace's own clock, one line per fire on
 * standard output:  fired<TAB>TRIGGER<TAB>RAW_TIMESTAMP<TAB>UTC<TAB>DETAIL.
 * Exit 0 when something fired, ETWCAP_E_NOT_FIRED (exit code 9) when
 * nothing did.  Thin: the engine and the replay loop live in triggers/. */
#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/strutil.h"
#include "src/capture/work_cancel.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"
#include "src/finish/capture_finish.h"
#include "src/finish/replay_window.h"
#include "src/report/report_file.h"
#include "triggers/trigger_csv.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_output.h"
#include "triggers/trigger_replay.h"

#include <stdio.h>
#include <string.h>

static const struct opt_def replay_defs[] = {
  { "CounterLog", NULL, BIND_STRING(counter_log), "FILE.csv", NULL,
    "Performance counter samples for /StopOnPerfCounter and /StartOnPerfCounter: a typeperf "
    "CSV (typeperf -f CSV, relog -f CSV). A poll sees the last sample at or before it.",
    0, 0, NULL },
  { "Out", NULL, BIND_STRING(out), "NAME.etl.zip", NULL,
    "Also write what the capture would have kept: the events from the collection's start (or "
    "/WindowSec before the fire) to DelayAfterTriggerSec after it, merged and zipped like a "
    "capture (NAME.etl for a merged ETL without zip). With /CollectMultiple, one "
    "NAME.N.etl.zip per collection.",
    0, 0, NULL },
  { "MaxCollectSec", NULL, BIND_INT(triggers.max_collect_sec), "SEC", "0 (no limit)",
    "Stop the replayed collection SEC seconds of trace time after it started, as "
    "/MaxCollectSec stops a capture.",
    0, 31536000, NULL },
  { "WindowSec", NULL, BIND_INT(window_sec), "SEC", "the whole collection",
    "With /Out: keep only the last SEC seconds before the fire (what a circular capture "
    "holds).",
    1, 31536000, NULL },
};

static const struct opt_group replay_group = OPT_GROUP("Replay", replay_defs);
static const struct opt_group *const groups[] = { &replay_group, &opt_group_triggers,
                                                  &opt_group_report, NULL };

struct printer {
  FILE *out;
  int collect_multiple;
  const char *stop_command;
  const char *trace;
  int writes_out;
  int io_error;
};

static void print_fire(void *ctx, const struct trigger_fire *f)
{
  struct printer *p = ctx;
  char utc[64];
  filetime_format_iso7(f->filetime, utc, sizeof(utc));
  if (fprintf(p->out, "fired\t%s\t%llu\t%s\t%s", f->trigger, (unsigned long long)f->raw, utc,
              f->detail) < 0)
    p->io_error = 1;
  if (p->collect_multiple > 1 && fprintf(p->out, " (collection %u)", f->collection) < 0)
    p->io_error = 1;
  if (fputc('\n', p->out) == EOF)
    p->io_error = 1;
  if (f->role != TRIGGER_ROLE_START && p->stop_command && !p->writes_out) {
    char cmd[4096];
    /* No capture is written without /Out: shown with the trace's own name. */
    if (trigger_stop_command(p->stop_command, p->trace, cmd, sizeof(cmd)) == 0)
      log_info("a capture would now run /StopCommand (replay does not run it): %s", cmd);
  }
}

/* "etwcap replay TRACE /Q:V ..." for the capture manifest. */
static char *command_line(const struct cli *cli)
{
  size_t i, n = 64 + strlen(cli->args[0]);
  char *s;
  for (i = 0; i < cli->value_count; i++)
    n += strlen(cli->values[i].def->name) + 4 +
         (cli->values[i].text ? strlen(cli->values[i].text) : 0);
  s = etwcap_malloc(n);
  if (!s)
    return NULL;
  snprintf(s, n, "etwcap replay %s", cli->args[0]);
  for (i = 0; i < cli->value_count; i++) {
    const struct opt_value *v = &cli->values[i];
    size_t len = strlen(s);
    snprintf(s + len, n - len, " /%s%s%s", v->def->name, v->text ? ":" : "",
             v->text ? v->text : "");
  }
  return s;
}

/* Writes the capture each stop fire would have left (see /Out). */
static int write_outputs(const struct cli *cli, const struct trigger_engine *e,
                         const char *trace, const char *out, int64_t window_sec,
                         int collect_multiple, const char *stop_command)
{
  size_t n = strlen(out), i;
  int zip;
  char *cmd = command_line(cli);
  int rc = 0;
  if (n > 8 && str_ends_with_case(out, ".etl.zip"))
    zip = 1;
  else if (n > 4 && str_ends_with_case(out, ".etl"))
    zip = 0;
  else {
    log_error("/Out:%s: give NAME.etl.zip (or NAME.etl for a merged ETL without zip)", out);
    etwcap_free(cmd);
    return ETWCAP_E_USAGE;
  }
  for (i = 0; i < trigger_engine_fire_count(e) && !rc; i++) {
    const struct trigger_fire *f = trigger_engine_fire_at(e, i);
    struct replay_window_stats ws;
    struct capture_finish_params p;
    struct capture_finish_result res;
    struct manifest_trigger mt;
    struct merge_inputs written;
    char name[1200], data_file[1200], err[1024], from_text[64], to_text[64];
    int64_t from = f->collection_start, size;
    if (f->role == TRIGGER_ROLE_START)
      continue;
    if (window_sec > 0 && f->filetime - window_sec * TRIGGER_TICKS_PER_SEC > from)
      from = f->filetime - window_sec * TRIGGER_TICKS_PER_SEC;
    rc = trigger_collect_name(out, collect_multiple > 1 ? f->collection : 0, zip, NULL, NULL,
                              name, sizeof(name), NULL);
    if (rc) {
      log_error("/Out:%s: the name is too long", out);
      break;
    }
    if (os_file_size(name, &size) == 0) {
      log_error("%s already exists: choose another /Out name or remove it", name);
      rc = ETWCAP_E_EXIST;
      break;
    }
    snprintf(data_file, sizeof(data_file), "%.*s", (int)(strlen(name) - (zip ? 4 : 0)), name);
    rc = replay_window_write(trace, from, f->stop_at, data_file, &ws, &written, err,
                             sizeof(err));
    if (rc) {
      log_error("%s", err);
      break;
    }
    filetime_format_iso7(from, from_text, sizeof(from_text));
    filetime_format_iso7(f->stop_at, to_text, sizeof(to_text));
    log_info("%s: kept %llu of %llu events (%s to %s) in %u session file(s)", name,
             (unsigned long long)ws.events_kept, (unsigned long long)ws.events_in, from_text,
             to_text, ws.files);
    memset(&p, 0, sizeof(p));
    p.data_file = data_file;
    p.zip = zip;
    p.command_line = cmd ? cmd : "etwcap replay";
    mt.name = f->trigger;
    mt.detail = f->detail;
    mt.filetime = f->filetime;
    p.trigger = &mt;
    p.inputs = &written;
    rc = capture_finish(&p, &res, err, sizeof(err));
    if (rc) {
      /* Nothing was deleted: the files this window wrote go, no other. */
      size_t k;
      for (k = 0; k < written.count; k++)
        os_remove(written.paths[k]);
      log_error("%s: %s", name, err[0] ? err : etwcap_strerror(rc));
    }
    merge_inputs_release(&written);
    if (rc)
      break;
    log_info("wrote %s (%llu events)", res.output, (unsigned long long)res.events);
    if (cli->q.report)
      report_after_capture(res.output);
    if (stop_command) {
      char line[4096];
      if (trigger_stop_command(stop_command, res.output, line, sizeof(line)) == 0)
        log_info("a capture would now run /StopCommand (replay does not run it): %s", line);
    }
  }
  etwcap_free(cmd);
  return rc;
}

static int run_replay(const struct cli *cli)
{
  const struct trigger_options *opt = &cli->q.triggers;
  struct trigger_engine *e = NULL;
  struct trigger_csv *csv = NULL;
  struct trigger_replay_stats stats;
  struct printer pr;
  const char *counter_log = cli->q.counter_log;
  const char *out = cli->q.out;
  int64_t window_sec = cli->q.window_sec;
  const char *trace = cli->args[0];
  char err[2048], first[64], last[64];
  char *problems = NULL;
  int64_t run_until = 0;
  int rc;

  if (cli->q.monitor_perf_counter_count) {
    log_error("/MonitorPerfCounter logs live counter values into a capture; a recorded trace "
              "has none to log: leave it out of replay");
    return ETWCAP_E_USAGE;
  }
  if (!trigger_options_any(opt)) {
    log_error("replay needs at least one trigger qualifier (/StopOnGen2GC, "
              "/StopOnException:REGEX, /StopOnEtwEvent:..., /StopOnPerfCounter:... with "
              "/CounterLog, ...); see 'etwcap replay /?'");
    return ETWCAP_E_USAGE;
  }
  if (cli->q.report && !out) {
    log_error("/Report writes the page of the capture /Out writes; give /Out:NAME.etl.zip too");
    return ETWCAP_E_USAGE;
  }
  if (window_sec && !out) {
    log_error("/WindowSec sets how much /Out keeps; give /Out:NAME.etl.zip too");
    return ETWCAP_E_USAGE;
  }
  rc = trigger_engine_create(&e, opt, err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  if (trigger_engine_has_event_log(e)) {
    log_error("/StopOnEventLogMessage: a recorded trace holds no event-log messages, so replay "
              "cannot test it (it works in a live capture on Windows)");
    rc = ETWCAP_E_UNSUPPORTED;
    goto cleanup;
  }
  if (trigger_engine_has_counters(e)) {
    struct trigger_counter_source src;
    if (!counter_log) {
      log_error("/StopOnPerfCounter and /StartOnPerfCounter need counter samples in replay: "
                "give /CounterLog:FILE.csv (typeperf -f CSV output for the same period)");
      rc = ETWCAP_E_USAGE;
      goto cleanup;
    }
    rc = trigger_csv_load(&csv, counter_log, err, sizeof(err));
    if (rc) {
      log_error("%s", err);
      goto cleanup;
    }
    src = trigger_csv_source(csv);
    trigger_engine_set_counter_source(e, &src);
    run_until = trigger_csv_last_time(csv);
  } else if (counter_log) {
    log_error("/CounterLog is only read for /StopOnPerfCounter or /StartOnPerfCounter, and "
              "neither is given");
    rc = ETWCAP_E_USAGE;
    goto cleanup;
  }
  memset(&pr, 0, sizeof(pr));
  pr.out = stdout;
  pr.collect_multiple = (int)opt->collect_multiple;
  pr.stop_command = opt->stop_command;
  pr.trace = trace;
  pr.writes_out = out != NULL;
  rc = trigger_replay_run(trace, e, run_until, print_fire, &pr, &stats, err, sizeof(err));
  if (fflush(stdout) != 0 || pr.io_error) {
    log_error("cannot write the fire lines to standard output");
    if (!rc)
      rc = ETWCAP_E_IO;
  }
  if (rc) {
    log_error("%s", err);
    goto cleanup;
  }
  problems = etwcap_malloc(8192);
  if (problems && trigger_engine_problems(e, problems, 8192)) {
    char *line = problems, *nl;
    while ((nl = strchr(line, '\n')) != NULL) {
      *nl = '\0';
      log_warn("%s", line);
      line = nl + 1;
    }
  }
  filetime_format_iso7(stats.first_ft, first, sizeof(first));
  filetime_format_iso7(stats.last_ft, last, sizeof(last));
  if (csv && (trigger_csv_last_time(csv) < stats.first_ft ||
              trigger_csv_first_time(csv) > stats.last_ft)) {
    char from[40], to[40];
    filetime_format_iso7(trigger_csv_first_time(csv), from, sizeof(from));
    filetime_format_iso7(trigger_csv_last_time(csv), to, sizeof(to));
    log_warn("the counter log %s covers %s to %s, the trace %s to %s: they do not overlap, so "
             "the counter triggers saw no sample of the trace's time (is it the log of this "
             "capture, and its time zone bias right?)", counter_log, from, to, first, last);
  }
  log_info("replayed %llu events of %u file(s), %s to %s%s; %lu fire(s)",
           (unsigned long long)stats.events, stats.files, first, last,
           stats.stopped_early ? " (the last collection had stopped)" : "",
           (unsigned long)trigger_engine_fire_count(e));
  rc = trigger_engine_fire_count(e) ? 0 : ETWCAP_E_NOT_FIRED;
  if (rc == 0 && out) {
    work_cancel_begin();
    rc = write_outputs(cli, e, trace, out, window_sec, (int)opt->collect_multiple,
                       opt->stop_command);
    if (rc == ETWCAP_E_CANCELLED && work_cancel_reason())
      log_error("stopped by %s: the temporary files are removed", work_cancel_reason());
    work_cancel_end();
  }
cleanup:
  etwcap_free(problems);
  trigger_csv_free(csv);
  trigger_engine_free(e);
  return rc;
}

const struct command cmd_replay = {
  "replay", run_replay, 0, "TRACE", 1, 1,
  "Run trigger qualifiers over a recorded trace.",
    "Runs the trigger engine over a recorded .etl or .etl.zip on the trace's own clock (every "
    ".etl of a zip, merged by time) and prints one line per fire: "
    "'fired<TAB>TRIGGER<TAB>RAW_TIMESTAMP<TAB>UTC<TAB>DETAIL', so a trigger can be designed "
    "on yesterday's trace before a week-long capture. The collection cycle is a capture's: "
    "start triggers, stop triggers, /DelayAfterTriggerSec, /CollectMultiple. "
    "Counters come from /CounterLog. A /Process name is known once the trace's kernel process "
    "events (or a CLR RuntimeInformation event) name it. With /Out it also writes the capture "
    "each stop would have left. Exit code 0 when something fired, 9 when nothing did.",
  groups,
};
