/* `etwcap start`: start sessions that keep running after etwcap exits and
 * leave the session record for 'etwcap stop'.  The work is in
 * capture_cmd.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, NULL };

const struct command cmd_start = {
  "start", capture_cmd_on_system, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, "[DataFile]", 0, 1,
  "Start sessions that keep running after etwcap exits.",
    "Starts the sessions as 'collect' would and exits, leaving them running; 'etwcap stop' "
    "(later, from any process or user) stops them, runs rundown and writes the merged "
    "capture.",
  groups,
  NULL,
  capture_cmd_start,
};
