/* `etwcap dump`: print every event of .etl or .etl.zip files as text.
 * Not built yet: its issue (#3) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { NULL };

const struct command cmd_dump = {
  "dump", command_not_built, 0, "FILE...", 1, 1000,
  "Print every event of .etl or .etl.zip files as text.",
    "Prints one tab-separated line per event (buffer, CPU, raw timestamp, UTC time, header "
    "type, provider, identity, payload size, process and thread, payload CRC) for each .etl "
    "and each .etl member of a zip.",
  groups,
};
