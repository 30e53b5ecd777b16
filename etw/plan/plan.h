/* The collection plan: everything `collect` will ask of ETW, decided up
 * front and purely from the options (docs/perfview-collection.md §3-§5), so
 * it can be tested exactly on any OS, shown by `etwcap plan`, and handed to
 * the controller, which only has to translate it into Win32 structures.
 *
 * Lifetime: plan_build fills a caller-owned struct plan; plan_release frees
 * what it allocated.  All strings are UTF-8. */
#ifndef ETWCAP_PLAN_H
#define ETWCAP_PLAN_H

#include "etw/event/guid.h"
#include "etw/event/providers_spec.h"
#include "etw/plan/session_need.h"
#include "src/base/os/os_version.h"

#include <stddef.h>
#include <stdint.h>

/* EVENT_TRACE_PROPERTIES.LogFileMode bits (evntrace.h). */
#define PLAN_FILE_MODE_SEQUENTIAL 0x00000001u
#define PLAN_FILE_MODE_CIRCULAR 0x00000002u
#define PLAN_REAL_TIME_MODE 0x00000100u
#define PLAN_BUFFERING_MODE 0x00000400u
#define PLAN_SYSTEM_LOGGER_MODE 0x02000000u
#define PLAN_INDEPENDENT_SESSION_MODE 0x08000000u
/* Wnode.Flags and Wnode.ClientContext. */
#define PLAN_WNODE_FLAG_TRACED_GUID 0x00020000u
#define PLAN_CLOCK_QPC 1u

/* ENABLE_TRACE_PARAMETERS.EnableProperty bits (evntrace.h). */
#define PLAN_ENABLE_PROPERTY_STACK_TRACE 0x004u
#define PLAN_ENABLE_PROPERTY_ENABLE_SILOS 0x400u
#define PLAN_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING 0x800u

/* EnableTraceEx2 control codes. */
#define PLAN_CONTROL_ENABLE_PROVIDER 1u
#define PLAN_CONTROL_CAPTURE_STATE 2u

/* EVENT_FILTER_DESCRIPTOR.Type values (evntprov.h).  Provider data (the
 * EventSource arguments) travels with Type 0, or 0xFFFFFFFF (-1) for
 * TraceEvent's SendManifest command. */
#define PLAN_FILTER_PROVIDER_DATA 0x00000000u
#define PLAN_FILTER_SEND_MANIFEST 0xFFFFFFFFu
#define PLAN_FILTER_PID 0x80000004u
#define PLAN_FILTER_EXECUTABLE_NAME 0x80000008u
#define PLAN_FILTER_EVENT_ID 0x80000200u
#define PLAN_FILTER_STACKWALK 0x80001000u
#define PLAN_MAX_FILTERS 7

/* The bits (44..47) EventSources reserve for per-session filtering.  With
 * provider data TraceEvent passes 1<<bit as MatchAllKeyword and names the
 * bit in the data (EtwSessionKeyword); it takes the lowest bit that no
 * session enabling the provider already has in its MatchAllKeyword
 * (TraceEventSession.cs, FindFreeSessionKeyword).  The plan shows the
 * first; `collect` picks the free one as it enables (collection.c). */
#define PLAN_EVENTSOURCE_SESSION_KEYWORD_BIT 44
#define PLAN_EVENTSOURCE_SESSION_KEYWORD_LAST 47

#define PLAN_MAX_STACK_IDS 96

/* How a system logger's kernel events are switched on (docs/win32-contract.md
 * §3.1-§3.4; Microsoft "System Providers" and "Configuring and Starting a
 * SystemTraceProvider Session"):
 *   GROUP_MASK        the default from Windows 8 (6.2) on every build:
 *                     EnableFlags at StartTraceW (as TraceEvent, krabsetw and
 *                     `tracelog -eflag` do) plus the full 8-word
 *                     PERFINFO_GROUPMASK to TraceSetInformation(
 *                     TraceSystemTraceEnableFlagsInfo);
 *   SYSTEM_PROVIDERS  /KernelRoute:systemProviders only, build 20348 and
 *                     later: EnableFlags 0 at start, then EnableTraceEx2 on
 *                     the System Providers (SystemProcessProviderGuid, ...)
 *                     with their SYSTEM_*_KW_* keywords, in a
 *                     SYSTEM_LOGGER_MODE session; opt-in until a live run
 *                     shows the DCStart rundown of processes that ran
 *                     before the capture;
 *   NT_KERNEL_LOGGER  Windows 7: the shared "NT Kernel Logger", EnableFlags at
 *                     StartTraceW and nothing else. */
