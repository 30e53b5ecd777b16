/* `etwcap merge`: merge session files into one ETL with image identity and zip it.
 * Not built yet: its issue (#4) fills in the run function. */
#include "cli.h"
#include "command.h"
#include "qualifiers.h"

static const struct opt_group *const groups[] = { &opt_group_merge, NULL };

const struct command cmd_merge = {
  "merge", command_not_built, 0, "DataFile", 1, 1,
  "Merge session files into one ETL with image identity and zip it.",
    "Merges DataFile and its sibling session files (DataFile.kernel.etl, .clrRundown.etl, "
    ".user*.etl) into one ETL with image identity events, and writes DataFile.zip. With "
    "/ImageIDsOnly on an .etl.zip, adds image identity from the images visible where it "
    "runs (inside a container) and writes the zip back.",
  groups,
};
