/* `etwcap selftest` from start to verdict: a short capture with every
 * session kind (the private kernel logger with /ThreadTime and stacks, the
 * user session with the CLR and etwcap's own TraceLogging provider, the
 * CLR rundown at stop, a trigger session watching the last of etwcap's
 * events) while the workload (selftest_workload.h) runs; then the merged
 * zip is read back and every check of selftest_checks.h judged, printed as
 * `PASS NAME detail`, `FAIL NAME detail` or `SKIP NAME why`, closed by
 * `selftest: N passed, M failed`, and written with the log to
 * etwcap-selftest.txt for a bug report.
 *
 * The capture runs through the same code as `collect` (capture_cmd.h)
 * under its own session names, etwcapSelftest_<pid>..., so it never touches
 * a capture that is running; `abort` leaves them alone while that pid runs
 * (selftest_session_owner).  Portable: the surroundings come in as a
 * selftest_config (selftest_config.h), so tests can drive it with fakes.
 * The driver: it uses the phases (selftest_phases.h), never the reverse. */
#ifndef ETWCAP_SELFTEST_RUN_H
#define ETWCAP_SELFTEST_RUN_H

#include "src/selftest/selftest_config.h"

#include <stdio.h>

#define SELFTEST_SESSION_PREFIX "etwcapSelftest_"
#define SELFTEST_DATA_FILE "etwcap-selftest.etl"
#define SELFTEST_ZIP_FILE "etwcap-selftest.etl.zip"
#define SELFTEST_REPORT_FILE "etwcap-selftest.txt"
#define SELFTEST_MAX_COLLECT_SEC 40 /* a safety net: the trigger ends it in ~15 s */
#define SELFTEST_RUNDOWN_TIMEOUT_SEC 20

/* Runs the selftest.  0 when no check failed, ETWCAP_E_SYSTEM when one did
 * (each printed), another ETWCAP_E_* when the selftest itself could not run. */
int selftest_run(const struct selftest_config *cfg);

/* Whether `name` is a session of a selftest, and of which process: 1 with
 * *pid, else 0. */
int selftest_session_owner(const char *name, unsigned long *pid);

/* `selftest /?`: every check, one per line as "  NAME  what it checks". */
void selftest_print_checks(FILE *out);

#endif
