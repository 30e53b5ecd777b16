/* Filling plan_options from a parsed command line (collect, start, plan).
 * The one place that knows which qualifier feeds which option. */
#ifndef ETWCAP_PLAN_CLI_H
#define ETWCAP_PLAN_CLI_H

#include "etw/plan/plan.h"

#include <stddef.h>

struct cli;
struct trigger_engine;

/* Reads every qualifier the plan uses.  For `plan`, an optional first
 * positional `collect` or `start` picks the command planned (default
 * collect) and the next one is the DataFile; for `collect`/`start` the
 * positional is the DataFile.  The target Windows is /TargetOS, else
 * `running` (the Windows this runs on as the caller knows it, the capture
 * environment's for a capture, collection_env.h; NULL: none), else
 * OS_VERSION_DEFAULT_*.  Strings stay owned by `cli`.  The trigger session
 * enables what `triggers` (the engine the command built from its trigger
 * qualifiers; NULL: none) needs.
 * Returns 0, or ETWCAP_E_USAGE with a message in err. */
int plan_options_from_cli(const struct cli *cli, const struct trigger_engine *triggers,
                          const struct os_version *running, struct plan_options *o, char *err,
                          size_t err_size);

#endif
