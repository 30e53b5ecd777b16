/* `etwcap schedule create|delete|list`: a Task Scheduler task for a
 * week-long unattended capture (schedule_xml.h), registered with
 * schtasks.exe (schedule_os.h).  Its arguments are its own:
 *   schedule create NAME [/WhatIf] [/Exe:PATH] collect [QUALIFIERS...]
 *   schedule delete NAME
 *   schedule list
 * so everything after `schedule` is a positional (CMD_REST_IS_ARGS) and the
 * capture's qualifiers are checked here by the parser `collect` uses. */
#include "alloc.h"
#include "cli.h"
#include "collection_armed.h"
#include "command.h"
#include "error.h"
#include "log.h"
#include "os_proc.h"
#include "schedule_os.h"
#include "schedule_xml.h"
#include "strutil.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Where the task finds etwcap.exe when /WhatIf prints a task off Windows. */
#define DEFAULT_EXE "C:\\Program Files\\etwcap\\etwcap.exe"

/* A task name is a file name under \etwcap\: letters, digits, - _ . */
static int good_name(const char *name)
{
  const char *p;
  if (!*name || strlen(name) > 64 || *name == '.')
    return 0;
  for (p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
      return 0;
  return 1;
}

/* The capture's command line parsed as `collect` would parse it. */
static int check_capture(char *const *tokens, size_t count, struct cli *capture)
{
  char *argv[256];
  size_t i;
  int rc;
  if (count + 1 > sizeof(argv) / sizeof(argv[0])) {
    log_error("schedule: too many arguments for the capture");
    return ETWCAP_E_USAGE;
  }
  argv[0] = (char *)"etwcap";
  for (i = 0; i < count; i++)
    argv[i + 1] = tokens[i];
  rc = cli_parse(capture, (int)count + 1, argv);
  if (rc) {
    log_error("schedule: the capture's command line: %s", capture->error ? capture->error : "");
    return rc;
  }
  if (!capture->cmd || !str_caseeq(capture->cmd->name, "collect")) {
    log_error("schedule: the task runs 'collect' (the capture that waits for its trigger); "
              "give 'collect' and its qualifiers after the task's name");
    return ETWCAP_E_USAGE;
  }
  return armed_check(&capture->q);
}

static int create(char *const *args, size_t count)
{
  const char *name = args[0], *exe = NULL;
  char exe_buf[4096], dir[4096], why[1024];
  char *abort_args[2], session[600], *xml = NULL;
  struct schedule_task task;
  struct cli capture;
  size_t i = 1;
  int what_if = 0, rc;
  memset(&capture, 0, sizeof(capture));
  /* Its own qualifiers, up to the capture's command word. */
  for (; i < count && (args[i][0] == '/' || args[i][0] == '-'); i++) {
    if (str_caseeq(args[i], "/WhatIf") || str_caseeq(args[i], "-WhatIf"))
      what_if = 1;
    else if (!strncmp(args[i] + 1, "Exe:", 4) && (args[i][0] == '/' || args[i][0] == '-'))
      exe = args[i] + 5;
    else {
      log_error("schedule create: '%s' is neither /WhatIf nor /Exe:PATH; the capture's "
                "qualifiers go after 'collect'",
                args[i]);
      return ETWCAP_E_USAGE;
    }
  }
  if (i == count) {
    log_error("schedule create %s: give the capture: ... collect [qualifiers]", name);
    return ETWCAP_E_USAGE;
  }
  if ((rc = check_capture(args + i, count - i, &capture)) != 0) {
    cli_release(&capture);
    return rc;
  }
  if (!exe)
    exe = os_exe_path(exe_buf, sizeof(exe_buf)) == 0 && os_is_windows() ? exe_buf : DEFAULT_EXE;
  abort_args[0] = (char *)"abort";
  if (capture.q.plan.session_name)
    snprintf(session, sizeof(session), "/SessionName:%s", capture.q.plan.session_name);
  abort_args[1] = session;
  memset(&task, 0, sizeof(task));
  task.name = name;
  task.exe = exe;
  task.encoding = what_if ? "UTF-8" : "UTF-16";
  /* A relative DataFile lands where `schedule create` ran, not in the
   * service's folder (System32). */
  if (os_is_windows() && os_current_dir(dir, sizeof(dir)) == 0)
    task.work_dir = dir;
  task.abort_args = abort_args;
  task.abort_arg_count = capture.q.plan.session_name ? 2 : 1;
  task.capture_args = args + i;
  task.capture_arg_count = count - i;
  rc = schedule_task_xml(&task, &xml);
  cli_release(&capture);
  if (rc)
    return rc;
  if (what_if) {
    fputs(xml, stdout);
    rc = fflush(stdout) ? ETWCAP_E_IO : 0;
  } else if ((rc = schedule_os_create(name, xml, why, sizeof(why))) != 0) {
    log_error("schedule create %s: %s", name, why);
  } else {
    printf("Registered the task \\etwcap\\%s: at boot, as SYSTEM, 'etwcap abort' then the "
           "capture. 'schtasks /Run /TN \\etwcap\\%s' starts it now.\n",
           name, name);
  }
  etwcap_free(xml);
  return rc;
}

static int run_schedule(const struct cli *cli)
{
  const char *action = cli->args[0];
  char why[1024];
  int rc;
  if (str_caseeq(action, "list")) {
    if (cli->arg_count > 1) {
      log_error("schedule list takes no arguments");
      return ETWCAP_E_USAGE;
    }
    if ((rc = schedule_os_list(why, sizeof(why))) != 0)
      log_error("schedule list: %s", why);
    return rc;
  }
  if (!str_caseeq(action, "create") && !str_caseeq(action, "delete")) {
    log_error("schedule: '%s' is not create, delete or list", action);
    return ETWCAP_E_USAGE;
  }
  if (cli->arg_count < 2 || !good_name(cli->args[1])) {
    log_error("schedule %s: give the task's name (letters, digits, - _ .), e.g. 'etwcap "
              "schedule %s nightly%s'",
              action, action, str_caseeq(action, "create") ? " collect /StopOnGen2GC" : "");
    return ETWCAP_E_USAGE;
  }
  if (str_caseeq(action, "create"))
    return create(cli->args + 1, cli->arg_count - 1);
  if (cli->arg_count > 2) {
    log_error("schedule delete takes only the task's name");
    return ETWCAP_E_USAGE;
  }
  if ((rc = schedule_os_delete(cli->args[1], why, sizeof(why))) != 0)
    log_error("schedule delete %s: %s", cli->args[1], why);
  return rc;
}

const struct command cmd_schedule = {
  "schedule", run_schedule, CMD_REST_IS_ARGS, "create|delete|list [NAME] [...]", 1, 128,
  "Register a week-long capture with Task Scheduler.",
  "schedule create NAME [/WhatIf] [/Exe:PATH] collect [QUALIFIERS...] registers the task "
  "\\etwcap\\NAME: at boot, as SYSTEM (S-1-5-18) with the highest privileges, no time limit "
  "(PT0S), started late if the machine was off, restarted up to 3 times a minute apart on "
  "failure, never two at once, on battery too; it runs 'etwcap abort' (with the capture's "
  "/SessionName) and then 'etwcap collect' with the qualifiers given, which are checked now "
  "as collect checks them, in the folder schedule create ran in (a relative DataFile lands "
  "there). /WhatIf prints the task's XML (Task Scheduler 1.2 schema) instead "
  "of registering it, on any OS; /Exe:PATH names etwcap.exe (default: this one, or "
  "C:\\Program Files\\etwcap\\etwcap.exe off Windows). schedule delete NAME removes the task; "
  "schedule list shows etwcap's tasks. Registration runs schtasks.exe /Create /XML; needs an "
  "elevated prompt. Checked under Wine, whose Task Scheduler is partial; not yet run on a real "
  "Windows.",
  NULL,
};