enum plan_kernel_route {
  PLAN_ROUTE_NONE = 0, /* not a kernel (system logger) session */
  PLAN_ROUTE_NT_KERNEL_LOGGER,
  PLAN_ROUTE_GROUP_MASK,
  PLAN_ROUTE_SYSTEM_PROVIDERS
};
#define PLAN_GROUP_MASK_WORDS 8 /* PERFINFO_GROUPMASK.Masks[] */
/* PERF_PMC_PROFILE 0x20000400: Masks[1] bit 0x400 (krabsetw
 * perfinfo_groupmask.hpp; "System Providers" pairs it with
 * SYSTEM_PROFILE_KW_PMC_PROFILE). */
#define PLAN_PMC_PROFILE_GROUP_BIT 0x00000400u
/* The first build of the System Providers route ("System Providers": "Beginning
 * in Windows 10 SDK build 20348"). */
#define PLAN_SYSTEM_PROVIDERS_BUILD 20348u
#define PLAN_MAX_SYSTEM_PROVIDERS 12

/* One System Provider enable (SYSTEM_PROVIDERS route): level 0 (all), the
 * keywords as MatchAnyKeyword. */
struct plan_system_provider {
  const char *name;     /* "SystemSchedulerProvider" (static) */
  struct etw_guid guid;
  uint64_t keywords;    /* SYSTEM_*_KW_* */
  int stacks;           /* EVENT_ENABLE_PROPERTY_STACK_TRACE */
};
#define PLAN_NAME_MAX 1024 /* session names: ETW allows 1023 characters */

/* KERNEL_RUNDOWN: with /InMemoryCircularBuffer the ring may have lost the
 * kernel's process and image rundown, and a rotated segment never had one,
 * so a short kernel session at stop (at each segment's end) records them
 * again (PerfView's <name>KernelRundown). */
enum plan_role {
  PLAN_ROLE_KERNEL,
  PLAN_ROLE_USER,
  PLAN_ROLE_RUNDOWN,
  PLAN_ROLE_TRIGGER,
  PLAN_ROLE_KERNEL_RUNDOWN,
  PLAN_ROLE_HEAP /* /OSHeapProcess, /OSHeapExe: the OS heap session (plan_heap.c) */
};
enum plan_when { PLAN_AT_START, PLAN_AT_STOP };

/* One EVENT_FILTER_DESCRIPTOR: Type, and the exact bytes Ptr/Size point to. */
struct plan_filter {
  uint32_t type;
  uint8_t *data;
  uint32_t size;
};

/* One EnableTraceEx2 call (user-mode provider). */
struct plan_provider {
  struct etw_guid guid;
  char name[256];
  const char *origin;        /* why it is here: "default", "/Providers", ... (static) */
  uint8_t level;
  uint64_t match_any;
  uint64_t match_all;
  uint32_t enable_property;  /* PLAN_ENABLE_PROPERTY_* */
  uint32_t control_code;     /* PLAN_CONTROL_* */
  /* What the filters are made of (kept for merging and display). */
  int stacks;
  uint32_t pids[PROVIDER_SPEC_MAX_PIDS];
  size_t pid_count;
  char *exe_names;           /* ';'-separated, or NULL */
  struct provider_id_filter events;
  struct provider_id_filter stack_events;
  struct provider_kv *args;  /* EventSource arguments (filter data) */
  size_t arg_count;
  /* Rundown sessions enable in passes: pass N starts delay_ms after N-1. */
  unsigned pass;
  unsigned delay_ms;
  /* The descriptors, provider data first, as EnableTraceEx2 receives them
   * (built by plan_provider_build_filters). */
  struct plan_filter filters[PLAN_MAX_FILTERS];
  size_t filter_count;
};

