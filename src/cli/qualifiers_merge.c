/* Qualifiers for merging and zipping after stop (docs/perfview-collection.md
 * §3.5, §8). */
#include "src/cli/qualifiers.h"

static const struct opt_def defs[] = {
  { "Merge", NULL, BIND_TRISTATE(plan.merge), NULL, "true",
    "Merge the session files into one ETL with image identity events.", 0, 0, NULL },
  { "Zip", NULL, BIND_TRISTATE(plan.zip), NULL, "true (false with /Merge:false or /Wpr)",
    "Write NAME.etl.zip (the merged ETL, LogFile.txt, the capture manifest). Implies /Merge.",
    0, 0, NULL },
  { "LowPriority", NULL, BIND_BOOL(low_priority), NULL, NULL,
    "Compress on one thread at below-normal priority, to disturb a busy machine less.", 0, 0,
    NULL },
  { "NoNGenPdbs", NULL, BIND_BOOL(no_ngen_pdbs), NULL, NULL,
    "Put no NGEN PDBs in the zip. Without it, the .NET Framework native images (*.ni.dll) "
    "that the trace's CPU samples or stacks fall in get their PDBs made by the framework's "
    "ngen.exe (ngen createPDB, as PerfView does) and zipped under symbols\\, where PerfView "
    "and 'etwcap unzip' find them. In collect and stop /NoRundown leaves them out too. They "
    "are made only on Windows, where the images are, and only with /Zip; where ngen cannot "
    "run (no .NET Framework 4, Wine) one log line says so and the zip has none. Checked "
    "only against a model of ngen, not yet on a real Windows.",
    0, 0, NULL },
};

const struct opt_group opt_group_merge = OPT_GROUP("Merge and zip", defs);
