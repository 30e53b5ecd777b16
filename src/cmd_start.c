/* `etwcap start`: start sessions that keep running after etwcap exits.
 * Not built yet: its issue (#6) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, NULL };

const struct command cmd_start = {
  "start", command_not_built, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Start sessions that keep running after etwcap exits.",
    "Starts the sessions as 'collect' would and exits, leaving them running; 'etwcap stop' "
    "(later, from any process or user) stops them, runs rundown and writes the merged "
    "capture.",
  groups,
};