/* CLASSIC_EVENT_ID: a kernel event that gets a stack. */
struct plan_stack_id {
  struct etw_guid task;
  uint8_t type;
};

/* A hardware counter (PMC) profile source of the machine: its
 * PROFILE_SOURCE_INFO (evntrace.h) and current interval, as
 * TraceEventProfileSources.GetInfo reads them and ListCpuCounters prints. */
#define PLAN_SOURCE_NAME_MAX 128
struct plan_machine_source {
  char name[PLAN_SOURCE_NAME_MAX];
  uint32_t id;           /* PROFILE_SOURCE_INFO.Source */
  uint32_t interval;     /* TRACE_PROFILE_INTERVAL.Interval now */
  uint32_t min_interval, max_interval;
};
#define PLAN_MAX_MACHINE_SOURCES 64

/* One /CpuCounters NAME:COUNT.  `resolved` once the name was found in the
 * machine's list (plan_options.machine_sources): then `id` is its Source. */
struct plan_profile_source {
  char name[PLAN_SOURCE_NAME_MAX];
  uint32_t interval;
  int resolved;
  uint32_t id;
};
#define PLAN_MAX_PROFILE_SOURCES 16
/* ETW_MAX_LBR_EVENTS (TraceEvent GetMaxLastBranchRecordingSources: 4). */
#define PLAN_MAX_LBR_SOURCES 4
/* TraceLbrConfigurationInfo and TraceLbrEventListInfo: "supported on
 * Windows 10, version 19H1, Windows Server, version 1903" (TRACE_QUERY_INFO_CLASS). */
#define PLAN_LBR_BUILD 18362u

/* OS heap tracing (PerfView's /OSHeapProcess, /OSHeapExe): a session of its
 * own whose Wnode.Guid is the heap provider's (TraceEvent
 * HeapTraceProviderTraceEventParser.ProviderGuid; "It is not necessary to
 * set the Guid member because [StartHeapTrace] always uses its own value",
 * Microsoft's WPT StartHeapTrace page) and whose EnableFlags point at an
 * extension block naming the process and the stacked events
 * (ETWKernelControl.StartWindowsHeapSession, plan_heap_extension). */
#define PLAN_HEAP_EXE_MAX 260
#define PLAN_HEAP_MAX_HOOKS 4
/* Hook ids: the heap group (0x10, EVENT_TRACE_GROUP_HEAP >> 8) and the event
 * type: 0x21 Alloc, 0x22 ReAlloc (TraceEvent's HeapTrace opcodes 33, 34;
 * PerfView's "10 = HeapProvider 21 = Stack on Alloc"). */
#define PLAN_HEAP_HOOK_ALLOC 0x1021u
#define PLAN_HEAP_HOOK_REALLOC 0x1022u
/* EVENT_TRACE_FLAG_EXTENSION (evntrace.h) with 0xFF in the length byte and
 * the block's offset in the low word: the form TraceEvent writes. */
#define PLAN_ENABLE_FLAGS_EXTENSION 0x80FF0000u
/* Extension item types (TraceEvent ETWKernelControl.ExtensionItemTypes). */
#define PLAN_EXT_PIDS 2u
#define PLAN_EXT_STACKWALK_FILTER 3u
#define PLAN_HEAP_EXTENSION_MAX_WORDS 16
/* Where /OSHeapExe's TracingFlags value lives, under HKLM (PerfView's
 * SetImageTracingFlags; the key of each image is its file name). */
#define PLAN_IFEO_KEY \
  "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options"
extern const struct etw_guid plan_heap_provider_guid;

