/* `collect` and `start`, and the helpers every live-collection command
 * shares (see capture_cmd.h). */
#include "src/capture/capture_cmd_internal.h"

#include "etw/merge/merge_inputs.h"
#include "etw/plan/plan_describe.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/rundown.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/plan_cli.h"
#include "src/finish/capture_finish.h"
#include "src/os/os_proc.h"
#include "src/report/report_file.h"

#include <stdio.h>
#include <string.h>

/* --- shared helpers -------------------------------------------------------- */

int capture_cmd_plan(const struct collection_env *env, const struct cli *cli,
                     const char *command, const char *data_file,
                     const struct trigger_engine *triggers, struct plan *plan)
{
  struct plan_options o;
  char err[512];
  size_t i;
  int rc;
  memset(plan, 0, sizeof(*plan));
  rc = plan_options_from_cli(cli, triggers, env->os_known ? &env->os : NULL, &o, err,
                             sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  if (command)
    o.command = command;
  if (data_file)
    o.data_file = data_file;
  if (!o.pid) {
    /* The trigger session is etwcapTrigger_<our pid>. */
    int64_t created;
    session_record_self(&o.pid, &created);
  }
  rc = plan_build(&o, plan);
  if (rc) {
    log_error("%s", plan->error[0] ? plan->error : etwcap_strerror(rc));
    return rc;
  }
  for (i = 0; i < plan->note_count; i++)
    log_info("note: %s", plan->notes[i]);
  return 0;
}

void capture_cmd_log_begin(struct log_memory *log, const struct cli *cli)
{
  char os[128], machine[256];
  memset(log, 0, sizeof(*log));
  log_add_sink(log_memory_sink, log, LOG_DEBUG);
  /* Debug level: LogFile.txt gets them, the console does not. */
  log_debug("%s", cli->command_line ? cli->command_line : "etwcap");
  log_debug("etwcap on %s (%s)", os_hostname(machine, sizeof(machine)),
           os_describe(os, sizeof(os)));
}

void capture_cmd_log_end(struct log_memory *log)
{
  log_remove_sink(log_memory_sink, log);
  log_memory_release(log);
}

void capture_cmd_log_prepend(struct log_memory *log, const char *text)
{
  size_t n = text ? strlen(text) : 0;
  char *joined;
  if (!n || n > LOG_MEMORY_MAX_BYTES / 2)
    return;
  joined = etwcap_malloc(n + log->len + 1);
  if (!joined)
    return; /* the earlier log is not worth failing the stop for */
  memcpy(joined, text, n);
  if (log->len)
    memcpy(joined + n, log->text, log->len);
  joined[n + log->len] = '\0';
  etwcap_free(log->text);
  log->text = joined;
  log->len += n;
  log->cap = log->len + 1;
}

FILE *capture_cmd_console(void)
{
  return os_stderr_is_terminal() ? stderr : NULL;
}

const char *capture_cmd_prefix(const struct cli *cli)
{
  const char *p = cli->q.plan.session_name;
  return p && *p ? p : "etwcap";
}

int capture_cmd_write_record(const struct collection *c, const struct plan *plan,
                             const struct cli *cli, const char *mode,
                             const struct log_memory *log)
{
  struct session_record r;
  char path[CONTROLLER_PATH_MAX];
  size_t i;
  int rc;

  memset(&r, 0, sizeof(r));
  snprintf(r.mode, sizeof(r.mode), "%s", mode);
  session_record_self(&r.pid, &r.pid_created);
  os_hostname(r.machine, sizeof(r.machine));
  /* The user session's file as ETW keeps it (absolute): a stop run from
   * another folder with an absolute DataFile still finds every file. */
  snprintf(r.data_file, sizeof(r.data_file), "%s", plan->data_file);
  for (i = 0; i < c->count; i++)
    if (c->sessions[i].role == PLAN_ROLE_USER && c->sessions[i].file[0] &&
        !(c->sessions[i].log_file_mode & PLAN_BUFFERING_MODE))
      snprintf(r.data_file, sizeof(r.data_file), "%s", c->sessions[i].file);
  r.start_filetime = c->start_filetime;
  r.profile_interval_100ns = c->profile_interval_100ns;
  r.heap_flag = c->heap_flag;
  for (i = 0; i < c->count && i < PLAN_MAX_SESSIONS; i++) {
    const struct collection_session *cs = &c->sessions[i];
    struct session_record_session *s = &r.sessions[r.session_count++];
    snprintf(s->role, sizeof(s->role), "%s", plan_role_name(cs->role));
    snprintf(s->name, sizeof(s->name), "%s", cs->name);
    snprintf(s->file, sizeof(s->file), "%s", cs->file);
    s->log_file_mode = cs->log_file_mode;
    s->maximum_file_size_mb = cs->maximum_file_size_mb;
    if (cs->plan) {
      s->buffer_size_kb = cs->plan->buffer_size_kb;
      s->minimum_buffers = cs->plan->minimum_buffers;
      s->maximum_buffers = cs->plan->maximum_buffers;
      s->enable_flags = cs->plan->enable_flags;
      s->plan = cs->plan;
      s->keyword_bits = cs->keyword_bits;
      s->keyword_bit_count = COLLECTION_KEYWORD_PROVIDERS;
    }
  }
  /* Borrowed for writing; not released. */
  for (i = 0; i < c->warning_count && i < SESSION_RECORD_MAX_WARNINGS; i++)
    r.warnings[r.warning_count++] = (char *)c->warnings[i];
  if (c->packet.running) {
    snprintf(r.packet_capture_file, sizeof(r.packet_capture_file), "%s", c->packet.trace_file);
    r.packet_capture_netmon = c->packet.netmon;
  }
  r.command_line = cli->command_line;
  r.start_log = log->text;
  if (c->containers.at_start.taken) {
    struct strbuf b = { NULL, 0, 0, 0 };
    container_inventory_record_json(&b, &c->containers.at_start);
    if (strbuf_finish(&b, &r.containers_at_start) != 0)
      r.containers_at_start = NULL; /* stop's manifest then has no start inventory */
  }
  if ((rc = session_record_path(plan->data_file, path, sizeof(path))) == 0)
    rc = session_record_write(path, &r);
  etwcap_free(r.containers_at_start);
  if (rc)
    log_warn("cannot write the session record '%s': %s; 'etwcap stop' will look for the "
             "sessions by name",
             path, etwcap_strerror(rc));
  else
    log_debug("session record: %s", path);
  return rc;
}

/* A second Ctrl+C (or the first, in `stop`) cuts the rundown wait short. */
struct cut_ctx {
  unsigned baseline;
};

static int cut_rundown(void *ctx)
{
  const struct cut_ctx *cut = ctx;
  return console_signal_count() > cut->baseline;
}

static void log_losses(const struct collection *c)
{
  size_t i;
  for (i = 0; i < c->count; i++) {
    const struct collection_session *cs = &c->sessions[i];
    if (cs->has_status)
      log_info("'%s': %lu events lost, %lu buffers lost, %lu buffers written (from the "
               "session's last query)",
               cs->name, (unsigned long)cs->status.events_lost,
               (unsigned long)(cs->status.log_buffers_lost + cs->status.realtime_buffers_lost),
               (unsigned long)cs->status.buffers_written);
  }
}

void capture_cmd_rundown(struct collection *c, const struct plan *plan)
{
  struct cut_ctx cut = { console_signal_count() };
  enum console_signal sig = console_signal_pending();
  size_t i;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    struct rundown_result rr;
    if (s->when != PLAN_AT_STOP)
      continue;
    if (console_signal_ends_process(sig)) {
      /* Windows ends the process seconds after a close, logoff or
       * shutdown: a rundown session started now would be left running. */
      log_warn("%s: Windows is ending etwcap, so '%s' is not started (the trace has no "
               "CLR rundown; PerfView's /NoRundown traces look the same)",
               console_signal_name(sig), s->name);
      continue;
    }
    if (s->role == PLAN_ROLE_KERNEL_RUNDOWN)
      rundown_kernel(c->env, s, &rr);
    else if (s->role == PLAN_ROLE_RUNDOWN)
      rundown_run(c->env, s, plan->enable_parameters_version, cut_rundown, &cut, &rr);
  }
}

