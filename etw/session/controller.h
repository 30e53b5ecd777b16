/* The session controller seam: what etwcap asks of ETW, in its own terms,
 * as a const table of operations.  controller_win32.c implements it with
 * advapi32 (StartTraceW, ControlTraceW, EnableTraceEx2, TraceSetInformation,
 * QueryAllTracesW); tests/fakes/fake_controller.c is a scriptable fake for
 * the portable lifecycle tests; controller_posix.c answers "needs Windows".
 *
 * The controller decides nothing: each operation translates one piece of
 * the plan (etw/plan/plan.h) into one call.  What a Windows version supports is
 * decided by the plan from the documented version, never guessed here from
 * an error; src/capture/collection.c decides what a failure costs the capture.
 *
 * Errors are negative ETWCAP_E_* codes, translated at the Win32 edge:
 *   ACCES           ERROR_ACCESS_DENIED (not elevated)
 *   SESSION_EXISTS  ERROR_ALREADY_EXISTS (a session of that name runs)
 *   NO_SESSION      ERROR_WMI_INSTANCE_NOT_FOUND (no session of that name)
 *   SESSION_LIMIT   ERROR_NO_SYSTEM_RESOURCES: from StartTraceW no free
 *                   logger slot or buffer memory; from EnableTraceEx2 the
 *                   provider is enabled by as many sessions as it may be
 *   RANGE           ERROR_INVALID_PARAMETER (a parameter Windows rejects:
 *                   a filter too large, a property bit it does not know)
 *   UNSUPPORTED     ERROR_NOT_SUPPORTED, ERROR_CALL_NOT_IMPLEMENTED
 *   NOSPC           ERROR_DISK_FULL
 *   SYSTEM          anything else
 * and the failing API with its raw code is kept in controller->last_error
 * for the log line. */
#ifndef ETWCAP_CONTROLLER_H
#define ETWCAP_CONTROLLER_H

#include "etw/plan/plan.h"

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
  /* A system logger's PERFINFO_GROUPMASK, all 8 ULONGs
   * (TraceSetInformation(TraceSystemTraceEnableFlagsInfo)). */
  int (*set_group_mask)(struct controller *c, uint64_t handle,
                        const uint32_t mask[PLAN_GROUP_MASK_WORDS]);
  /* Reads it back (TraceQueryInformation, same class).  UNSUPPORTED where
   * Windows offers no such query: before Windows 8 (the function's
   * documented minimum), when advapi32 does not export it, or when the call
   * fails or raises instead of answering (a stub). */
  int (*query_group_mask)(struct controller *c, uint64_t handle,
                          uint32_t mask[PLAN_GROUP_MASK_WORDS]);
  /* Kernel events that get stacks (TraceStackTracingInfo). */
  int (*set_stack_ids)(struct controller *c, uint64_t handle, const struct plan_stack_id *ids,
                       size_t count);
  /* The machine-wide CPU sampling interval (TraceSampledProfileIntervalInfo,
   * 100-ns units). */
  int (*set_profile_interval)(struct controller *c, uint32_t interval_100ns);
  /* Kernel stack caching (TraceStackCachingInfo {Enabled, CacheSize,
   * BucketCount}, the plan's sizes). */
  int (*set_stack_caching)(struct controller *c, uint64_t handle, int enabled,
                           uint32_t cache_size, uint32_t bucket_count);
  /* SeSystemProfilePrivilege for this process (CPU samples need it). */
  int (*enable_profile_privilege)(struct controller *c);
  /* ControlTrace(QUERY) by name.  NO_SESSION when it does not run. */
  int (*query)(struct controller *c, const char *name, struct controller_status *out);
  /* ControlTrace(FLUSH) by name; with `file` an in-memory (buffering)
   * session writes its buffers to that file.  `s` (may be NULL) gives the
   * property block PerfView sends with it (TraceEventSession SetFileName ->
   * Flush -> GetProperties): the session's buffer sizes, FlushTimer, clock
   * and, for an in-memory session, INDEPENDENT|FILE_MODE_CIRCULAR with the
   * ring's size as MaximumFileSize. */
  int (*flush)(struct controller *c, const struct plan_session *s, const char *name,
               const char *file);
  /* ControlTrace(STOP) by name; `out` (may be NULL) receives the final
   * counts.  NO_SESSION when it does not run. */
  int (*stop)(struct controller *c, const char *name, struct controller_status *out);
  /* Every running session (QueryAllTracesW). */
  int (*list)(struct controller *c, controller_list_fn fn, void *ctx);
  /* ControlTrace(UPDATE) by name with a new log file: the session closes
   * its file and goes on writing to `file` ("LogFileNameOffset: set it to
   * switch to another log file", ControlTrace's documentation).  `s` is
   * the session as planned: a system logger gets its EnableFlags back in
   * the block, since UPDATE takes EnableFlags as the kernel events to keep
   * (0 would switch them all off). */
  int (*switch_file)(struct controller *c, const struct plan_session *s, const char *name,
                     const char *file);
  /* The machine's hardware counter (PMC) profile sources, as TraceEvent's
   * TraceEventProfileSources.GetInfo reads them: TraceQueryInformation(
   * TraceProfileSourceListInfo) for the PROFILE_SOURCE_INFO list, then
   * TraceQueryInformation(TraceSampledProfileIntervalInfo) with each
   * source's id for its current interval.  Up to `max` go to `out`,
   * *count says how many.  UNSUPPORTED as query_group_mask says (before
   * Windows 8, not exported, a stub). */
  int (*query_profile_sources)(struct controller *c, struct plan_machine_source *out, size_t max,
                               size_t *count);
  /* One source's interval, machine-wide (TraceSetInformation(0,
   * TraceSampledProfileIntervalInfo, {Source, Interval})), as
   * TraceEventProfileSources.Set does for each source asked. */
  int (*set_source_interval)(struct controller *c, uint32_t source, uint32_t interval);
  /* The sources PMC profile events carry, machine-wide, before the kernel
   * session starts (TraceSetInformation(0, TraceProfileSourceConfigInfo),
   * an array of ULONG source ids), as TraceEventProfileSources.Set does. */
  int (*set_profile_sources)(struct controller *c, const uint32_t *ids, size_t count);
  /* Last-branch recording on the kernel session, as TraceEvent's
   * EnableLastBranchRecordingIfConfigured: TraceSetInformation(
   * TraceLbrConfigurationInfo, ULONG filters), then (TraceLbrEventListInfo,
   * an array of ULONG event hook ids). */
  int (*set_lbr)(struct controller *c, uint64_t handle, uint32_t filters, const uint32_t *sources,
                 size_t count);
  /* The MatchAllKeyword bits of every session that enables `provider` now,
   * OR-ed (EnumerateTraceGuidsEx(TraceGuidQueryInfo): a TRACE_ENABLE_INFO
   * per session in each TRACE_PROVIDER_INSTANCE_INFO), as TraceEvent's
   * FindFreeSessionKeyword reads them; 0 when none enables it.
   * UNSUPPORTED where the query is missing or raises instead of answering
   * (a stub). */
  int (*query_provider_keywords)(struct controller *c, const struct etw_guid *provider,
                                 uint64_t *match_all);
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
/* Its table, defined by the one OS file CMake builds (controller_win32.c or
 * controller_posix.c); controller_system() is the one set-up around it. */
