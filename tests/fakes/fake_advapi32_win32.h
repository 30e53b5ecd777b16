/* A recording fake of the advapi32 ETW controller calls, for the Windows
 * unit tests (under Wine).  It takes the place of the real functions in
 * controller_win32.c's table (controller_win32_set_advapi), so the code that
 * builds EVENT_TRACE_PROPERTIES, ENABLE_TRACE_PARAMETERS and the
 * TraceSetInformation blocks is the code under test.
 *
 * Every call is recorded with its decoded arguments and checked against
 * the documented contract (learn.microsoft.com: StartTraceW, ControlTraceW,
 * EVENT_TRACE_PROPERTIES, EnableTraceEx2, ENABLE_TRACE_PARAMETERS,
 * EVENT_FILTER_DESCRIPTOR, TraceSetInformation, TraceQueryInformation,
 * QueryAllTracesW, "System Providers", "Configuring and Starting a
 * SystemTraceProvider Session"); each breach is kept as a violation the
 * tests assert is absent, and documented errors are returned as Windows
 * would.  Every rule cites its source; tests/fakes/README.md lists them.
 * Failures can also be scripted per API (ERROR_ACCESS_DENIED, ...).
 *
 * Sessions live in memory and, when a state file is given, in that file
 * too: a second process (`stop` after `start`) sees the first one's
 * sessions, and every call is appended to STATE.calls as one text line.
 * File sessions get a small valid ETL at start and at stop
 * (fake_etl_write), so the merge at stop has real inputs. */
#ifndef ETWCAP_FAKE_ADVAPI32_WIN32_H
#define ETWCAP_FAKE_ADVAPI32_WIN32_H

#include "etw/session/controller_win32.h"

#include <stddef.h>

#define FAKE_ADVAPI_MAX_CALLS 256
#define FAKE_ADVAPI_MAX_DESCS 8
#define FAKE_ADVAPI_MAX_SESSIONS 32
#define FAKE_ADVAPI_MAX_EXT 8

enum fake_api {
  FAKE_START_TRACE,
  FAKE_CONTROL_TRACE,
  FAKE_ENABLE_TRACE_EX2,
  FAKE_TRACE_SET_INFORMATION,
  FAKE_QUERY_ALL_TRACES,
  FAKE_ENABLE_PRIVILEGE,
  FAKE_TRACE_QUERY_INFORMATION,
  FAKE_ENUMERATE_TRACE_GUIDS_EX
};

#define FAKE_GROUP_WORDS 8 /* PERFINFO_GROUPMASK.Masks[] */

struct fake_advapi_filter {
  ULONG type, size;
  unsigned char data[1024];
};

/* One call, decoded. */
struct fake_advapi_call {
  enum fake_api api;
  ULONG result;
  char name[1024];   /* session (UTF-8), or the privilege */
  char file[1024];   /* LogFileName at LogFileNameOffset, "" when the offset is 0 */
  TRACEHANDLE handle;
  /* StartTraceW / ControlTraceW: the properties as passed */
  ULONG control_code;
  ULONG wnode_buffer_size, wnode_flags, client_context;
  GUID wnode_guid;
  ULONG buffer_size, minimum_buffers, maximum_buffers, maximum_file_size;
  ULONG log_file_mode, flush_timer, enable_flags;
  ULONG logger_name_offset, log_file_name_offset;
  /* EnableTraceEx2 */
  GUID provider;
  GUID source_id; /* EnableTraceEx2: ENABLE_TRACE_PARAMETERS.SourceId */
  UCHAR level;
  ULONGLONG any, all;
  ULONG timeout;
  ULONG version, enable_property, filter_count;
  struct fake_advapi_filter filters[FAKE_ADVAPI_MAX_DESCS];
  /* TraceSetInformation */
  int info_class;
  ULONG info_length;
  unsigned char info[96 * sizeof(CLASSIC_EVENT_ID)];
  /* QueryAllTracesW */
  ULONG array_count;
  /* StartTraceW of a heap session (Wnode.Guid the heap provider's): the
   * extension block EnableFlags points at, decoded */
  int heap;
  ULONG heap_pids[FAKE_ADVAPI_MAX_EXT], heap_pid_count;
  ULONG heap_hooks[FAKE_ADVAPI_MAX_EXT], heap_hook_count;
};

/* A profile source of the model machine (PROFILE_SOURCE_INFO and its
 * current interval). */