int capture_cmd_finish(struct collection *c, const struct plan *plan, const struct cli *cli,
                       struct log_memory *log, const struct manifest_trigger *trigger,
                       const char *record)
{
  struct capture_finish_params p;
  struct capture_finish_result r;
  struct identity_options io;
  char why[1024];
  int64_t size = 0;
  int rc = collection_stop(c), frc;

  log_losses(c);
  capture_cmd_rundown(c, plan);
  /* Every session, rundown included, is stopped: a console handler holding
   * the process for a close may let it go. */
  console_stop_done();
  /* Kept while /OSHeapExe's TracingFlags could not be put back: 'etwcap
   * abort' reads it to try again. */
  if (record && !c->heap_flag.exe[0])
    os_remove(record);
  if (!plan->merge) {
    container_capture_release(&c->containers);
    printf("Stopped. /Merge:false: the session files stay as they are (%s and its siblings).\n",
           plan->data_file);
    return rc;
  }
  if (c->env->file_size(c->env->ctx, plan->data_file, &size) != 0) {
    log_error("the user session wrote no '%s', so there is nothing to merge", plan->data_file);
    container_capture_release(&c->containers);
    return rc ? rc : ETWCAP_E_NOENT;
  }
  /* From here Ctrl+C ends etwcap as usual: the merge never deletes its
   * inputs before the zip is verified, and 'etwcap merge' can redo it. */
  console_close();
  memset(&p, 0, sizeof(p));
  p.data_file = plan->data_file;
  p.zip = plan->zip;
  p.low_priority = cli->q.low_priority;
  p.command_line = cli->command_line;
  p.trigger = trigger;
  p.health = c->health.count ? &c->health : NULL; /* `stop` saw none of it */
  p.log = log;
  p.console = capture_cmd_console();
  /* PerfView makes none with /NoRundown either (docs/perfview-collection.md §8.1). */
  p.ngen = (p.zip || cli->q.plan.wpr) && !cli->q.no_ngen_pdbs && !cli->q.plan.no_rundown
               ? &ngen_runner_os
               : NULL;
  /* While the containers still run: their volumes' map, and through it the
   * identity of their images (docs/containers.md). */
  memset(&io, 0, sizeof(io));
  io.use_os_mapping = os_is_windows();
  if (container_capture_at_stop(&c->containers, &io, 1, c->env->utc_now(c->env->ctx)) != 0)
    log_warn("no image identity: out of memory for its cache");
  p.identity = c->containers.identity;
  p.containers = &c->containers;
  frc = capture_finish(&p, &r, why, sizeof(why));
  container_capture_release(&c->containers);
  if (frc) {
    log_error("%s. The session files are kept: 'etwcap merge %s' tries again.", why,
              plan->data_file);
    return frc;
  }
  capture_finish_print(&r);
  if (cli->q.report)
    report_after_capture(r.output);
  return rc;
}

