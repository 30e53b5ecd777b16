/* `etwcap stop`: stop sessions left by 'start', run rundown, merge and zip.
 * Not built yet: its issue (#6) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, &opt_group_rundown, &opt_group_merge, NULL };

const struct command cmd_stop = {
  "stop", command_not_built, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Stop sessions left by 'start', run rundown, merge and zip.",
    "Stops the sessions that 'etwcap start' left running for DataFile, runs the CLR "
    "rundown, merges the session files and writes DataFile.zip.",
  groups,
};
