/* `etwcap collect`: collect a trace until stopped or a trigger fires, then merge and zip it.
 * Not built yet: its issue (#6) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, &opt_group_rundown, &opt_group_merge, &opt_group_triggers, NULL };

const struct command cmd_collect = {
  "collect", command_not_built, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Collect a trace until stopped or a trigger fires, then merge and zip it.",
    "Starts the kernel and user sessions (circular files of /CircularMB, 500 MB by "
    "default), waits until you press S, a trigger fires, /MaxCollectSec passes or 'etwcap "
    "stop' is run, then stops, runs the CLR rundown and writes one merged DataFile.zip.",
  groups,
};
