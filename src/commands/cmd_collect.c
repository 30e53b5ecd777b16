/* `etwcap collect`: start the sessions, wait until stopped (S, /MaxCollectSec,
 * 'etwcap stop', Ctrl+C, console close, shutdown), then stop, run rundown,
 * merge and zip.  The work is in capture_cmd.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, &opt_group_rundown, &opt_group_merge, &opt_group_triggers, &opt_group_snapshots, &opt_group_segments, &opt_group_rundown_period, &opt_group_operators, &opt_group_report, NULL };

const struct command cmd_collect = {
  "collect", capture_cmd_on_system, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Collect a trace until stopped or a trigger fires, then merge and zip it.",
    "Starts the kernel and user sessions (circular files of /CircularMB, 500 MB by "
    "default), waits until you press S, a trigger fires, /MaxCollectSec passes or 'etwcap "
    "stop' is run, then stops, runs the CLR rundown and writes one merged DataFile.zip.",
  groups,
  NULL,
  capture_cmd_collect,
};