extern const struct controller_ops controller_system_ops;

/* "StartTraceW: ERROR_ACCESS_DENIED (5)" from c->last_error, for log lines.
 * Returns buf. */
const char *controller_error_text(const struct controller *c, char *buf, size_t size);

/* Switches a kernel session's events on by its route (plan.h, enum
 * plan_kernel_route): the group mask (GROUP_MASK: read back first and Set
 * the applied groups plus the missing ones only when some are missing; Set
 * the plan's mask when there is no query), one EnableTraceEx2 per
 * System Provider (SYSTEM_PROVIDERS; level 5, the keywords as
 * MatchAnyKeyword), nothing for the NT Kernel Logger (its flags went in at
 * StartTraceW).  Returns 0 or the first failing call's error. */
int controller_kernel_on(struct controller *c, uint64_t handle, const struct plan_session *s,
                         unsigned params_version);

/* Asks a kernel session on the System Providers route for the state of
 * its keywords now: EnableTraceEx2(EVENT_CONTROL_CODE_CAPTURE_STATE) per
 * System Provider, so the process, thread and image rundown of what runs
 * is written into the session, as WPR's CaptureStateOnDemand does for the
 * keywords of a system logger while it records (its profile reference).
 * ETWCAP_E_UNSUPPORTED on the other routes, which have no such request. */
int controller_kernel_capture_state(struct controller *c, uint64_t handle,
                                    const struct plan_session *s, unsigned params_version);

/* "EnableTraceEx2(Microsoft-Windows-DNS-Client {1c95126e-...}, level 4,
 * keywords 0x..., filters pid+exe) failed: ERROR_NO_SYSTEM_RESOURCES: the
 * provider is already enabled by as many sessions as Windows allows" — what
 * a failed enable means, in a user's words, with the provider and the
 * filters that went with it.  Returns buf. */
const char *controller_enable_failure(const struct controller *c, const struct plan_provider *p,
                                      int rc, char *buf, size_t size);

/* Records a failure in c->last_error (for implementations) and returns
 * `code`. */
int controller_fail(struct controller *c, int code, const char *api, unsigned long os_code,
                    const char *os_name);

#endif
