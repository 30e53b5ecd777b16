/* The selftest's workload (see selftest_workload.h). */
#include "src/selftest/selftest_workload.h"

#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

void selftest_workload_init(struct selftest_workload *w, const struct selftest_os *os,
                            const struct collection_env *env, const char *session, uint32_t pid)
{
  memset(w, 0, sizeof(*w));
  w->os = os;
  w->env = env;
  w->session = session;
  w->pid = pid;
  os_mutex_init(&w->lock);
}

static int cancelled(struct selftest_workload *w)
{
  int c;
  os_mutex_lock(&w->lock);
  c = w->cancelled;
  os_mutex_unlock(&w->lock);
  return c;
}

static void first_why(struct selftest_workload_report *r, const char *what, const char *why)
{
  if (!r->why[0])
    snprintf(r->why, sizeof(r->why), "%s: %s", what, why);
}

/* Until the session answers a query, or the wait is over. */
static int session_runs(struct selftest_workload *w)
{
  struct controller *ctl = w->env->ctl;
  uint64_t start = w->env->now_ms(w->env->ctx);
  while (!cancelled(w)) {
    struct controller_status st;
    if (ctl->ops->query(ctl, w->session, &st) == 0)
      return 1;
    if (w->env->now_ms(w->env->ctx) - start >= SELFTEST_WORKLOAD_WAIT_MS)
      break;
    w->env->sleep_ms(w->env->ctx, 100);
  }
  return 0;
}

static void write_event(struct selftest_workload *w, const char *name, uint32_t seq)
{
  struct selftest_workload_report *r = &w->report;
  struct selftest_tl_event e;
  int rc = selftest_tl_event_build(&e, name, seq, w->pid);
  if (!rc)
    rc = w->os->tl_write(w->os->ctx, &e);
  if (rc) {
    if (!r->events_rc)
      r->events_rc = rc;
    first_why(r, "EventWriteTransfer", etwcap_strerror(rc));
    return;
  }
  r->events_written++;
}

void selftest_workload_run(struct selftest_workload *w)
{
  const struct selftest_os *os = w->os;
  struct selftest_workload_report *r = &w->report;
  struct etw_guid provider;
  char why[256];
  uint32_t seq = 0;
  int rc;

  if (!session_runs(w)) {
    if (cancelled(w))
      snprintf(r->why, sizeof(r->why), "the capture ended before '%s' ran: no workload",
               w->session);
    else
      snprintf(r->why, sizeof(r->why), "'%s' did not run within %u s: no workload", w->session,
               SELFTEST_WORKLOAD_WAIT_MS / 1000);
    r->child_rc = r->dll_rc = r->threads_rc = r->events_rc = ETWCAP_E_NO_SESSION;
    r->dotnet_rc = ETWCAP_E_NO_SESSION;
    snprintf(r->dotnet_why, sizeof(r->dotnet_why), "%s", r->why);
    return;
  }
  w->env->sleep_ms(w->env->ctx, SELFTEST_WORKLOAD_SETTLE_MS);
  r->ran = 1;
  rc = selftest_tl_provider_guid(&provider);
  if (!rc)
    rc = os->tl_register(os->ctx, &provider);
  if (rc) {
    r->events_rc = rc;
    first_why(r, "EventRegister", etwcap_strerror(rc));
  }
  write_event(w, SELFTEST_TL_STEP, ++seq);
  r->dotnet_rc = os->start_dotnet(os->ctx, &r->dotnet_pid, r->dotnet_what, sizeof(r->dotnet_what),
                                  r->dotnet_why, sizeof(r->dotnet_why));
  why[0] = '\0';
  r->child_rc = os->run_child(os->ctx, &r->child_pid, &r->child_exit, why, sizeof(why));
  if (!r->child_rc && r->child_exit != 0) {
    snprintf(why, sizeof(why), "the child process %lu exited with %d",
             (unsigned long)r->child_pid, r->child_exit);
    r->child_rc = ETWCAP_E_SYSTEM;
  }
  if (r->child_rc)
    first_why(r, "child process", why);
  write_event(w, SELFTEST_TL_STEP, ++seq);
  why[0] = '\0';
  r->dll_rc = os->load_dll(os->ctx, r->dll_path, sizeof(r->dll_path), why, sizeof(why));
  if (r->dll_rc)
    first_why(r, "DLL load", why);
  write_event(w, SELFTEST_TL_STEP, ++seq);
  r->threads_rc = os->switch_threads(os->ctx, SELFTEST_SWITCH_ROUNDS, SELFTEST_SPIN_MS, &r->spin);
  if (r->threads_rc)
    first_why(r, "thread switches", etwcap_strerror(r->threads_rc));
  while (seq < SELFTEST_TL_STEPS)
    write_event(w, SELFTEST_TL_STEP, ++seq);
  write_event(w, SELFTEST_TL_STOP, ++seq);
  if (!rc)
    os->tl_unregister(os->ctx);
}

static void thread_main(void *arg)
{
  selftest_workload_run(arg);
}

int selftest_workload_start(struct selftest_workload *w)
{
  int rc = os_thread_create(&w->thread, thread_main, w);
  w->started = rc == 0;
  if (rc)
    snprintf(w->report.why, sizeof(w->report.why), "cannot start the workload's thread");
  return rc;
}

void selftest_workload_join(struct selftest_workload *w, struct selftest_workload_report *r)
{
  os_mutex_lock(&w->lock);
  w->cancelled = 1;
  os_mutex_unlock(&w->lock);
  if (w->started)
    os_thread_join(&w->thread);
  os_mutex_destroy(&w->lock);
  *r = w->report;
}
