/* `etwcap abort`: stop every etwcap session at once, without merging.
 * Not built yet: its issue (#6) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, NULL };

const struct command cmd_abort = {
  "abort", command_not_built, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, NULL, 0, 0,
  "Stop every etwcap session at once, without merging.",
    "Stops every session whose name starts with etwcap's prefix (or /SessionName's), "
    "keeping whatever files they wrote. Never touches other tools' sessions. Use it after a "
    "capture was killed.",
  groups,
};
