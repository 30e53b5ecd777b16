/* `etwcap schedule create|delete|list`: a Task Scheduler task for a
 * week-long unattended capture (schedule_xml.h), registered with
 * schtasks.exe (schedule_os.h).  Its arguments are its own:
 *   schedule create NAME [/WhatIf] [/Exe:PATH] [collect] [QUALIFIERS...]
 *   schedule delete NAME
 *   schedule list
 * so everything after `schedule` is a positional (CMD_REST_IS_ARGS) and the
 * capture's qualifiers are checked here by the parser `collect` uses,
 * before anything is registered. */
#include "etw/plan/plan.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/registry.h"
#include "src/base/strutil.h"
#include "src/capture/capture_armed.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/os/operator_log_source.h"
#include "src/os/os_proc.h"
#include "src/os/schedule_os.h"
#include "src/os/schedule_xml.h"

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

/* The capture's command line parsed as `collect` would parse it.  1 when it
 * asked for collect's help (printed), 0 when it is good, else an error. */
static int check_capture(char *const *tokens, size_t count, struct cli *capture)
{
  char **argv = etwcap_calloc(count + 1, sizeof(*argv));
  size_t i;
  int rc;
  if (!argv)
    return ETWCAP_E_NOMEM;
  argv[0] = (char *)"etwcap";
  for (i = 0; i < count; i++)
    argv[i + 1] = tokens[i];
  rc = cli_parse(capture, (int)count + 1, argv);
  etwcap_free(argv);
  if (rc) {
    log_error("schedule: the capture's command line: %s", capture->error ? capture->error : "");
    return rc;
  }
  if (capture->help) {
    cli_print_command_help(stdout, capture->cmd);
    return 1;
  }
  for (i = 0; i < count; i++)
    if (!schedule_xml_text_ok(tokens[i])) {
      log_error("schedule: the capture's argument %zu (after collect) is not text a task "
                "can hold (a control character or a line break, or not UTF-8); retype it",
                i);
      return ETWCAP_E_USAGE;
    }
  return capture_armed_check(&capture->q);
}

/* /WhatIf[:true|:false] or /Exe:PATH (or with -), schedule create's own
 * qualifiers, taken wherever they stand: collect has neither.  1 when `t`
 * is one of them, 0 when it belongs to the capture. */
static int own_qualifier(const char *t, int *what_if, const char **exe)
{
  if (*t != '/' && *t != '-')
    return 0;
  t++;
  if (str_caseeq(t, "WhatIf") || str_caseeq(t, "WhatIf:true"))
    *what_if = 1;
  else if (str_caseeq(t, "WhatIf:false"))
    *what_if = 0;
  else if (str_ncaseeq(t, "Exe:", 4))
    *exe = t + 4;
  else
    return 0;
  return 1;
}

/* Task Scheduler starts an Exec action's Command in System32: only a full
 * path (C:\..., \\server\share\...) finds etwcap.exe. */
