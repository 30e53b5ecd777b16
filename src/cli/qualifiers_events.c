/* Qualifiers that choose the events (docs/perfview-collection.md §3.2, §3.3). */
#include "src/cli/qualifiers.h"

static const char needs_profiler[] =
    "it needs PerfView's EtwClrProfiler.dll, a .NET profiler etwcap does not ship. Use "
    "/ClrEvents:Default+GCSampledObjectAllocationHigh for sampled allocations.";

static const struct opt_def defs[] = {
  { "KernelEvents", NULL, BIND_STRING(plan.kernel_events), "NAMES|0xHEX", "Default (0x0101270F)",
    "Kernel event groups: names joined with ',' '+' or '|' (and '-' to remove), or hex. "
    "None disables the kernel session.",
    0, 0, NULL },
  { "KernelRoute", NULL, BIND_STRING(plan.kernel_route), "auto|systemProviders|groupMask", "auto",
    "How kernel events are switched on in etwcap's private kernel sessions. auto (the "
    "default) is groupMask on every Windows from 8: EnableFlags at start plus the group mask, "
    "as PerfView and krabsetw do. systemProviders (build 20348 and later) enables the System "
    "Providers instead; opt-in until a live run shows it writes the start rundown (the names "
    "of processes and images already running). 'plan' shows the route; README, \"Kernel "
    "route\".",
    0, 0, NULL },
  { "ThreadTime", NULL, BIND_BOOL(plan.thread_time), NULL, NULL,
    "Add context switches and ready-thread events with stacks (/KernelEvents:ThreadTime) and "
    "the network and anti-malware providers PerfView adds with it.",
    0, 0, NULL },
  { "ClrEvents", NULL, BIND_STRING(plan.clr_events), "NAMES|0xHEX", "Default (0x14C14FCCBD)",
    "Keywords of Microsoft-Windows-DotNETRuntime: names joined with ',' '+' or '|', '-' to "
    "remove (Default-Profile), or hex. None disables the CLR providers.",
    0, 0, NULL },
  { "ClrEventLevel", NULL, BIND_STRING(plan.clr_event_level), "LEVEL", "Verbose",
    "Level of the CLR providers: Critical, Error, Warning, Informational, Verbose or 0-255.",
    0, 0, NULL },
  { "TplEvents", NULL, BIND_STRING(plan.tpl_events), "NAMES|0xHEX", "None",
    "Keywords of the .NET Tasks (TPL) EventSource (Tasks, TaskTransfer, TasksFlowActivityIds, "
    "...; or hex), enabled at /ClrEventLevel with stacks on task scheduling events.",
    0, 0, NULL },
  { "Providers", NULL, BIND_LIST(plan.providers, plan.provider_count), "SPEC,...", NULL,
    "More providers, enabled last: NAME|GUID|*EventSourceName[:KEYWORDS[:LEVEL[:stack]]]"
    "[:key=value;@Filter=...]. Level 0 with keywords 0 turns a default provider off.",
    0, 0, NULL },
  { "OnlyProviders", NULL, BIND_LIST(plan.only_providers, plan.only_provider_count), "SPEC,...", NULL,
    "Like /Providers, but turn off the default kernel and CLR events.", 0, 0, NULL },
  { "GCOnly", NULL, BIND_BOOL(plan.gc_only), NULL, NULL,
    "GC investigation preset: GC, heap survival, types and allocation-tick events with "
    "process, thread, image and VirtualAlloc kernel events.",
    0, 0, NULL },
  { "GCCollectOnly", NULL, BIND_BOOL(plan.gc_collect_only), NULL, NULL,
    "Lowest-overhead GC preset: CLR GC events at Informational and process events, no stacks, "
    "only the minimal CLR rundown at stop (as /NoRundown; not with /GCTriggeredStacks). Writes "
    "etwcapGCCollectOnly.etl.zip unless a DataFile is given.",
    0, 0, NULL },
  { "GCTriggeredStacks", NULL, BIND_BOOL(plan.gc_triggered_stacks), NULL, NULL,
    "With /GCCollectOnly, add stacks of what triggered each GC (image loads, CLR stack "
    "keyword, rundown).",
    0, 0, NULL },
  { "RuntimeLoading", NULL, BIND_BOOL(plan.runtime_loading), NULL, NULL,
    "Add the CLR's compilation, method and type loading diagnostics keywords.", 0, 0, NULL },
  { "CCWRefCount", NULL, BIND_BOOL(plan.ccw_refcount), NULL, NULL,
    "Add COM callable wrapper reference-count events (InteropEventProvider) with stacks.", 0,
    0, NULL },
  { "UserCritContention", NULL, BIND_BOOL(plan.user_crit_contention), NULL, NULL,
    "Add Win32k user-critical-section contention events.", 0, 0, NULL },
  { "FocusProcess", NULL, BIND_STRING(plan.focus_process), "PID|NAME.exe", NULL,
    "Collect user-mode events of this process only (ETW scope filter on every user provider, "
    "including rundown). Kernel events are not filtered.",
    0, 0, NULL },
  { "EnableEventsInContainers", NULL, BIND_BOOL(plan.containers), NULL, NULL,
    "Collect user-mode events from process-isolated containers too (ENABLE_SILOS on every "
    "user-mode enable, rundown included). Run on the host.",
    0, 0, NULL },
  { "EnableSourceContainerTracking", NULL, BIND_BOOL(plan.container_tracking), NULL, NULL,
    "Record the container id of each user-mode event (SOURCE_CONTAINER_TRACKING).", 0, 0,
    NULL },
  { "DotNetAlloc", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetAllocSampled", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetCalls", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetCallsSampled", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DisableInlining", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0, needs_profiler },
  { "JITInlining", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0,
    "it has no effect on PerfView's command line either; use /ClrEvents:Default+JitTracing." },
  { "Wpr", NULL, BIND_BOOL(plan.wpr), NULL, NULL,
    "Collect like WPR's default profile, as PerfView's /Wpr: kernel ThreadTime with DPCs, "
    "Driver and Interrupt events (0x01812F7F), and in the user session, instead of the "
    "default providers and the CLR block, the 131 OS providers PerfView's WPR list names "
    "(mostly keyword 0x1000000000000; .NET Common Language Runtime at Verbose with 0x98). No "
    "zip unless /Zip is given: the merged NAME.etl opens in WPA, and the NGEN PDBs go into "
    "the folder NAME.etl.ngenpdb beside it. Five names of Windows 8 "
    "components in PerfView's list have no known GUID and are left out (plan says which).",
    0, 0, NULL },
  { "DumpHeap", NULL, UNBOUND(OPT_BOOL), NULL, NULL, NULL, 0, 0,
    "heap snapshots need PerfView's HeapDump.exe." },
  { "MaxNodeCountK", NULL, UNBOUND(OPT_INT), NULL, NULL, NULL, 0, 0,
    "it bounds PerfView's heap snapshots (HeapDump.exe), which etwcap does not take." },
};

const struct opt_group opt_group_events = OPT_GROUP("Events to collect", defs);
