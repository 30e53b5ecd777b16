/* `etwcap replay`: run trigger qualifiers over a recorded trace.
 * Not built yet: its issue (#7) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_triggers, NULL };

const struct command cmd_replay = {
  "replay", command_not_built, 0, "TRACE", 1, 1,
  "Run trigger qualifiers over a recorded trace.",
    "Runs the trigger engine over a recorded .etl or .etl.zip on the trace's own clock and "
    "prints one line per fire, so a trigger can be designed on yesterday's trace before a "
    "week-long capture.",
  groups,
};
