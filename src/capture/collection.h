/* The life of a capture: start the plan's sessions, wait, stop them.  The
 * commands (collect, start, stop, abort) are built from these steps; every
 * way a capture ends (S, A, Ctrl+C, console close, shutdown, /MaxCollectSec,
 * `etwcap stop` from another process, a trigger, our own errors) comes out
 * of collection_wait as a reason, and the caller then takes the one stop
 * path.
 *
 * The controller executes the plan; what this module decides is what a
 * refusal costs: a default provider that cannot be enabled, kernel stacks,
 * stack caching or the sampling interval are dropped with a warning naming
 * what is lost; anything else (a session, the kernel events, a provider the
 * user named) is an error and every session already started is stopped
 * again.  What a Windows version supports was decided by the plan, from the
 * documented version.
 *
 * Lifetime: a struct collection lives on the caller's stack; it borrows the
 * env and copies what it needs of the plan (names, files). */
#ifndef ETWCAP_COLLECTION_H
#define ETWCAP_COLLECTION_H

#include "etw/plan/plan.h"
#include "etw/session/controller.h"
#include "etw/session/heap_tracing_flag.h"
#include "src/capture/capture_health.h"
#include "src/capture/collection_env.h"
#include "src/capture/packet_capture.h"
#include "src/containers/container_capture.h"
#include "src/finish/capture_manifest.h"
#include "src/os/console.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define COLLECTION_POLL_MS 200u        /* PerfView's wait loop */
#define COLLECTION_QUERY_MS 1000u      /* sessions queried for the status line */
#define COLLECTION_DISK_CHECK_MS 10000u
#define COLLECTION_STATUS_LOG_SEC 60u  /* unattended: one status line a minute */
/* Kept free beside the circular files: the merge and zip need room. */
#define COLLECTION_DISK_FLOOR_BYTES (256ull * 1024 * 1024)
/* Sequential files have no size to check; ask at least this much. */
#define COLLECTION_SEQUENTIAL_MIN_BYTES (1024ull * 1024 * 1024)

/* What Windows refused and the capture goes on without.  Features a
 * Windows version lacks are left out by the plan, from the documented
 * version, never here from an error. */
enum collection_dropped {
  COLLECTION_DROPPED_PROVIDER = 1 << 0,       /* a default provider could not be enabled */
  COLLECTION_DROPPED_KERNEL_GROUPS = 1 << 1,  /* the read-back mask lacks asked groups */
  COLLECTION_DROPPED_STACK_CACHING = 1 << 2,
  COLLECTION_DROPPED_STACKS = 1 << 3,         /* kernel stack ids */
  COLLECTION_DROPPED_PROVIDER_DATA = 1 << 4,  /* EventSource arguments not stored */
  COLLECTION_DROPPED_PROFILE_INTERVAL = 1 << 5,
  COLLECTION_DROPPED_PROFILE_PRIVILEGE = 1 << 6
};

/* A kernel (system logger) session's group mask: what etwcap asked and what
 * Windows says it applied.  Filled at start by collection_start; read by the
 * health report (and tests).  `asked` is the PERFINFO_GROUPMASK of the
 * session's flags whatever the route (plan_group_mask_of_flags); `applied`
 * and `lost` (asked & ~applied) are valid only when readback is
 * COLLECTION_MASK_READ (`applied` also for INFORMATIONAL).  Group names:
 * plan_group_mask_names. */
enum collection_mask_readback {
  COLLECTION_MASK_NOT_KERNEL = 0, /* not a system logger, or the NT Kernel Logger */
  COLLECTION_MASK_READ,           /* TraceQueryInformation answered (group-mask route) */
  COLLECTION_MASK_NO_QUERY,       /* Windows offers no query (before 8, missing, stub, error) */
  /* It answered on the System Providers route, where no source says that
   * keyword enables show in that query (docs/win32-contract.md §3.3 rule 6):
   * logged, never a warning, applied unknown for the health check, until
   * tests/live confirms it. */
  COLLECTION_MASK_INFORMATIONAL
};

struct collection_kernel_mask {
  enum collection_mask_readback readback;
  uint32_t asked[PLAN_GROUP_MASK_WORDS];
  uint32_t applied[PLAN_GROUP_MASK_WORDS];
  uint32_t lost[PLAN_GROUP_MASK_WORDS];
};