struct plan_session {
  enum plan_role role;
  enum plan_when when;          /* rundown sessions are created at stop */
  char name[PLAN_NAME_MAX];
  char *file;                   /* LogFileName; NULL for real-time/in-memory */
  uint32_t buffer_size_kb;      /* BufferSize */
  uint32_t minimum_buffers;
  uint32_t maximum_buffers;
  uint32_t log_file_mode;
  uint32_t wnode_flags;
  uint32_t clock_type;          /* Wnode.ClientContext */
  uint32_t flush_timer_sec;
  uint32_t maximum_file_size_mb; /* 0 = unbounded */
  /* Kernel (system logger) sessions. */
  uint64_t kernel_keywords;     /* what was asked, PerfView's names */
  uint32_t enable_flags;        /* the classic EVENT_TRACE_FLAG_* bits asked for */
  /* How they reach Windows (plan_kernel_route fills these from enable_flags
   * and the Windows version). */
  enum plan_kernel_route route;
  uint32_t enable_flags_at_start; /* EVENT_TRACE_PROPERTIES.EnableFlags */
  uint32_t group_mask[PLAN_GROUP_MASK_WORDS]; /* GROUP_MASK route */
  struct plan_system_provider system_providers[PLAN_MAX_SYSTEM_PROVIDERS];
  size_t system_provider_count; /* SYSTEM_PROVIDERS route */
  uint64_t stack_keywords;
  struct plan_stack_id stack_ids[PLAN_MAX_STACK_IDS]; /* TraceStackTracingInfo */
  size_t stack_id_count;
  int stack_caching;            /* TraceStackCachingInfo (sizes below) */
  uint32_t stack_cache_size;    /* TRACE_STACK_CACHING_INFO.CacheSize */
  uint32_t stack_cache_buckets; /* TRACE_STACK_CACHING_INFO.BucketCount */
  uint32_t profile_interval_100ns; /* TraceSampledProfileIntervalInfo; 0 = leave */
  int needs_profile_privilege;  /* CPU samples: enable SeSystemProfilePrivilege first */
  /* /CpuCounters: the kernel's PMC sample events (PerfView's PMCProfile:
   * PERF_PMC_PROFILE in the group mask, SYSTEM_PROFILE_KW_PMC_PROFILE on the
   * System Providers route) with these sources, their intervals set
   * machine-wide before the start (TraceSampledProfileIntervalInfo) and
   * the ids given to the session (TraceProfileSourceConfigInfo). */
  int pmc_profile;
  struct plan_profile_source profile_sources[PLAN_MAX_PROFILE_SOURCES];
  size_t profile_source_count;
  /* /LbrSources, /LbrFilters (TraceLbrEventListInfo, TraceLbrConfigurationInfo);
   * no sources: no LBR. */
  uint32_t lbr_sources[PLAN_MAX_LBR_SOURCES];
  size_t lbr_source_count;
  uint32_t lbr_filters;
  /* Providers, already merged per GUID (and per rundown pass). */
  struct plan_provider *providers;
  size_t provider_count;
  /* Rundown sessions: how long to wait for the file to stop growing. */
  uint32_t rundown_timeout_sec;
  uint32_t min_rundown_sec;
  /* The heap session (PLAN_ROLE_HEAP): the process it traces (0 with
   * /OSHeapExe, whose processes the IFEO TracingFlags value marks) and the
   * heap events that get stacks, as PLAN_HEAP_HOOK_* ids. */
  uint32_t heap_pid;
  char heap_exe[PLAN_HEAP_EXE_MAX];
  uint32_t heap_stack_hooks[PLAN_HEAP_MAX_HOOKS];
  size_t heap_stack_hook_count;
};

/* WPR's stack caching sizes: its built-in system collector for large file
 * traces, as Microsoft's own profiles reproduce it (Microsoft Defender for
 * Endpoint's WPR profile, "Base: SystemCollector_WPRSystemCollectorInFileLarge":
 * <StackCaching BucketCount="100" CacheSize="1024" />).  WPR's StackCaching
 * element requires both (learn.microsoft.com windows-hardware/test/wpt/
 * stackcaching; its unit for CacheSize is KB).  The value goes to
 * TRACE_STACK_CACHING_INFO as WPR writes it.  UNCERTAIN
 * (docs/win32-contract.md §7.4): the API documents no unit; if Windows reads
 * CacheSize as bytes the cache is 1 KB and evicts all the time.  PerfView,
 * the one public caller, passes Enabled 1 with both sizes 0, and that works.
 * tests/live/live_contract.ps1 compares file size and StackWalk
 * Reference/Delete counts. */
#define PLAN_STACK_CACHE_SIZE 1024u
#define PLAN_STACK_CACHE_BUCKETS 100u

#define PLAN_MAX_SESSIONS 8

