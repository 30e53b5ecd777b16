/* `etwcap info`: summarise a trace: time range, OS, CPUs, providers, events lost.
 * Not built yet: its issue (#3) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { NULL };

const struct command cmd_info = {
  "info", command_not_built, 0, "FILE", 1, 1,
  "Summarise a trace: time range, OS, CPUs, providers, events lost.",
    "Prints the time range and duration, OS version and build, CPUs, clock, logger, events "
    "and bytes per provider, extended items, events and buffers lost, and compression of a "
    "trace.",
  groups,
};
