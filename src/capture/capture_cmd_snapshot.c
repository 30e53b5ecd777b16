/* `snapshot`: ask a running collect with in-memory rings for a snapshot
 * (collection_snapshot.h), through its request file, as `stop` asks it to
 * stop.  The collect writes NAME.N.etl.zip and goes on. */
#include "src/capture/capture_cmd_internal.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"

#include <stdio.h>
#include <string.h>

int capture_cmd_snapshot(const struct cli *cli, const struct collection_env *env)
{
  struct session_record r;
  struct plan plan;
  char record[CONTROLLER_PATH_MAX], request[CONTROLLER_PATH_MAX], why[512];
  int rc;

  memset(&r, 0, sizeof(r));
  rc = capture_cmd_plan(env, cli, "collect", NULL, NULL, &plan);
  if (!rc && (session_record_path(plan.data_file, record, sizeof(record)) ||
              session_request_path(plan.data_file, request, sizeof(request)))) {
    log_error("the data file name '%s' is too long", plan.data_file);
    rc = ETWCAP_E_RANGE;
  }
  if (!rc && (rc = session_record_read(record, &r, why, sizeof(why))) != 0) {
    if (rc == ETWCAP_E_NOENT) {
      log_error("no capture runs for '%s' (no session record '%s'): give the DataFile the "
                "collect was given",
                plan.data_file, record);
      rc = ETWCAP_E_NO_SESSION;
    } else {
      log_error("%s", why);
    }
  }
  if (!rc && !(str_caseeq(r.mode, "collect") && session_record_owner_alive(r.pid, r.pid_created))) {
    log_error("the capture of '%s' was left by 'etwcap %s' and no etwcap process runs it: a "
              "snapshot is written by a running 'collect /InMemoryCircularBuffer'. 'etwcap "
              "stop' finishes this capture.",
              plan.data_file, r.mode);
    rc = ETWCAP_E_UNSUPPORTED;
  }
  if (!rc && (rc = session_request_write(request, "snapshot")) != 0)
    log_error("cannot ask the running collect (process %lu) for a snapshot: cannot write '%s': "
              "%s",
              r.pid, request, etwcap_strerror(rc));
  if (!rc)
    printf("Asked the running 'etwcap collect' (process %lu) for a snapshot: it writes the "
           "next %s.N.etl.zip and goes on (its log says which).\n",
           r.pid, plan.data_file);
  session_record_release(&r);
  plan_release(&plan);
  return rc;
}