/* /NetworkCapture, /NetMonCapture: packet capture as PerfView arranges it
 * (CommandProcessor Start).  `netsh trace start ... capture=yes` turns on
 * Windows' packet capture; the packets are events of
 * Microsoft-Windows-NDIS-PacketCapture, which the user session enables
 * (with Microsoft-Windows-TCPIP), so they are in the merged trace.  netsh's
 * own file is not merged: on Windows 8+ it is a throwaway of at most 1 MB
 * (maxSize=1), X.netmon.etl; with /NetMonCapture, or before Windows 8, it
 * is netsh's full capture, X_netmon.etl, kept for Network Monitor (the '_'
 * keeps it out of the merge's X.*.etl names, as PerfView says). */
struct plan_packet_capture {
  int on;
  int netmon;            /* trace_file is kept for NetMon, not thrown away */
  char *trace_file;      /* netsh's traceFile, beside the data file */
  char *start_args;      /* netsh.exe's arguments: "trace start ..." */
};
#define PLAN_NETSH_STOP_ARGS "trace stop"

/* /RundownPeriodSec: a rundown recorded into the running capture every
 * `seconds`, so that any window a ring or segment keeps names what ran in
 * it (docs/win32-contract.md §8.4-§8.6).  The CLR part is TraceEvent's
 * CaptureState on the CLR rundown provider in the user session (an enable
 * with `clr_keywords`, then EVENT_CONTROL_CODE_CAPTURE_STATE with them):
 * both of PerfView's passes at once, Jit and NGen methods always.  The
 * kernel part depends on the route. */
enum plan_periodic_kernel {
  PLAN_PERIODIC_KERNEL_NONE = 0,    /* no kernel session, or Windows 7 */
  PLAN_PERIODIC_KERNEL_SESSION,     /* the kernel rundown session, into its own file */
  PLAN_PERIODIC_KERNEL_CAPTURE_STATE /* CAPTURE_STATE to each System Provider: undocumented */
};
/* How many periodic kernel rundown files (X.kernelRundown.<n>.etl) a ring
 * or segment keeps, the newest: half of what one merge takes
 * (ETL_MERGE_MAX_INPUTS; why that is enough: docs/win32-contract.md §8.5). */
#define PLAN_PERIODIC_RUNDOWN_FILES_KEPT 32

struct plan_periodic_rundown {
  uint32_t seconds;                 /* 0: none */
  uint64_t clr_keywords;
  enum plan_periodic_kernel kernel;
};

struct plan {
  struct os_version os;
  int os_assumed;             /* not the running Windows: default or /TargetOS */
  /* /KernelRoute: PLAN_ROUTE_NONE takes the default (plan_kernel_route). */
  enum plan_kernel_route kernel_route_asked;
  /* ENABLE_TRACE_PARAMETERS.Version: 2 where filters exist (8.1+), else 1. */
  unsigned enable_parameters_version;
  const char *command;        /* "collect", "start" or "run" (static) */
  char *data_file;            /* the user ETL, X.etl */
  char *zip_file;             /* X.etl.zip when zipping, else NULL */
  int merge, zip;
  int64_t max_collect_sec;
  struct plan_session sessions[PLAN_MAX_SESSIONS];
  size_t session_count;
  struct plan_packet_capture packet_capture;
  struct plan_periodic_rundown periodic_rundown;
  char **notes;               /* things a user should know (quirks, fallbacks) */
  size_t note_count;
  char error[1024];           /* why plan_build failed, naming the token */
};

/* Options for plan_build: a plain struct so the plan can be built without a
 * command line.  plan_options_init sets PerfView's defaults; strings and
 * lists are borrowed, not copied. */