/* --- before starting ------------------------------------------------------- */

static void delete_if_present(const struct collection_env *env, const char *path)
{
  int64_t size;
  if (env->file_size(env->ctx, path, &size) != 0)
    return;
  if (os_remove(path) == 0)
    log_info("deleted '%s', left by an earlier capture", path);
  else
    log_warn("cannot delete '%s', left by an earlier capture", path);
}

/* Files of an earlier capture under the same name would be merged into this
 * one (PerfView deletes them too).  The earlier .etl.zip stays until the new
 * one is written and verified. */
static void delete_stale(const struct collection_env *env, const struct plan *plan)
{
  struct merge_inputs in;
  size_t i;
  if (merge_inputs_find(plan->data_file, &in) == 0) {
    for (i = 0; i < in.count; i++)
      delete_if_present(env, in.paths[i]);
    merge_inputs_release(&in);
  }
  for (i = 0; i < plan->session_count; i++)
    if (plan->sessions[i].file)
      delete_if_present(env, plan->sessions[i].file);
  /* netsh's file too, as PerfView deletes it before 'netsh trace start'. */
  if (plan->packet_capture.on)
    delete_if_present(env, plan->packet_capture.trace_file);
}

/* Checks and cleaning shared by start and collect. */
int capture_cmd_prepare(const struct collection_env *env, const struct plan *plan)
{
  char why[700];
  int rc = collection_check_free(env, plan, why, sizeof(why));
  if (!rc)
    rc = collection_check_disk(env, plan, why, sizeof(why));
  if (rc) {
    log_error("%s", why);
    return rc;
  }
  delete_stale(env, plan);
  return 0;
}