static int full_windows_path(const char *p)
{
  if (isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
    return p[3] != 0;
  return p[0] == '\\' && p[1] == '\\' && p[2] && p[2] != '\\';
}

/* The Application log's source, with the task's etwcap.exe as its message
 * file, so the entries of /EventLog read cleanly in Event Viewer
 * (operator_log_source.h).  A failure costs only that formatting. */
static void register_event_source(const char *name, const char *exe)
{
  struct registry r;
  int rc;
  registry_system(&r);
  if ((rc = operator_log_source_take(&r, exe)) != 0)
    log_warn("schedule create %s: cannot register the Application log source etwcap "
             "(HKLM\\%s: %s): /EventLog's entries are still written, and Event Viewer shows "
             "each after a line saying its description cannot be found",
             name, OPERATOR_LOG_SOURCE_KEY, etwcap_strerror(rc));
}

/* args[0] is the name; the rest are create's qualifiers and the capture,
 * whose command word `collect` may be left out. */
static int create(char *const *args, size_t count)
{
  const char *name = args[0], *exe = NULL;
  char exe_buf[4096], dir[4096], why[1024];
  /* The abort step gets the whole /SessionName the capture gets: a plan's
   * session names are shorter than PLAN_NAME_MAX (plan.h). */
  char *abort_args[2], session[sizeof("/SessionName:") + PLAN_NAME_MAX], *xml = NULL,
      **capture_args;
  struct schedule_task task;
  struct cli capture;
  size_t i, n = 0;
  int what_if = 0, word = 0, rc;
  if (!(capture_args = etwcap_calloc(count + 1, sizeof(*capture_args))))
    return ETWCAP_E_NOMEM;
  memset(&capture, 0, sizeof(capture));
  capture_args[n++] = (char *)"collect";
  for (i = 1; i < count; i++) {
    if (own_qualifier(args[i], &what_if, &exe))
      continue;
    if (n == 1 && !word && str_caseeq(args[i], "collect")) {
      word = 1; /* given, as the usage shows it */
      continue;
    }
    if (n == 1 && !word && command_find(args[i])) {
      log_error("schedule create %s: the task runs 'collect' (the capture that waits for its "
                "trigger), not '%s'; give collect's qualifiers after the task's name (a "
                "DataFile named '%s' goes after the word collect)",
                name, args[i], args[i]);
      rc = ETWCAP_E_USAGE;
      goto cleanup;
    }
    capture_args[n++] = args[i];
  }
  if (exe && (!full_windows_path(exe) || !schedule_xml_text_ok(exe))) {
    log_error("schedule create %s: /Exe:%s is not a full Windows path; Task Scheduler starts "
              "the task in System32, so name etwcap.exe as C:\\...\\etwcap.exe",
              name, exe);
    rc = ETWCAP_E_USAGE;
    goto cleanup;
  }
  if ((rc = check_capture(capture_args, n, &capture)) != 0) {
    if (rc == 1)
      rc = 0;
    goto cleanup;
  }
  if (!exe && os_is_windows() && os_exe_path(exe_buf, sizeof(exe_buf)) == 0)
    exe = exe_buf;
  if (!exe) {
    exe = DEFAULT_EXE;
    log_warn("schedule create %s: the task runs %s (etwcap.exe's own path is known only on "
             "Windows); /Exe:PATH names another",
             name, exe);
  }
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
  if (os_is_windows() && os_current_dir(dir, sizeof(dir)) == 0) {
    if (!schedule_xml_text_ok(dir)) {
      log_error("schedule create %s: the current folder's name cannot go in a task (a control "
                "character); run it from another folder",
                name);
      rc = ETWCAP_E_USAGE;
      goto cleanup;
    }
    task.work_dir = dir;
  }
  task.abort_args = abort_args;
  task.abort_arg_count = capture.q.plan.session_name ? 2 : 1;
  task.capture_args = capture_args;
  task.capture_arg_count = n;
  if ((rc = schedule_task_xml(&task, &xml)) != 0)
    goto cleanup;
  if (what_if) {
    fputs(xml, stdout);
    rc = fflush(stdout) ? ETWCAP_E_IO : 0;
  } else if ((rc = schedule_os_create(name, xml, why, sizeof(why))) != 0) {
    log_error("schedule create %s: %s", name, why);
  } else {
    printf("Registered the task \\etwcap\\%s: at boot, as SYSTEM, 'etwcap abort' then the "
           "capture. 'schtasks /Run /TN \\etwcap\\%s' starts it now.\n",
           name, name);
    register_event_source(name, exe);
  }
cleanup:
  etwcap_free(xml);
  cli_release(&capture);
  etwcap_free(capture_args);
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
  "schedule create NAME [/WhatIf] [/Exe:PATH] [collect] [QUALIFIERS...] registers the task "
  "\\etwcap\\NAME. It runs two programs in order: 'etwcap abort' (with the capture's "
  "/SessionName), which clears the sessions a killed run left and would make the capture "
  "fail, then 'etwcap collect' with the qualifiers given, in the folder schedule create ran "
  "in (a relative DataFile lands there; Task Scheduler expands %VARIABLES% in the arguments "
  "when it runs them). The qualifiers are checked now, as collect checks them: a bad one "
  "registers nothing. The task starts at boot (a boot trigger, not a logon "
  "one: a capture as SYSTEM needs no one to log on, and a restart brings it back), as SYSTEM "
  "(S-1-5-18) with the highest privileges, with no time limit (PT0S: a time limit would end "
  "it with TerminateProcess, leaving its sessions running), late if the machine was off "
  "when it was due, again up to 3 times a minute apart if it fails, never twice at once, on "
  "battery too, at normal priority (5) so the trigger session keeps up.\n\n"
  "/WhatIf prints the task's XML (Task Scheduler 1.2 schema, UTF-8) on stdout instead of "
  "registering it, on any OS. /Exe:PATH names the etwcap.exe the task runs, as a full "
  "path; the default is this etwcap.exe, or C:\\Program Files\\etwcap\\etwcap.exe off "
  "Windows (with a note on stderr).\n\n"
  "schedule delete NAME removes the task; schedule list shows the tasks under \\etwcap\\. "
  "All three run the system folder's schtasks.exe (/Create /XML with the XML as UTF-16, "
  "/Delete /F, /Query) and need an elevated prompt; 'schtasks /Run /TN \\etwcap\\NAME' "
  "starts a task now.\n\n"
  "Checked: the XML against Microsoft's schema reference (every run of the tests); "
  "registration and deletion only with Wine's schtasks, which keeps a task's description "
  "and settings but not its principal or actions and runs nothing at boot; Wine's schtasks "
  "has no /Query, so list was not checked. Not yet run on a real Windows.",
  NULL,
};
