/* Qualifiers that choose the events (perfview-collect.md §3.2, §3.3). */
#include "qualifiers.h"

static const char needs_profiler[] =
    "it needs PerfView's EtwClrProfiler.dll, a .NET profiler etwcap does not ship. Use "
    "/ClrEvents:Default+GCSampledObjectAllocationHigh for sampled allocations.";

static const struct opt_def defs[] = {
  { "KernelEvents", NULL, OPT_STRING, "NAMES|0xHEX", "Default (0x0101270F)",
    "Kernel event groups: names joined with ',' '+' or '|' (and '-' to remove), or hex. "
    "None disables the kernel session.",
    0, 0, NULL },
  { "KernelRoute", NULL, OPT_STRING, "auto|systemProviders|groupMask", "auto",
    "How kernel events are switched on in etwcap's private kernel sessions. auto: by build "
    "(System Providers from build 20348, EnableFlags at start plus the group mask on Windows "
    "8 to 10). groupMask (Windows 8 and later) is the older, long-proven route; "
    "systemProviders needs build 20348. 'plan' shows the route; README, \"Kernel route\".",
    0, 0, NULL },
  { "ThreadTime", NULL, OPT_BOOL, NULL, NULL,
    "Add context switches and ready-thread events with stacks (/KernelEvents:ThreadTime) and "
    "the network and anti-malware providers PerfView adds with it.",
    0, 0, NULL },
  { "ClrEvents", NULL, OPT_STRING, "NAMES|0xHEX", "Default (0x14C14FCCBD)",
    "Keywords of Microsoft-Windows-DotNETRuntime: names joined with ',' '+' or '|', '-' to "
    "remove (Default-Profile), or hex. None disables the CLR providers.",
    0, 0, NULL },
  { "ClrEventLevel", NULL, OPT_STRING, "LEVEL", "Verbose",
    "Level of the CLR providers: Critical, Error, Warning, Informational, Verbose or 0-255.",
    0, 0, NULL },
  { "TplEvents", NULL, OPT_STRING, "NAMES|0xHEX", "None",
    "Keywords of the .NET Tasks (TPL) EventSource (Tasks, TaskTransfer, TasksFlowActivityIds, "
    "...; or hex), enabled at /ClrEventLevel with stacks on task scheduling events.",
    0, 0, NULL },
  { "Providers", NULL, OPT_LIST, "SPEC,...", NULL,
    "More providers, enabled last: NAME|GUID|*EventSourceName[:KEYWORDS[:LEVEL[:stack]]]"
    "[:key=value;@Filter=...]. Level 0 with keywords 0 turns a default provider off.",
    0, 0, NULL },
  { "OnlyProviders", NULL, OPT_LIST, "SPEC,...", NULL,
    "Like /Providers, but turn off the default kernel and CLR events.", 0, 0, NULL },
  { "GCOnly", NULL, OPT_BOOL, NULL, NULL,
    "GC investigation preset: GC, heap survival, types and allocation-tick events with "
    "process, thread, image and VirtualAlloc kernel events.",
    0, 0, NULL },
  { "GCCollectOnly", NULL, OPT_BOOL, NULL, NULL,
    "Lowest-overhead GC preset: CLR GC events at Informational and process events, no stacks, "
    "no rundown.",
    0, 0, NULL },
  { "GCTriggeredStacks", NULL, OPT_BOOL, NULL, NULL,
    "With /GCCollectOnly, add stacks of what triggered each GC (image loads, CLR stack "
    "keyword, rundown).",
    0, 0, NULL },
  { "RuntimeLoading", NULL, OPT_BOOL, NULL, NULL,
    "Add the CLR's compilation, method and type loading diagnostics keywords.", 0, 0, NULL },
  { "CCWRefCount", NULL, OPT_BOOL, NULL, NULL,
    "Add COM callable wrapper reference-count events (InteropEventProvider) with stacks.", 0,
    0, NULL },
  { "UserCritContention", NULL, OPT_BOOL, NULL, NULL,
    "Add Win32k user-critical-section contention events.", 0, 0, NULL },
  { "FocusProcess", NULL, OPT_STRING, "PID|NAME.exe", NULL,
    "Collect user-mode events of this process only (ETW scope filter on every user provider, "
    "including rundown). Kernel events are not filtered.",
    0, 0, NULL },
  { "EnableEventsInContainers", NULL, OPT_BOOL, NULL, NULL,
    "Collect user-mode events from process-isolated containers too (ENABLE_SILOS on every "
    "user-mode enable, rundown included). Run on the host.",
    0, 0, NULL },
  { "EnableSourceContainerTracking", NULL, OPT_BOOL, NULL, NULL,
    "Record the container id of each user-mode event (SOURCE_CONTAINER_TRACKING).", 0, 0,
    NULL },
  { "DotNetAlloc", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetAllocSampled", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetCalls", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DotNetCallsSampled", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0, needs_profiler },
  { "DisableInlining", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0, needs_profiler },
  { "JITInlining", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0,
    "it has no effect on PerfView's command line either; use /ClrEvents:Default+JitTracing." },
  { "Wpr", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0,
    "WPR-compatible provider sets are not implemented; use WPR itself for that profile." },
  { "DumpHeap", NULL, OPT_BOOL, NULL, NULL, NULL, 0, 0,
    "heap snapshots need PerfView's HeapDump.exe." },
  { "MonitorPerfCounter", NULL, OPT_LIST, NULL, NULL, NULL, 0, 0,
    "logging counters into the trace is not implemented; /StopOnPerfCounter triggers are." },
};

const struct opt_group opt_group_events = OPT_GROUP("Events to collect", defs);
