/* Qualifiers for the CLR rundown at stop (docs/perfview-collection.md §3.5, §4.4). */
#include "src/cli/qualifiers.h"

static const struct opt_def defs[] = {
  { "NoRundown", NULL, BIND_BOOL(plan.no_rundown), NULL, NULL,
    "Only a minimal CLR rundown at stop, and no EventSource manifest rundown.", 0, 0, NULL },
  { "NoClrRundown", NULL, BIND_BOOL(plan.no_clr_rundown), NULL, NULL, "Only a minimal CLR rundown at stop.", 0, 0,
    NULL },
  { "NoNGenRundown", NULL, BIND_BOOL(plan.no_ngen_rundown), NULL, NULL,
    "Leave out NGen image events (only pre-v4 runtimes need them).", 0, 0, NULL },
  { "ForceNgenRundown", NULL, BIND_BOOL(plan.force_ngen_rundown), NULL, NULL,
    "Do not suppress NGen events in rundown (removes SupressNGen).", 0, 0, NULL },
  { "NoV2Rundown", NULL, BIND_BOOL(plan.no_v2_rundown), NULL, NULL,
    "When false, also run down CLR v2 runtimes through the public CLR provider.", 0, 0, NULL },
  { "RundownTimeout", NULL, BIND_INT(plan.rundown_timeout_sec), "SEC", NULL,
    "Longest wait for the rundown file to stop growing.", 0, 86400, NULL },
  { "MinRundownTime", NULL, BIND_INT(plan.min_rundown_sec), "SEC", NULL, "Shortest wait for rundown.", 0, 86400,
    NULL },
  { "RundownMaxMB", NULL, BIND_INT(plan.rundown_max_mb), "MB", "-1 (no limit)",
    "Largest rundown file (the session's MaximumFileSize).", -1, 1048576, NULL },
};

const struct opt_group opt_group_rundown = OPT_GROUP("Rundown at stop", defs);