void capture_cmd_open_console(void)
{
  int rc = console_open();
  if (rc)
    log_warn("cannot install the console handler (%s): Ctrl+C and closing the console end "
             "etwcap without stopping its sessions; 'etwcap stop' then finishes the capture",
             etwcap_strerror(rc));
}

void capture_cmd_cancelled_message(int rc)
{
  if (rc == ETWCAP_E_CANCELLED)
    log_error("cancelled before the capture started: every session started was stopped and "
              "nothing was written");
}

/* --- start ------------------------------------------------------------------- */

int capture_cmd_start(const struct cli *cli, const struct collection_env *env)
{
  struct log_memory log;
  struct collection c;
  struct plan plan;
  size_t i;
  int rc;

  capture_cmd_log_begin(&log, cli);
  rc = capture_cmd_plan(env, cli, "start", NULL, NULL, &plan);
  if (!rc)
    capture_cmd_open_console();
  if (!rc)
    rc = capture_cmd_prepare(env, &plan);
  if (!rc) {
    collection_init(&c, env);
    rc = collection_start(&c, &plan);
    capture_cmd_cancelled_message(rc);
  }
  if (!rc) {
    log_info("started; 'etwcap stop' finishes the capture");
    /* Kept in the record: `stop` is another process. */
    container_capture_at_start(&c.containers, env->utc_now(env->ctx));
    rc = capture_cmd_write_record(&c, &plan, cli, "start", &log);
    container_capture_release(&c.containers);
    if (rc) {
      /* Without the record a later stop could still find the sessions by
       * name, but not this log nor a renamed kernel session: stop now. */
      log_error("stopping the sessions again: without the session record 'etwcap stop' "
                "could not finish this capture");
      collection_stop(&c);
    }
  }
  if (!rc) {
    printf("Started %lu session%s:", (unsigned long)c.count, c.count == 1 ? "" : "s");
    for (i = 0; i < c.count; i++)
      printf("%s%s -> %s", i ? ", " : " ", c.sessions[i].name, c.sessions[i].file);
    printf(".\nThey keep running after etwcap exits. 'etwcap stop%s%s' stops them and writes "
           "%s.\n",
           cli->arg_count || cli->q.plan.data_file ? " " : "",
           cli->arg_count || cli->q.plan.data_file ? plan.data_file : "",
           plan.zip_file ? plan.zip_file : plan.data_file);
  }
  console_close();
  plan_release(&plan);
  capture_cmd_log_end(&log);
  return rc;
}

int capture_cmd_on_system(const struct cli *cli)
{
  struct controller ctl;
  struct collection_env env;
  controller_system(&ctl);
  collection_env_system(&env, &ctl);
  return cli->cmd->run_in(cli, &env);
}
