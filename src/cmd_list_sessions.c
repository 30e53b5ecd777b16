/* `etwcap listSessions`: list the ETW sessions running on this machine.
 * Not built yet: its issue (#6) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { NULL };

const struct command cmd_list_sessions = {
  "listSessions", command_not_built, CMD_NEEDS_WINDOWS, NULL, 0, 0,
  "List the ETW sessions running on this machine.",
    "Lists every running ETW session with its buffers, events lost and file, marking "
    "etwcap's own.",
  groups,
};
