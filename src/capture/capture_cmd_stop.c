/* `stop`: finish a capture left running by `start` — or ask a running
 * `collect` to finish — from any process (see capture_cmd.h). */
#include "src/capture/capture_cmd_internal.h"

#include "etw/plan/plan_describe.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/strutil.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"

#include <stdio.h>
#include <string.h>

#define OWNER_POLL_MS 500u

/* A collect runs and owns the capture: ask it to stop and wait until it has
 * finished (its process ends).  0 when it did; 1 when it died and left its
 * sessions (the record is still there): a normal stop follows. */
static int ask_collect(const struct collection_env *env, const struct session_record *r,
                       const char *record, const char *data_file)
{
  char request[CONTROLLER_PATH_MAX];
  int64_t size;
  int rc = session_request_path(data_file, request, sizeof(request));
  if (!rc)
    rc = session_request_write(request, "stop");
  if (rc) {
    log_error("cannot ask the running 'etwcap collect' (process %lu) to stop: cannot write "
              "'%s': %s",
              r->pid, request, etwcap_strerror(rc));
    return rc;
  }
  printf("Asked the running 'etwcap collect' (process %lu) to stop; waiting while it runs the "
         "rundown and writes the capture.\n",
         r->pid);
  fflush(stdout);
  while (session_record_owner_alive(r->pid, r->pid_created))
    env->sleep_ms(env->ctx, OWNER_POLL_MS);
  os_remove(request);
  if (env->file_size(env->ctx, record, &size) == 0) {
    log_warn("the 'etwcap collect' process %lu ended without stopping its sessions; stopping "
             "them here",
             r->pid);
    return 1;
  }
  printf("The collect finished (its output says where the capture is).\n");
  return 0;
}

/* No record: look for the plan's sessions by name (a record that could not
 * be written, or sessions started by PerfView-like tooling with our names). */
static size_t adopt_by_name(struct collection *c, const struct plan *plan)
{
  struct controller *ctl = c->env->ctl;
  size_t i;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    struct controller_status st;
    if (s->when != PLAN_AT_START ||
        (s->role != PLAN_ROLE_KERNEL && s->role != PLAN_ROLE_USER && s->role != PLAN_ROLE_HEAP))
      continue;
    if (ctl->ops->query(ctl, s->name, &st) != 0)
      continue;
    collection_adopt(c, s->role, s->name, st.file[0] ? st.file : (s->file ? s->file : ""),
                     st.log_file_mode, st.maximum_file_size_mb);
  }
  return c->count;
}

int capture_cmd_stop(const struct cli *cli, const struct collection_env *env)
{
  struct session_record r;
  struct log_memory log;
  struct collection c;
  struct plan plan;
  char record[CONTROLLER_PATH_MAX], why[512];
  int have_record = 0, rc;
  size_t i;

  capture_cmd_log_begin(&log, cli);
  memset(&r, 0, sizeof(r));
  rc = capture_cmd_plan(env, cli, "collect", NULL, NULL, &plan);
  if (!rc && session_record_path(plan.data_file, record, sizeof(record)) != 0)
    rc = ETWCAP_E_RANGE;
  if (!rc) {
    int rrc = session_record_read(record, &r, why, sizeof(why));
    if (rrc == 0)
      have_record = 1;
    else if (rrc != ETWCAP_E_NOENT) {
      log_error("%s", why);
      rc = rrc;
    }
  }
  if (!rc && have_record && r.data_file[0] && strcmp(r.data_file, plan.data_file) != 0) {
    /* The record names the files as `start` saw them: use its name so the
     * rundown file and the merge land beside them. */
    plan_release(&plan);
    rc = capture_cmd_plan(env, cli, "collect", r.data_file, NULL, &plan);
  }
  if (!rc && have_record && str_caseeq(r.mode, "collect") &&
      session_record_owner_alive(r.pid, r.pid_created)) {
    rc = ask_collect(env, &r, record, plan.data_file);
    if (rc <= 0)
      goto done;
    rc = 0;
    session_record_release(&r);
    have_record = session_record_read(record, &r, why, sizeof(why)) == 0;
  }
  if (rc)
    goto done;
  capture_cmd_open_console();

  collection_init(&c, env);
  if (have_record) {
    capture_cmd_log_prepend(&log, r.start_log);
    log_info("stopping the capture started %s by process %lu on %s", r.mode, r.pid,
             r.machine);
    for (i = 0; i < r.session_count; i++)
      collection_adopt(&c, plan_role_from_name(r.sessions[i].role), r.sessions[i].name,
                       r.sessions[i].file, r.sessions[i].log_file_mode,
                       r.sessions[i].maximum_file_size_mb);
    c.profile_interval_100ns = r.profile_interval_100ns;
    packet_capture_adopt(&c.packet, r.packet_capture_file, r.packet_capture_netmon);
    c.heap_flag = r.heap_flag; /* put back by collection_stop */
    for (i = 0; i < r.warning_count; i++)
      log_warn("at start: %s", r.warnings[i]);
    if (r.containers_at_start &&
        container_inventory_parse_record(&c.containers.at_start, r.containers_at_start,
                                         strlen(r.containers_at_start), why, sizeof(why)) != 0)
      log_warn("the session record's container inventory cannot be read (%s): the manifest "
               "has only the one taken now", why);
  } else if (adopt_by_name(&c, &plan) == 0) {
    log_error("there is no capture to stop for '%s': no session record '%s' and no session "
              "named like the plan's is running. 'etwcap listSessions' shows what runs; give "
              "the DataFile (or /SessionName) that 'start' was given.",
              plan.data_file, record);
    rc = ETWCAP_E_NO_SESSION;
    console_close();
    goto done;
  } else {
    log_warn("no session record '%s': stopping the sessions found by name", record);
    /* PerfView's stop is given the capture's switches again: with
     * /NetworkCapture it ends netsh's capture too. */
    if (plan.packet_capture.on)
      packet_capture_adopt(&c.packet, plan.packet_capture.trace_file, plan.packet_capture.netmon);
  }

  rc = capture_cmd_finish(&c, &plan, cli, &log, NULL, have_record ? record : NULL);
  console_close();
done:
  session_record_release(&r);
  plan_release(&plan);
  capture_cmd_log_end(&log);
  return rc;
}
