/* Qualifiers for the data file, the sessions and their buffers
 * (docs/perfview-collection.md §3.1).  The plan gives them their meaning. */
#include "src/cli/qualifiers.h"

static const struct opt_def defs[] = {
  { "DataFile", NULL, BIND_STRING(plan.data_file), "FILE", "etwcapData.etl",
    "Name of the trace. The user session writes FILE, the kernel session FILE.kernel.etl, the "
    "result is FILE.zip. '.etl' is appended when missing; a trailing '.zip' is stripped. The "
    "positional DataFile argument does the same.",
    0, 0, NULL },
  { "BufferSizeMB", "BufferSize", BIND_INT(plan.buffer_size_mb), "MB", NULL,
    "Buffer pool of each session in MB (64 KB buffers: MinimumBuffers = MB*1024/64, "
    "MaximumBuffers = Min*5/4+10).",
    1, 1048576, NULL },
  { "CircularMB", "Circular", BIND_INT(plan.circular_mb), "MB", "500 for collect, 0 otherwise",
    "Size of the circular files: the kernel session gets MB, the user session MB+300 (as "
    "PerfView). 0 writes sequential files (PerfView's collect turns 0 into 500).",
    0, 1048576, NULL },
  { "InMemoryCircularBuffer", NULL, BIND_BOOL(plan.in_memory), NULL, NULL,
    "Keep the circular buffers in memory (EVENT_TRACE_BUFFERING_MODE) and write them to the "
    "files only at stop. Not with 'start'.",
    0, 0, NULL },
  { "StackCompression", NULL, BIND_BOOL(plan.stack_compression), NULL, NULL,
    "Ask Windows 10+ to cache kernel stacks (TraceStackCachingInfo), which makes traces with "
    "stacks much smaller. /StackCompression:false turns it off.",
    0, 0, NULL },
  { "SessionName", NULL, BIND_STRING(plan.session_name), "NAME", "etwcap",
    "Name of the user session; the kernel session is NAMEKernel, the rundown session "
    "NAMERundown, trigger sessions NAMETrigger_PID. Lets two captures run side by side. "
    "Windows 8 or later.",
    0, 0, NULL },
  { "MaxCollectSec", NULL, BIND_INT(triggers.max_collect_sec), "SEC", "0 (no limit)",
    "Stop the collection after SEC seconds.", 0, 31536000, NULL },
  { "CpuSampleMSec", NULL, BIND_FLOAT(plan.cpu_sample_msec), "MSEC", NULL,
    "CPU sampling interval in milliseconds (0.125 to 1000).", 0, 0, NULL },
  { "CpuCounters", NULL, BIND_LIST(plan.cpu_counters, plan.cpu_counter_count), "NAME:COUNT,...",
    NULL,
    "Sample hardware CPU counters (PMC): a PMCProfile kernel event every COUNT events of each "
    "named profile source ('etwcap ListCpuCounters' lists this machine's names, ids and "
    "allowed counts). Sets each source's interval, then the list of sources to sample "
    "(TraceProfileSourceConfigInfo), both machine-wide before the kernel session starts, as "
    "PerfView. An unknown name is an error that lists the "
    "machine's sources. Windows 8 or later. Checked only against a model of the documented "
    "API, not on a real Windows yet.",
    0, 0, NULL },
  { "LbrSources", NULL, BIND_STRING(plan.lbr_sources), "0xHEX|PmcInterrupt,...", NULL,
    "Last-branch recording on the kernel session: at most 4 event ids (0x-prefixed hex, or "
    "PmcInterrupt, 0x0F2F) that record the CPU's last branches "
    "(TraceLbrConfigurationInfo, TraceLbrEventListInfo). Windows 10 19H1 (build 18362) or "
    "later, else dropped with a note. Checked only against a model of the documented API.",
    0, 0, NULL },
  { "LbrFilters", NULL, BIND_STRING(plan.lbr_filters), "NAME,...", NULL,
    "Which branches /LbrSources records: StackMode, ConditionalBranches, NearRelativeCalls, "
    "NearIndirectCalls, NearReturns, NearIndirectJumps, NearRelativeJumps, FarBranches, "
    "Kernel, User (xperf's names). StackMode takes only Kernel or User beside it; Kernel and "
    "User exclude each other. No effect without /LbrSources.",
    0, 0, NULL },
  { "OSHeapProcess", NULL, BIND_INT(plan.os_heap_pid), "PID", NULL,
    "Trace the OS heap of the running process PID (allocations and frees, with stacks on "
    "allocations and reallocations) "
    "in a session of its own, NAMEHeap, writing FILE.userheap.etl (merged into the zip); the "
    "kernel session adds VirtualAlloc. As PerfView. Checked only against a model of the "
    "API (the heap session's layout is TraceEvent's; Microsoft does not document it), not on "
    "a real Windows yet.",
    1, 4294967295LL, NULL },
  { "OSHeapExe", NULL, BIND_STRING(plan.os_heap_exe), "NAME.exe", NULL,
    "Trace the OS heap of programs named NAME.exe (a file name, no folder; NAME alone gets "
    ".exe, as in PerfView) started while the "
    "capture runs: sets TracingFlags=1 under HKLM's Image File Execution Options\\NAME.exe, "
    "as PerfView, and puts it back at stop, at abort (also after a killed capture: the "
    "session record says what was there) and at the end of collect. Not with "
    "/OSHeapProcess. Checked only against models of the registry and the API, not on a real "
    "Windows yet.",
    1, 0, NULL },
  { "OSHeapMaxMB", NULL, BIND_INT(plan.os_heap_max_mb), "MB", "0 (no limit)",
    "Largest size of FILE.userheap.etl (MaximumFileSize of the heap session, which is never "
    "circular).",
    0, 1048576, NULL },
  { "NetworkCapture", NULL, BIND_BOOL(plan.network_capture), NULL, NULL,
    "Capture every network packet, as PerfView: after the sessions start, 'netsh trace start "
    "scenario=InternetClient capture=yes ...' (netsh.exe from the system folder) turns packet "
    "capture on, and the user session records the packets as "
    "Microsoft-Windows-NDIS-PacketCapture events (with Microsoft-Windows-TCPIP), so they are "
    "in the merged trace. 'netsh trace stop' ends it with the sessions, also in 'stop' and "
    "'abort'. netsh's own file, FILE.netmon.etl (at most 1 MB), is deleted after the stop. "
    "Checked only against a fake of netsh: Wine has no 'netsh trace'.",
    0, 0, NULL },
  { "NetMonCapture", NULL, BIND_BOOL(plan.netmon_capture), NULL, NULL,
    "/NetworkCapture, and keep netsh's full capture as FILE_netmon.etl beside the data file "
    "for Network Monitor (not merged: the packets are in the merged trace anyway). Before "
    "Windows 8 /NetworkCapture does this too. Checked only against a fake of netsh.",
    0, 0, NULL },
};

const struct opt_group opt_group_output = OPT_GROUP("Data file, sessions and buffers", defs);
