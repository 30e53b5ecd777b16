/* `etwcap selftest`: check on this Windows that every session kind etwcap
 * uses records what it should, with a workload etwcap makes itself; and
 * `etwcap selftestChild`, the hidden command its child process runs.  The
 * work is in selftest_run.c. */
#include "etw/session/controller.h"
#include "src/capture/collection_env.h"
#include "src/capture/session_record.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/selftest/selftest_os.h"
#include "src/selftest/selftest_run.h"

#include <stdio.h>

static const struct opt_group *const groups[] = { NULL };

static int run_selftest(const struct cli *cli)
{
  struct controller ctl, work_ctl;
  struct collection_env env, work_env;
  struct selftest_os os;
  struct selftest_config cfg;
  unsigned long pid;
  int64_t created;
  (void)cli;
  controller_system(&ctl);
  collection_env_system(&env, &ctl);
  /* The workload polls for the session on a thread of its own: its own
   * controller, so the two never share an error slot. */
  controller_system(&work_ctl);
  collection_env_system(&work_env, &work_ctl);
  selftest_os_system(&os);
  session_record_self(&pid, &created);
  cfg.env = &env;
  cfg.work_env = &work_env;
  cfg.os = &os;
  cfg.pid = pid;
  cfg.dir = "";
  cfg.out = stdout;
  return selftest_run(&cfg);
}

static void list_checks(FILE *out)
{
  fputs("\nChecks (each printed as PASS NAME detail, FAIL NAME detail or SKIP NAME why):\n", out);
  selftest_print_checks(out);
}

const struct command cmd_selftest = {
  "selftest", run_selftest, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, NULL, 0, 0,
  "Check that live capture works on this Windows (run it first on a new host).",
    "Runs a capture of about 15 seconds with every session kind etwcap uses (the private "
    "kernel logger with /ThreadTime and stacks, the user session with the CLR and etwcap's own "
    "TraceLogging provider, the CLR rundown, a trigger session), named etwcapSelftest_PID so "
    "it never touches a capture that is running. Meanwhile etwcap starts a .NET child (Windows "
    "PowerShell, left running until the CLR rundown) and a child process of "
    "its own, loads version.dll from the system folder, switches threads and writes "
    "TraceLogging events; a /StopOnEtwEvent trigger on the last of them ends the capture. "
    "Then come short phases: /InMemoryCircularBuffer with a snapshot asked for as 'etwcap "
    "snapshot' asks, /SegmentSec:5 for about 12 s, and on build 20348 and later the same "
    "capture by each /KernelRoute, whose event census it prints side by side. The whole "
    "selftest takes about a minute (under two). It reads every trace back and prints one line "
    "per check, then 'selftest: N passed, M failed'. It exits with 0 only when no check "
    "failed, and leaves etwcap-selftest*.etl.zip and etwcap-selftest.txt in the current "
    "folder for a bug report.",
  groups,
  list_checks,
};

static int run_child(const struct cli *cli)
{
  (void)cli;
  return 0;
}

const struct command cmd_selftest_child = {
  SELFTEST_CHILD_COMMAND, run_child, CMD_HIDDEN, NULL, 0, 0,
  "The child process of 'etwcap selftest'.",
    "Started by 'etwcap selftest' so its trace has a process that starts and ends; it does "
    "nothing and exits with 0.",
  groups,
  NULL,
};
