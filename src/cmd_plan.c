/* `etwcap plan`: print the sessions and providers a collect would start.
 * Not built yet: its issue (#5) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, &opt_group_events, &opt_group_rundown, &opt_group_merge, &opt_group_triggers, NULL };

const struct command cmd_plan = {
  "plan", command_not_built, 0, NULL, 0, 0,
  "Print the sessions and providers a collect would start.",
    "Prints the sessions, providers, keywords, levels, filters and files that 'collect' "
    "with the same qualifiers would ask of ETW, without starting anything.",
  groups,
};