#define COLLECTION_KEYWORD_PROVIDERS 64

struct collection_session {
  enum plan_role role;
  char name[PLAN_NAME_MAX];
  char file[CONTROLLER_PATH_MAX];  /* where its events go ("" none) */
  uint32_t log_file_mode;
  uint32_t maximum_file_size_mb;
  int running;                     /* started by us and not stopped yet */
  int has_status;
  struct controller_status status; /* the last query, or the stop's counts */
  const struct plan_session *plan; /* NULL when known from a record only */
  uint64_t handle;                 /* StartTrace's, for enables; 0 when adopted */
  struct collection_kernel_mask kernel_mask; /* asked vs applied (kernel sessions) */
  /* Per provider of plan->providers (at most COLLECTION_KEYWORD_PROVIDERS):
   * the EventSource session keyword bit it was enabled with, 0 none. */
  uint8_t keyword_bits[COLLECTION_KEYWORD_PROVIDERS];
};

struct collection {
  const struct collection_env *env;
  struct collection_session sessions[PLAN_MAX_SESSIONS];
  size_t count;
  unsigned params_version;          /* ENABLE_TRACE_PARAMETERS.Version */
  uint32_t profile_interval_100ns;  /* what we set machine-wide; 0 none */
  unsigned dropped;                 /* COLLECTION_DROPPED_* */
  int provider_data_stored;         /* an EventSource hand-off went to the registry */
  char warnings[8][1024];           /* what each dropped feature costs */
  size_t warning_count;
  int64_t start_filetime;
  uint64_t start_ms;
  struct capture_health health;     /* judged by collection_wait */
  struct packet_capture packet;     /* /NetworkCapture's netsh */
  /* /OSHeapExe's TracingFlags as etwcap set it (exe "" when it set none);
   * collection_stop puts it back.  From the record in `stop`. */
  struct heap_tracing_flag heap_flag;
  /* The host's containers: the inventory at the start (collect, run), then
   * at the stop with the volume map (capture_cmd_finish releases it). */
  struct container_capture containers;
};

void collection_init(struct collection *c, const struct collection_env *env);

/* Refuses to start without room for the circular files (their maximum
 * sizes) plus COLLECTION_DISK_FLOOR_BYTES on the data file's volume.
 * ETWCAP_E_NOSPC with a message naming the sizes. */
int collection_check_disk(const struct collection_env *env, const struct plan *plan, char *why,
                          size_t why_size);

/* Refuses when a session of the plan already runs (an earlier capture not
 * stopped, or another tool's "NT Kernel Logger"): ETWCAP_E_SESSION_EXISTS
 * with a message saying what to do. */
int collection_check_free(const struct collection_env *env, const struct plan *plan, char *why,
                          size_t why_size);

/* Starts the plan's sessions that run from the start (kernel, then user)
 * and enables their providers, then the plan's packet capture (netsh, once
 * the user session records the packets).  Before each step it looks for a Ctrl+C
 * (console.h): then, as on any error, every session started so far is
 * stopped and ETWCAP_E_CANCELLED (or the error) returned, with the reason
 * logged. */
int collection_start(struct collection *c, const struct plan *plan);

/* After a kernel session's file switch (ControlTrace UPDATE, which on a
 * system logger leaves only the groups of the EnableFlags it carries:
 * docs/win32-contract.md §4.5): its kernel events put back by its route
 * (controller_kernel_on), then its mask read back and compared with what
 * was asked, a group lost being a health warning that names it.  Nothing
 * for other sessions, or the NT Kernel Logger (its UPDATE carries all its
 * flags).  0, or the error that kept the events from being put back
 * (logged). */
int collection_kernel_put_back(struct collection *c, struct collection_session *cs);

/* Adds a session known from a record, to stop it (collection_stop). */
void collection_adopt(struct collection *c, enum plan_role role, const char *name,
                      const char *file, uint32_t log_file_mode, uint32_t maximum_file_size_mb);

