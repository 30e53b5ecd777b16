/* The workload `etwcap selftest` makes during its capture, so every check
 * has something to find: once the capture's trigger session runs, the
 * TraceLogging provider writes Seq 1, a .NET child starts and stays (until
 * the caller ends it with stop_dotnet after the capture), the child process runs (Seq 2), the
 * DLL is loaded (Seq 3), two threads switch back and forth and one spins
 * (Seq 4, 5), and the last event, the one the trigger watches, ends it.
 * Portable: what it asks of Windows goes through selftest_os.h; it runs on
 * a thread of its own (selftest_workload_start) or, in tests, on the
 * caller's (selftest_workload_run).
 *
 * Lifetime: the struct lives with its caller from start to join. */
#ifndef ETWCAP_SELFTEST_WORKLOAD_H
#define ETWCAP_SELFTEST_WORKLOAD_H

#include "src/base/os/os_thread.h"
#include "src/capture/collection_env.h"
#include "src/selftest/selftest_os.h"

#include <stdint.h>

#define SELFTEST_WORKLOAD_WAIT_MS 30000u  /* for the trigger session to run */
#define SELFTEST_WORKLOAD_SETTLE_MS 2000u /* then for its reader to attach */
#define SELFTEST_SWITCH_ROUNDS 2000u
#define SELFTEST_SPIN_MS 300u

struct selftest_workload_report {
  int ran;                 /* the sessions were seen and the work was done */
  uint32_t child_pid;
  int child_exit, child_rc;
  uint32_t dotnet_pid;     /* the .NET child, left running for the rundown */
  int dotnet_rc;           /* ETWCAP_E_NOENT: no .NET runtime on the host */
  char dotnet_what[64];
  char dotnet_why[256];
  char dll_path[512];
  int dll_rc;
  int threads_rc;
  struct selftest_spin spin;
  unsigned events_written;
  int events_rc;
  char why[256];           /* the first thing that went wrong */
};

struct selftest_workload {
  const struct selftest_os *os;
  const struct collection_env *env; /* its clock; its controller to see the session */
  const char *session;              /* wait until this one runs */
  uint32_t pid;                     /* this process, in each event */
  os_thread thread;
  int started;                      /* the thread runs */
  os_mutex lock;
  int cancelled;                    /* under lock */
  struct selftest_workload_report report;
};

void selftest_workload_init(struct selftest_workload *w, const struct selftest_os *os,
                            const struct collection_env *env, const char *session, uint32_t pid);
/* The whole workload on the caller's thread. */
void selftest_workload_run(struct selftest_workload *w);
/* On a thread of its own.  0 or ETWCAP_E_SYSTEM. */
int selftest_workload_start(struct selftest_workload *w);
/* Tells a workload still waiting for the session to give up, waits for it
 * to end (when it was started) and copies its report. */
void selftest_workload_join(struct selftest_workload *w, struct selftest_workload_report *r);

#endif
