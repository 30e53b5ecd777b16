/* Qualifiers for merging and zipping after stop (perfview-collect.md §3.5, §8). */
#include "qualifiers.h"

static const struct opt_def defs[] = {
  { "Merge", NULL, BIND_TRISTATE(plan.merge), NULL, "true",
    "Merge the session files into one ETL with image identity events.", 0, 0, NULL },
  { "Zip", NULL, BIND_TRISTATE(plan.zip), NULL, "true (false with /Merge:false or /Wpr)",
    "Write NAME.etl.zip (the merged ETL, LogFile.txt, the capture manifest). Implies /Merge.",
    0, 0, NULL },
  { "LowPriority", NULL, BIND_BOOL(low_priority), NULL, NULL,
    "Compress on one thread at below-normal priority, to disturb a busy machine less.", 0, 0,
    NULL },
  { "NoNGenPdbs", NULL, UNBOUND(OPT_BOOL), NULL, "true (etwcap makes no NGen PDBs)",
    "Do not generate NGen PDBs. etwcap never does: it records image identity so symbols "
    "resolve elsewhere.",
    0, 0, NULL },
};

const struct opt_group opt_group_merge = OPT_GROUP("Merge and zip", defs);
