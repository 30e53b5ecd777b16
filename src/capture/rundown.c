/* Rundown at stop (see rundown.h). */
#include "src/capture/rundown.h"

#include "src/base/error.h"
#include "src/base/log.h"

#include <string.h>

/* Starts a rundown session.  One left behind by a stop that was killed has
 * our name and nothing of value: it is stopped and started again, as
 * TraceEvent restarts a session that exists. */
static int start_session(const struct collection_env *env, const struct plan_session *s,
                         uint64_t *handle)
{
  struct controller *c = env->ctl;
  char why[160];
  int rc = c->ops->start(c, s, handle, NULL, 0);
  if (rc == ETWCAP_E_SESSION_EXISTS) {
    log_info("a rundown session '%s' was left running by an earlier stop; restarting it",
             s->name);
    c->ops->stop(c, s->name, NULL);
    env->sleep_ms(env->ctx, 100);
    rc = c->ops->start(c, s, handle, NULL, 0);
  }
  if (rc)
    log_warn("cannot start the rundown session '%s' (%s): %s; the trace has no rundown, so "
             "methods of code compiled at run time may have no names",
             s->name, controller_error_text(c, why, sizeof(why)), etwcap_strerror(rc));
  return rc;
}

static void stop_session(const struct collection_env *env, const struct plan_session *s,
                         struct rundown_result *r)
{
  struct controller *c = env->ctl;
  char why[160];
  int rc = c->ops->stop(c, s->name, &r->final);
  if (rc)
    log_warn("cannot stop the rundown session '%s' (%s): %s; run 'etwcap abort'", s->name,
             controller_error_text(c, why, sizeof(why)), etwcap_strerror(rc));
}

/* Waits until the file stops growing (PerfView's loop). */
static void wait_for_file(const struct collection_env *env, const struct plan_session *s,
                          rundown_cut_fn cut, void *cut_ctx, struct rundown_result *r)
{
  uint64_t start = env->now_ms(env->ctx);
  uint64_t timeout_ms = (uint64_t)s->rundown_timeout_sec * 1000u;
  uint64_t min_ms = (uint64_t)s->min_rundown_sec * 1000u;
  uint64_t next_progress = RUNDOWN_PROGRESS_MS;
  int64_t previous = -1;
  const char *what = s->file ? s->file : s->name;
  r->never_appeared = 1;
  for (;;) {
    uint64_t elapsed = env->now_ms(env->ctx) - start;
    int64_t size = 0;
    if (elapsed >= timeout_ms) {
      r->timed_out = 1;
      break;
    }
    env->sleep_ms(env->ctx, RUNDOWN_POLL_MS);
    elapsed = env->now_ms(env->ctx) - start;
    if (!s->file || env->file_size(env->ctx, s->file, &size) != 0)
      size = 0;
    r->file_bytes = size;
    if (size > 0)
      r->never_appeared = 0;
    /* A rundown of a busy machine takes tens of seconds: say where it is,
     * so a console (or LogFile.txt) does not look hung. */
    if (elapsed >= next_progress) {
      next_progress += RUNDOWN_PROGRESS_MS;
      if (size > 0)
        log_info("rundown: waiting for '%s' to stop growing: %.1f MB after %.0f s (at most %u "
                 "s, /RundownTimeout)",
                 what, (double)size / 1048576.0, (double)elapsed / 1000.0,
                 (unsigned)s->rundown_timeout_sec);
      else
        log_info("rundown: waiting for '%s' to appear: nothing yet after %.0f s (at most %u s, "
                 "/RundownTimeout)",
                 what, (double)elapsed / 1000.0, (unsigned)s->rundown_timeout_sec);
    }
    if (size > 0 && size == previous && elapsed >= min_ms)
      break;
    if (cut && cut(cut_ctx)) {
      r->cut_short = 1;
      break;
    }
    previous = size;
  }
  r->waited_ms = env->now_ms(env->ctx) - start;
  if (r->timed_out && r->never_appeared)
    log_warn("rundown: '%s' never appeared (or stayed empty) in %u s (/RundownTimeout): the "
             "rundown session wrote nothing, so methods of code compiled at run time may have "
             "no names in this trace; 'etwcap selftest' checks the CLR rundown on this host",
             what, (unsigned)s->rundown_timeout_sec);
  else if (r->timed_out)
    log_warn("rundown: '%s' was still growing after /RundownTimeout (%u s); stopping it "
             "anyway (%.1f MB)",
             what, (unsigned)s->rundown_timeout_sec, (double)r->file_bytes / 1048576.0);
  else if (r->cut_short)
    log_warn("rundown cut short after %.1f s (a second Ctrl+C)", (double)r->waited_ms / 1000.0);
  else
    log_info("rundown: '%s' stopped growing after %.1f s (%.1f MB)", what,
             (double)r->waited_ms / 1000.0,
             (double)r->file_bytes / 1048576.0);
}

int rundown_run(const struct collection_env *env, const struct plan_session *s,
                unsigned params_version, rundown_cut_fn cut, void *cut_ctx,
                struct rundown_result *r)
{
  struct controller *c = env->ctl;
  uint64_t handle = 0;
  unsigned pass = 0;
  size_t i;
  int rc;

  memset(r, 0, sizeof(*r));
  log_info("rundown: starting '%s' -> %s (%lu providers)", s->name, s->file ? s->file : "",
           (unsigned long)s->provider_count);
  if ((rc = start_session(env, s, &handle)) != 0)
    return rc;
  r->started = 1;
  for (i = 0; i < s->provider_count; i++) {
    const struct plan_provider *p = &s->providers[i];
    char why[600];
    if (p->pass != pass) {
      /* The next pass: the CLR's method rundown comes 500 ms after its
       * loader rundown. */
      env->sleep_ms(env->ctx, p->delay_ms);
      pass = p->pass;
    }
    rc = c->ops->enable_provider(c, handle, p, params_version);
    if (rc) {
      r->providers_failed++;
      log_warn("rundown: cannot enable %s; continuing without it",
               controller_enable_failure(c, p, rc, why, sizeof(why)));
    }
  }
  wait_for_file(env, s, cut, cut_ctx, r);
  stop_session(env, s, r);
  return 0;
}

int rundown_kernel(const struct collection_env *env, const struct plan_session *s,
                   struct rundown_result *r)
{
  struct controller *c = env->ctl;
  uint64_t handle = 0;
  char why[160];
  int rc;

  memset(r, 0, sizeof(*r));
  if ((rc = start_session(env, s, &handle)) != 0)
    return rc;
  r->started = 1;
  /* ENABLE_TRACE_PARAMETERS_VERSION_2: the System Providers route exists
   * only from build 20348, where version 2 is the documented value. */
  if ((rc = controller_kernel_on(c, handle, s, 2)) != 0)
    log_warn("kernel rundown: cannot turn on the kernel events (%s): %s",
             controller_error_text(c, why, sizeof(why)), etwcap_strerror(rc));
  /* Starting it made the kernel list every process and image (DCStart);
   * stopping it lists them again (DCEnd).  Nothing to wait for. */
  stop_session(env, s, r);
  log_info("kernel rundown: '%s' -> %s", s->name, s->file ? s->file : "");
  return 0;
}
