/* The session controller seam: what etwcap asks of ETW, in its own terms,
 * as a const table of operations.  controller_win32.c implements it with
 * advapi32 (StartTraceW, ControlTraceW, EnableTraceEx2, TraceSetInformation,
 * QueryAllTracesW); tests/fakes/fake_controller.c is a scriptable fake for
 * the portable lifecycle tests; controller_posix.c answers "needs Windows".
 *
 * The controller decides nothing: each operation translates one piece of
 * the plan (etw/plan.h) into one call.  Which features to drop when Windows
 * refuses them is decided above the operations, from the error
 * (controller_enable_adapting here for providers, src/collection.c for the
 * kernel session).
 *
 * Errors are negative ETWCAP_E_* codes, translated at the Win32 edge:
 *   ACCES           ERROR_ACCESS_DENIED (not elevated)
 *   SESSION_EXISTS  ERROR_ALREADY_EXISTS (a session of that name runs)
 *   NO_SESSION      ERROR_WMI_INSTANCE_NOT_FOUND (no session of that name)
 *   SESSION_LIMIT   ERROR_NO_SYSTEM_RESOURCES (no free logger slot)
 *   UNSUPPORTED     ERROR_INVALID_PARAMETER, ERROR_NOT_SUPPORTED (a feature
 *                   this Windows lacks, e.g. the container enable flags)
 *   NOSPC           ERROR_DISK_FULL
 *   SYSTEM          anything else
 * and the failing API with its raw code is kept in controller->last_error
 * for the log line. */
#ifndef ETWCAP_CONTROLLER_H
#define ETWCAP_CONTROLLER_H

#include "plan.h"

#include <stddef.h>
#include <stdint.h>

#define CONTROLLER_PATH_MAX 1024

/* A session's state as ControlTrace(QUERY/STOP) or QueryAllTraces report
 * it (EVENT_TRACE_PROPERTIES, in our names).  Strings are UTF-8. */
struct controller_status {
  char name[PLAN_NAME_MAX];
  char file[CONTROLLER_PATH_MAX];   /* "" when none (real time, in memory) */
  uint32_t log_file_mode;
  uint32_t buffer_size_kb;
  uint32_t minimum_buffers, maximum_buffers;
  uint32_t maximum_file_size_mb;
  uint32_t flush_timer_sec;
  uint32_t enable_flags;
  uint32_t clock_type;
  uint32_t buffers;                 /* NumberOfBuffers: allocated now */
  uint32_t free_buffers;
  uint32_t buffers_written;
  uint32_t events_lost;
  uint32_t log_buffers_lost;
  uint32_t realtime_buffers_lost;
  int64_t file_bytes;               /* size of `file` now; -1 when unknown or none */
};

/* The failing call of the last operation that failed. */
struct controller_error {
  const char *api;        /* "StartTraceW", "EnableTraceEx2", ... (static) */
  unsigned long os_code;  /* the raw Win32 code */
  char os_name[48];       /* "ERROR_ACCESS_DENIED", or "" when unknown */
};

struct controller;

/* Called once per running session by list; a non-zero return stops the
 * listing and is returned by list. */
typedef int (*controller_list_fn)(void *ctx, const struct controller_status *s);

struct controller_ops {
  const char *name; /* "advapi32", "fake", "none" */

  /* Starts the session `s` (StartTraceW with EVENT_TRACE_PROPERTIES built
   * from it).  A kernel session without SYSTEM_LOGGER_MODE is the classic
   * "NT Kernel Logger": its enable flags then travel in the properties and
   * its Wnode.Guid is SystemTraceControlGuid.  *handle is what the other
   * operations on this session take; `file` (may be NULL; file_size bytes)
   * receives the log file name as ETW keeps it — absolute, so a `stop` run
   * from another folder finds it — or "" when the session has none. */
  int (*start)(struct controller *c, const struct plan_session *s, uint64_t *handle,
               char *file, size_t file_size);
  /* EnableTraceEx2(ENABLE_TRACE_PARAMETERS version `params_version`) with
   * the provider's GUID, level, keywords, EnableProperty and filters. */
  int (*enable_provider)(struct controller *c, uint64_t handle, const struct plan_provider *p,
                         unsigned params_version);
  /* A system logger's kernel flags (TraceSystemTraceEnableFlagsInfo). */
  int (*set_kernel_flags)(struct controller *c, uint64_t handle, uint32_t flags);
  /* Kernel events that get stacks (TraceStackTracingInfo). */
  int (*set_stack_ids)(struct controller *c, uint64_t handle, const struct plan_stack_id *ids,
                       size_t count);
  /* The machine-wide CPU sampling interval (TraceSampledProfileIntervalInfo,
   * 100-ns units). */
  int (*set_profile_interval)(struct controller *c, uint32_t interval_100ns);
  /* Kernel stack caching (TraceStackCachingInfo {Enabled, 0, 0}). */
  int (*set_stack_caching)(struct controller *c, uint64_t handle, int enabled);
  /* SeSystemProfilePrivilege for this process (CPU samples need it). */
  int (*enable_profile_privilege)(struct controller *c);
  /* ControlTrace(QUERY) by name.  NO_SESSION when it does not run. */
  int (*query)(struct controller *c, const char *name, struct controller_status *out);
  /* ControlTrace(FLUSH) by name; with `file` an in-memory (buffering)
   * session writes its buffers to that file. */
  int (*flush)(struct controller *c, const char *name, const char *file);
  /* ControlTrace(STOP) by name; `out` (may be NULL) receives the final
   * counts.  NO_SESSION when it does not run. */
  int (*stop)(struct controller *c, const char *name, struct controller_status *out);
  /* Every running session (QueryAllTracesW). */
  int (*list)(struct controller *c, controller_list_fn fn, void *ctx);
};

/* A controller: its operations, their state, the last error. */
struct controller {
  const struct controller_ops *ops;
  void *impl;
  struct controller_error last_error;
};

/* The controller of this OS: advapi32 on Windows; elsewhere every
 * operation returns ETWCAP_E_NEEDS_WINDOWS.  Needs no release. */
void controller_system(struct controller *c);

/* "StartTraceW: ERROR_ACCESS_DENIED (5)" from c->last_error, for log lines.
 * Returns buf. */
const char *controller_error_text(const struct controller *c, char *buf, size_t size);

/* Features an older Windows refuses in EnableTraceEx2. */
#define CONTROLLER_DROP_CONTAINERS 0x1u /* ENABLE_SILOS, SOURCE_CONTAINER_TRACKING */
#define CONTROLLER_DROP_FILTERS 0x2u    /* PID, exe name, event id, stack filters */

/* Told once per feature dropped, with what it costs the capture. */
typedef void (*controller_warn_fn)(void *ctx, unsigned dropped, const char *text);

/* enable_provider for a Windows that may be older than the plan assumed:
 * features already in *dropped are left out; when Windows answers
 * ETWCAP_E_UNSUPPORTED (ERROR_INVALID_PARAMETER, ERROR_NOT_SUPPORTED) and
 * the call has container flags, they are dropped and the call retried, then
 * likewise the scope filters (the provider-data descriptor stays).  Each
 * newly dropped feature is added to *dropped and reported through `warn`.
 * Any other error is returned.  The provider itself is not changed. */
int controller_enable_adapting(struct controller *c, uint64_t handle,
                               const struct plan_provider *p, unsigned params_version,
                               unsigned *dropped, controller_warn_fn warn, void *warn_ctx);

/* Records a failure in c->last_error (for implementations) and returns
 * `code`. */
int controller_fail(struct controller *c, int code, const char *api, unsigned long os_code,
                    const char *os_name);

#endif
