/* `etwcap listSessions`: list the ETW sessions running on this machine,
 * marking etwcap's.  The work is in capture_cmd_admin.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { NULL };

const struct command cmd_list_sessions = {
  "listSessions", capture_cmd_on_system, CMD_NEEDS_WINDOWS, NULL, 0, 0,
  "List the ETW sessions running on this machine.",
    "Lists every running ETW session with its buffers, events lost and file, marking "
    "etwcap's own.",
  groups,
  NULL,
  capture_cmd_list,
};
