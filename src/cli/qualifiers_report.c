/* The /Report qualifier of the commands that write a capture (collect,
 * replay /Out): the page of `etwcap report` next to the zip. */
#include "src/cli/qualifiers.h"

static const struct opt_def defs[] = {
  { "Report", NULL, BIND_BOOL(report), NULL, NULL,
    "When the capture's zip is written, also write NAME.report.html next to it: the page "
    "'etwcap report NAME.etl.zip' writes (timeline, GCs, exceptions, processes, symbols). A "
    "failure to write it is reported and leaves the capture as it is.",
    0, 0, NULL },
};

const struct opt_group opt_group_report = OPT_GROUP("Report", defs);
