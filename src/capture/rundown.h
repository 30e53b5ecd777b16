/* Rundown at stop, as PerfView does it (docs/perfview-collection.md §4.4,
 * §7 step 4): a new session (the plan's rundown session, X.clrRundown.etl)
 * whose providers are enabled pass by pass — the CLR rundown's loader
 * pass, 500 ms, then its method pass — then a wait until the file stops
 * growing: polled every second, done when its size is unchanged, non-zero
 * and at least /MinRundownTime has passed, or after /RundownTimeout; then
 * the session is stopped.  With /InMemoryCircularBuffer the plan also has a kernel rundown
 * session, started and stopped at once so its process and image rundown
 * lands in X.kernelRundown.etl.
 *
 * Rundown is best effort: a provider Windows refuses is logged and skipped,
 * so the capture itself is never lost to it.  Time goes through the
 * collection_env clock, so tests do not wait for real. */
#ifndef ETWCAP_RUNDOWN_H
#define ETWCAP_RUNDOWN_H

#include "etw/plan/plan.h"
#include "src/capture/collection_env.h"

#include <stdint.h>

#define RUNDOWN_POLL_MS 1000u
/* How often a long wait says where it is (console and LogFile.txt). */
#define RUNDOWN_PROGRESS_MS 5000u

struct rundown_result {
  int started;                   /* the session ran */
  uint64_t waited_ms;            /* from the last enable to the stop */
  int64_t file_bytes;            /* the file's size when the wait ended */
  int timed_out;                 /* /RundownTimeout ended the wait */
  int cut_short;                 /* the caller's cut function ended it */
  int never_appeared;            /* the file was never there, or stayed empty */
  unsigned providers_failed;
  struct controller_status final; /* the stop's counts */
};

/* Polled every second of the wait: non-zero ends it early (a second
 * Ctrl+C). */
typedef int (*rundown_cut_fn)(void *ctx);

/* Runs the CLR rundown session `s` (role PLAN_ROLE_RUNDOWN); a provider
 * that cannot be enabled is a warning saying why.  Returns 0, or the error
 * that kept the session from starting (logged; the capture goes on without
 * rundown). */
int rundown_run(const struct collection_env *env, const struct plan_session *s,
                unsigned params_version, rundown_cut_fn cut, void *cut_ctx,
                struct rundown_result *r);

/* Starts and at once stops the kernel rundown session `s` (role
 * PLAN_ROLE_KERNEL_RUNDOWN). */
int rundown_kernel(const struct collection_env *env, const struct plan_session *s,
                   struct rundown_result *r);

#endif