struct plan_options {
  const char *command;        /* "collect" (default), "start" or "run" */
  struct os_version os;
  int os_assumed;
  unsigned long pid;          /* for etwcapTrigger_<pid>; 0 prints "<pid>" */
  const char *data_file;
  int64_t buffer_size_mb;     /* 256 */
  int64_t circular_mb;        /* -1: unset (collect: 500, start: 0) */
  int in_memory;
  int stack_compression;      /* 1 */
  const char *session_name;   /* NULL: "etwcap" */
  int64_t max_collect_sec;
  double cpu_sample_msec;     /* 1.0 */
  const char *kernel_events;
  /* /KernelRoute: NULL or "auto" (the default), "systemProviders", "groupMask"
   * (see enum plan_kernel_route). */
  const char *kernel_route;
  const char *clr_events;
  const char *clr_event_level;
  const char *tpl_events;
  char *const *providers;
  size_t provider_count;
  char *const *only_providers;
  size_t only_provider_count;
  int thread_time, gc_only, gc_collect_only, gc_triggered_stacks;
  int runtime_loading, ccw_refcount, user_crit_contention;
  int network_capture, netmon_capture; /* /NetworkCapture, /NetMonCapture */
  const char *focus_process;
  int containers, container_tracking;
  int no_rundown, no_clr_rundown, no_ngen_rundown, force_ngen_rundown, no_v2_rundown;
  /* /SegmentSec, /SegmentMB: the files rotate, and each segment gets its own
   * kernel rundown at its end as an in-memory ring does (a file switch
   * writes none). */
  int segments;
  int64_t rundown_period_sec; /* /RundownPeriodSec: 0 none (plan_periodic_rundown) */
  int64_t rundown_timeout_sec, min_rundown_sec, rundown_max_mb;
  int merge, zip;             /* -1: unset */
  /* What the triggers need (plan_options_from_cli asks the trigger engine's
   * trigger_session_providers): the trigger session enables exactly these,
   * and there is none without them. */
  struct session_provider_need trigger_needs[SESSION_NEEDS_MAX];
  size_t trigger_need_count;
  /* /CpuCounters NAME:COUNT,... and the machine's sources to resolve the
   * names against (plan_cli asks the controller): machine_sources_known 0
   * when they could not be read (off Windows, a stub), and
   * machine_sources_why then says why; the plan keeps the names unresolved. */
  char *const *cpu_counters;
  size_t cpu_counter_count;
  struct plan_machine_source machine_sources[PLAN_MAX_MACHINE_SOURCES];
  size_t machine_source_count;
  int machine_sources_known;
  char machine_sources_why[160];
  const char *lbr_sources;    /* /LbrSources: 0xHEX or PmcInterrupt, comma-separated */
  const char *lbr_filters;    /* /LbrFilters: StackMode, Kernel, User, ... */
  int wpr;                    /* /Wpr: WPR's kernel events and user providers, no zip */
  int64_t os_heap_pid;        /* /OSHeapProcess: 0 none */
  const char *os_heap_exe;    /* /OSHeapExe: NAME.exe, or NULL */
  int64_t os_heap_max_mb;     /* /OSHeapMaxMB: the heap file's MaximumFileSize, 0 none */
};

void plan_options_init(struct plan_options *o);

/* Builds the plan.  Returns 0, ETWCAP_E_USAGE (plan->error says which
 * token and why), ETWCAP_E_UNSUPPORTED (the target Windows cannot do it;
 * plan->error says why) or ETWCAP_E_NOMEM.  plan_release is needed in every
 * case. */
int plan_build(const struct plan_options *opt, struct plan *plan);
void plan_release(struct plan *plan);

/* Merges providers enabled more than once in one session (same GUID and
 * rundown pass) into one enable: union of keywords (MatchAny OR, MatchAll
 * AND), highest level, OR of enable properties, union of filters where both
 * filter (no filter wins), later arguments win.  A provider with level 0
 * and keywords 0 removes the earlier enables of its GUID and is itself
 * dropped (PerfView's "turn off a default provider").  Order of first
 * appearance is kept.  Pure; returns 0 or ETWCAP_E_NOMEM. */
int plan_merge_providers(struct plan_provider *list, size_t *count);
/* Frees what a plan_provider owns (not the struct itself). */
void plan_provider_release(struct plan_provider *p);
/* Frees only its filters (a copy made by plan_provider_with_session_keyword). */
void plan_provider_release_filters(struct plan_provider *p);

/* Builds p->filters from the provider's fields, for a session called
 * `session_name` (it goes into the EventSource provider data).  Returns 0,
 * ETWCAP_E_RANGE (more than PLAN_MAX_FILTERS) or ETWCAP_E_NOMEM. */
int plan_provider_build_filters(struct plan_provider *p, const char *session_name);

