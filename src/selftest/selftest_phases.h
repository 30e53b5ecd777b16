/* The selftest's phases after its main capture: short captures of what the
 * main one does not exercise, each read back into an event census the
 * checks judge (selftest_checks.h):
 *   SNAPSHOT  /InMemoryCircularBuffer, then a snapshot asked for as
 *             `etwcap snapshot` asks (the request file): NAME.1.etl.zip
 *             while the rings go on;
 *   SEGMENTS  /SegmentSec:5 for about 12 s: the segments' own zips;
 *   ROUTES    on build 20348 and later, the same short capture by each
 *             kernel route (/KernelRoute:groupMask, :systemProviders).
 * Each is a `collect` on the caller's thread under the selftest's session
 * names; a helper thread waits for its sessions, makes CPU and
 * context-switch work (selftest_os.h), and asks the capture for its
 * snapshot and its stop through the request file, as `etwcap snapshot`
 * and `etwcap stop` do.  Portable: the surroundings come in as the
 * selftest's config (selftest_config.h), so tests drive it with fakes. */
#ifndef ETWCAP_SELFTEST_PHASES_H
#define ETWCAP_SELFTEST_PHASES_H

#include "src/base/strbuf.h"
#include "src/selftest/selftest_checks.h"
#include "src/selftest/selftest_config.h"

#include <stdint.h>
#include <stdio.h>

#define SELFTEST_SNAPSHOT_FILE "etwcap-selftest-snapshot.etl"
#define SELFTEST_SEGMENTS_FILE "etwcap-selftest-segments.etl"
#define SELFTEST_ROUTE_FILE "etwcap-selftest-route.etl"
/* The whole selftest must end within two minutes: the phases share what the
 * main capture left of SELFTEST_BUDGET_SEC (the rest is for reading back).
 * A phase that would not fit is not run and FAILs, saying so. */
#define SELFTEST_BUDGET_SEC 110u
#define SELFTEST_PHASE_STOP_SEC 15u     /* a phase's stop: rundown, merge, zip */
#define SELFTEST_PHASE_RUNDOWN_SEC 10   /* its /RundownTimeout */
#define SELFTEST_PHASE_MAX_SEC 25u      /* a safety net: each phase asks for its stop */
#define SELFTEST_SNAPSHOT_NEED_SEC 8u
#define SELFTEST_ROUTE_NEED_SEC 5u
#define SELFTEST_SNAPSHOT_WAIT_MS 20000u

/* Runs the phases into o->snapshot, o->segments, o->routes[] (ROUTES only
 * when o->os_build is SELFTEST_ROUTES_BUILD or later).  `prefix` is the
 * selftest's session name prefix, `start_ms` when the selftest began on
 * cfg->env's clock.  Never fails: what went wrong is in each phase's why. */
void selftest_phases_run(const struct selftest_config *cfg, const char *prefix,
                         uint64_t start_ms, struct selftest_outcome *o);

/* The routes' censuses side by side, one line per event kind, to `out`
 * and `txt` (either may be NULL).  Nothing when ROUTES did not run. */
void selftest_phases_print_routes(const struct selftest_outcome *o, FILE *out,
                                  struct strbuf *txt);

#endif