#define FAKE_ADVAPI_MAX_SOURCES 16
#define FAKE_ADVAPI_DEFAULT_SOURCES 6
struct fake_advapi_source {
  char name[64]; /* ASCII */
  ULONG id, interval, min_interval, max_interval;
};
/* What install sets: Timer 0, TotalIssues 2, BranchInstructions 6,
 * CacheMisses 10, BranchMispredictions 11, TotalCycles 19. */
extern const struct fake_advapi_source fake_advapi32_default_sources[FAKE_ADVAPI_DEFAULT_SOURCES];

struct fake_advapi_session {
  char name[1024];
  char file[1024];
  TRACEHANDLE handle;
  ULONG log_file_mode, buffer_size, minimum_buffers, maximum_buffers, maximum_file_size;
  ULONG flush_timer, enable_flags, client_context;
  ULONG group_mask[FAKE_GROUP_WORDS]; /* the kernel groups in effect */
  GUID wnode_guid;
  int foreign;          /* another tool's */
};

/* Resets the fake; with a state file, loads the sessions it holds (a
 * missing file means none).  Then installs the fake in controller_win32. */
void fake_advapi32_install(const char *state_file);
/* The machine's profile sources (TraceProfileSourceListInfo) from now on;
 * count 0: none. */
void fake_advapi32_set_sources(const struct fake_advapi_source *list, size_t count);
/* A source as it stands (its interval after TraceSetInformation), or NULL. */
const struct fake_advapi_source *fake_advapi32_source(ULONG id);
/* Puts the real advapi32 back. */
void fake_advapi32_uninstall(void);
/* The Windows version the fake behaves as (10.0.20348 after install): the
 * documented version rules (BufferSize limits, EnableProperty bits, System
 * Providers, TraceQueryInformation from Windows 8) follow it. */
void fake_advapi32_set_os(unsigned major, unsigned minor, unsigned build);
/* TraceQueryInformation raises a non-continuable exception instead of
 * returning, as Wine 8's stub does (docs/building.md §2.2). */
void fake_advapi32_query_raises(int on);
/* `count` sessions of other tools already enable `provider` (EnableTraceEx2
 * then refuses a ninth). */
void fake_advapi32_provider_taken(const GUID *provider, unsigned count);
/* A session of another tool enables `provider` with this MatchAllKeyword
 * (EnumerateTraceGuidsEx then reports it). */
void fake_advapi32_provider_keyword(const GUID *provider, ULONGLONG match_all);
/* The same, seen by the registration of the `process`-th registering
 * process only (an enable filtered to that process's pid); 0: by all. */
void fake_advapi32_provider_keyword_in(const GUID *provider, ULONGLONG match_all,
                                       unsigned process);
/* `processes` processes registered `provider`: EnumerateTraceGuidsEx
 * answers one instance per process (none registered: one PRE_ENABLE
 * instance when a session enables it). */
void fake_advapi32_provider_registered(const GUID *provider, unsigned processes);
/* The group-mask query answers this many bytes in ReturnLength (0: the
 * whole PERFINFO_GROUPMASK). */
void fake_advapi32_group_mask_answer(ULONG bytes);
/* EnumerateTraceGuidsEx raises instead of returning, as Wine 8's stub. */
void fake_advapi32_enumerate_raises(int on);
/* Kernel groups this "Windows" never applies (the read-back test). */
void fake_advapi32_drop_groups(const ULONG mask[FAKE_GROUP_WORDS]);
/* The session's group mask now, or NULL when it does not run. */
const ULONG *fake_advapi32_group_mask(const char *name);

/* Scripts a failure: calls of `api` (for session `name`, or any when NULL;
 * for TraceSetInformation only of `info_class` when >= 0; for
 * EnableTraceEx2 only when EnableProperty has a bit of `property_mask`
 * when non-zero) return `code`, `times` times (0 = always). */
void fake_advapi32_fail(enum fake_api api, const char *name, ULONG code, int info_class,
                        ULONG property_mask, int times);
/* Called before each call is answered (e.g. to deliver Ctrl+C). */
void fake_advapi32_on_call(void (*fn)(void *ctx, const struct fake_advapi_call *call),
                           void *ctx);
/* A session of another tool, already running. */
void fake_advapi32_add_foreign(const char *name);

size_t fake_advapi32_call_count(void);
const struct fake_advapi_call *fake_advapi32_call(size_t i);
size_t fake_advapi32_violation_count(void);
const char *fake_advapi32_violation(size_t i);
/* Sessions running now (foreign ones left out), by name. */
size_t fake_advapi32_running(void);
int fake_advapi32_is_running(const char *name);
/* The history of a state file (every call of every process), or NULL. */
const char *fake_advapi32_history(void);

#endif