/* Why collection_wait returned. */
enum collection_end {
  COLLECTION_END_KEY_STOP = 1,   /* S */
  COLLECTION_END_KEY_ABORT,      /* A */
  COLLECTION_END_SIGNAL,         /* Ctrl+C, Ctrl+Break, close, logoff, shutdown */
  COLLECTION_END_STOP_REQUEST,   /* `etwcap stop` from another process */
  COLLECTION_END_ABORT_REQUEST,  /* `etwcap abort` from another process */
  COLLECTION_END_TRIGGER,        /* the should-stop hook */
  COLLECTION_END_SESSIONS_GONE,  /* our sessions were stopped from outside */
  COLLECTION_END_DISK_LOW        /* the volume is about to fill */
};

/* The trigger engine's turn: polled every COLLECTION_POLL_MS with the time
 * since the start; non-zero means stop now, and `fired` (its strings owned
 * by the callee) says which trigger. */
typedef int (*collection_should_stop_fn)(void *ctx, uint64_t elapsed_ms,
                                          struct manifest_trigger *fired);

struct collection_wait_options {
  const char *ends_also;            /* shown after "Press S to stop ...": what else
                                     * ends the wait ("or wait for /MaxCollectSec");
                                     * NULL: nothing */
  const char *request_file;         /* polled for "stop" / "abort" / "snapshot"; NULL none */
  /* Called for a "snapshot" request ('etwcap snapshot'); the wait goes on.
   * NULL: the request is refused in the log. */
  void (*snapshot)(void *ctx);
  void *snapshot_ctx;
  collection_should_stop_fn should_stop;
  void *should_stop_ctx;
  FILE *console;                    /* status line here; NULL: log lines */
  int keyboard;                     /* read S and A */
  const char *disk_path;            /* watch this file's volume; NULL: don't */
  const uint64_t *trigger_events;   /* events the trigger session delivered; NULL none */
  int report_health;                /* each new health warning to the Application log */
};

struct collection_wait_result {
  enum collection_end end;
  enum console_signal signal;       /* for COLLECTION_END_SIGNAL */
  struct manifest_trigger trigger;  /* for COLLECTION_END_TRIGGER */
  uint64_t elapsed_ms;
};

/* Waits until something ends the capture; shows the status line (elapsed
 * time, each session's file size and events lost from the query, free
 * disk) on the console once a second, or logs it every
 * COLLECTION_STATUS_LOG_SEC.  Each session's health (capture_health.h) is
 * judged from the same queries into c->health, problems logged at once. */
void collection_wait(struct collection *c, const struct collection_wait_options *o,
                     struct collection_wait_result *r);

/* Stops every session we run (in-memory ones are first flushed to their
 * files), logs each one's final counts, puts the machine-wide profile
 * interval back to 1 ms if we changed it, and ends the packet capture
 * (its failure is a warning: the trace is whole).  A session already gone is not an
 * error.  Returns 0 or the first error (every session is tried). */
int collection_stop(struct collection *c);

/* Puts /OSHeapExe's TracingFlags back (heap_tracing_flag_clear) through
 * env's registry, logging a failure with what to do.  collection_stop
 * calls it; `abort` calls it with the record's.  0 or the error. */
int collection_heap_flag_clear(const struct collection_env *env, struct heap_tracing_flag *f);

/* Writes every running in-memory (buffering) session's ring to the file it
 * would have under `plan`'s DataFile (X.etl, X.kernel.etl), and leaves the
 * sessions running: a snapshot.  Returns how many sessions wrote, or the
 * first error (every session is tried). */
int collection_flush_to(struct collection *c, const struct plan *plan);

/* The kernel mask record of the session called `name`, or NULL. */
const struct collection_kernel_mask *collection_kernel_mask_of(const struct collection *c,
                                                               const char *name);

/* Removes the EventSource provider data (eventsource_registry.h) stored for
 * the session `name`, or with `prefix` for every session whose name starts
 * with it (abort: also what a killed capture left).  Failures are logged;
 * returns how many values were removed. */
size_t collection_remove_provider_data(const struct collection_env *env, const char *name,
                                       int prefix);

/* "Ctrl+C", "/MaxCollectSec (60 s)", ... for log lines. */
const char *collection_end_text(const struct collection_wait_result *r, char *buf, size_t size);

#endif
