/* `etwcap snapshot [DataFile]`: a snapshot of a running collect's rings, on
 * demand.  The work is in capture_cmd_snapshot.c. */
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_output, NULL };

const struct command cmd_snapshot = {
  "snapshot", capture_cmd_on_system, CMD_NEEDS_WINDOWS, "[DataFile]", 0, 1,
  "Ask a running collect for a snapshot of its in-memory rings.",
  "Asks the 'etwcap collect /InMemoryCircularBuffer' running for DataFile to write its rings "
  "as DataFile.N.etl.zip now (with their rundown; merged and zipped in the background) and "
  "to go on collecting, as a fire does with /SnapshotOnTrigger. A collect without "
  "/InMemoryCircularBuffer says in its log that it has no ring to write. Checked against "
  "the fake controller only; not yet run on a real Windows.",
  groups,
  NULL,
  capture_cmd_snapshot,
};
