/* `etwcap run COMMAND [ARGS...]`: PerfView's run — start the sessions, run
 * the command, stop when it exits, merge and zip.  The work is in
 * capture_cmd_collect.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

/* No trigger qualifiers: the command's exit is the trigger (PerfView's Run
 * watches only the command and /MaxCollectSec). */
static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events,
                                                  &opt_group_rundown, &opt_group_merge,
                                                  &opt_group_report, NULL };

const struct command cmd_run = {
  "run", capture_cmd_on_system, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN | CMD_REST_IS_ARGS,
  "COMMAND [ARGS...]", 1, 64,
  "Collect a trace while a command runs, then merge and zip it.",
  "Starts the sessions (files that grow for as long as the command runs unless /CircularMB "
  "is given), waits 100 ms, runs COMMAND with its arguments in this console, and stops "
  "when it exits, /MaxCollectSec passes, S is pressed or 'etwcap stop' is run; then "
  "writes DataFile.zip as collect does, and ends the command if it still runs. A program "
  "(NAME.exe) runs as it is; anything else, or a line with < > &, runs through "
  "'cmd /c call'. Qualifiers go before 'run': everything after it is the command. Checked "
  "under Wine against fakes of advapi32 and of the command; not yet run on a real Windows.",
  groups,
  NULL,
  capture_cmd_run,
};
