/* `etwcap abort`: stop every etwcap session at once, without merging.  The
 * work is in capture_cmd_admin.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, NULL };

const struct command cmd_abort = {
  "abort", capture_cmd_on_system, CMD_NEEDS_WINDOWS | CMD_NEEDS_ADMIN, NULL, 0, 0,
  "Stop every etwcap session at once, without merging.",
    "Stops every session whose name starts with etwcap's prefix (or /SessionName's), "
    "keeping whatever files they wrote. Never touches other tools' sessions. Use it after a "
    "capture was killed.",
  groups,
  NULL,
  capture_cmd_abort,
};
