/* `etwcap stop`: stop the sessions 'start' left (or ask a running collect to
 * stop), run rundown, merge and zip.  The work is in capture_cmd_stop.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, &opt_group_rundown, &opt_group_merge, NULL };

const struct command cmd_stop = {
  "stop", capture_cmd_on_system, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Stop sessions left by 'start', run rundown, merge and zip.",
    "Stops the sessions that 'etwcap start' left running for DataFile, runs the CLR "
    "rundown, merges the session files and writes DataFile.zip.",
  groups,
  NULL,
  capture_cmd_stop,
};