/* The lowest EventSource session keyword bit (44..47) not set in `in_use`
 * (the MatchAllKeyword of every session that enables the provider), or -1
 * when all four are taken: TraceEvent's FindFreeSessionKeyword. */
int plan_session_keyword_free(uint64_t in_use);
/* `out` = p as enabled with session keyword `bit` (44..47): MatchAllKeyword
 * and the provider data name that bit.  A shallow copy: its arguments and
 * names are p's; its filters are its own (plan_provider_release_filters).
 * 0, ETWCAP_E_RANGE or ETWCAP_E_NOMEM (out then owns nothing). */
int plan_provider_with_session_keyword(const struct plan_provider *p, const char *session_name,
                                       int bit, struct plan_provider *out);

/* /KernelRoute's value (NULL or "auto", "systemProviders", "groupMask",
 * any case) -> plan->kernel_route_asked.  Returns 0, ETWCAP_E_USAGE (an
 * unknown value) or ETWCAP_E_UNSUPPORTED (the plan's Windows has no such
 * route: groupMask needs 6.2, systemProviders build 20348); plan->error says
 * why. */
int plan_choose_kernel_route(struct plan *plan, const char *text);
/* Fills s->route, enable_flags_at_start, group_mask and system_providers
 * from s->enable_flags (see enum plan_kernel_route): a session without
 * SYSTEM_LOGGER_MODE is the NT Kernel Logger, a system logger takes the
 * group mask unless `asked` is PLAN_ROUTE_SYSTEM_PROVIDERS (already checked
 * against the Windows version by plan_choose_kernel_route).  Pure. */
void plan_kernel_route(enum plan_kernel_route asked, struct plan_session *s);
/* The PERFINFO_GROUPMASK for classic EnableFlags: each flag in its group and
 * Masks[] word (krabsetw perfinfo_groupmask.hpp; the System Providers page's
 * "legacy flags and groups" column).  Flags in Masks[0] keep their bit. */
void plan_group_mask_of_flags(uint32_t flags, uint32_t mask[PLAN_GROUP_MASK_WORDS]);
/* Names of the groups set in `mask` ("PERF_PROFILE|PERF_CONTEXT_SWITCH"),
 * for messages about groups Windows did not apply; bits etwcap has no name
 * for print as "Masks[i]:0x..".  snprintf-like. */
size_t plan_group_mask_names(const uint32_t mask[PLAN_GROUP_MASK_WORDS], char *buf, size_t size);
/* "kernelRundownSession", "captureState" or "none" (plan JSON's
 * periodicRundown.kernel). */
const char *plan_periodic_kernel_name(enum plan_periodic_kernel kernel);
/* "systemProviders", "groupMask", "ntKernelLogger", or "none". */
const char *plan_route_name(enum plan_kernel_route route);

/* Finds each of `list` (n /CpuCounters sources) by name (any case) in the machine's
 * list: sets its id and `resolved`, and its name as the machine spells it.
 * ETWCAP_E_USAGE when a name is missing (err lists the machine's sources)
 * or an interval is outside the source's MinInterval..MaxInterval (as
 * PerfView's SetCpuCounters).  Pure. */
int plan_resolve_profile_sources(struct plan_profile_source *list, size_t n,
                                 const struct plan_machine_source *m, size_t count, char *err,
                                 size_t err_size);

/* The extension block of a heap session's EVENT_TRACE_PROPERTIES, as
 * TraceEvent's SaveExtensions writes it: a header word (length in words in
 * the low half, item count in the high half), then per item a word (its
 * length in words, header included, low; its type high) and its data: an
 * ETW_EXT_PIDS item with s->heap_pid, an ETW_EXT_STACKWALK_FILTER item with
 * the hook ids.  Writes up to `max` words; returns how many the block has.
 * Pure. */
size_t plan_heap_extension(const struct plan_session *s, uint32_t *words, size_t max);

/* The CLASSIC_EVENT_IDs TraceEvent requests for these kernel keywords
 * (TraceEventSession SetStackTraceIds, docs/perfview-collection.md §4.2). */
size_t plan_kernel_stack_ids(uint64_t stack_keywords, struct plan_stack_id *out, size_t max);

#endif
