/* See builtin_events.h.  Field lists follow the templates of
 * dotnet/runtime src/coreclr/vm/ClrEtwAll.man (GCStart_V1/V2, GCEnd_V1,
 * GCSuspendEE_V1, ExceptionThrown_V1 ...), the kernel MOF classes
 * (Process_V1..V4, Thread_V2/V3, Image_V2/V3) and System.Net.Http's
 * HttpTelemetry EventSource.  Field names are the ones TraceEvent shows. */
#include "etw/event/builtin_events.h"

#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

const struct etw_guid bi_guid_clr = { 0xe13c0d23, 0xccbc, 0x4e12,
                                      { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
const struct etw_guid bi_guid_clr_rundown = { 0xa669021c, 0xc450, 0x4609,
                                              { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };
const struct etw_guid bi_guid_kernel = { 0x9e814aad, 0x3204, 0x11d2,
                                         { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };
const struct etw_guid bi_guid_http = { 0xd30b5633, 0x7ef1, 0x5485,
                                       { 0xb4, 0xe0, 0x94, 0x97, 0x9b, 0x10, 0x20, 0x68 } };
const struct etw_guid bi_guid_iis = { 0xde4649c9, 0x15e8, 0x4fea,
                                      { 0x9d, 0x85, 0x1c, 0xdd, 0xa5, 0x20, 0xc3, 0x34 } };

/* The task GUIDs classic kernel events carry when they come through a
 * real-time session as EVENT_RECORDs (ProcessGuid, ThreadGuid, ImageLoadGuid). */
static const struct {
  struct etw_guid guid;
  uint8_t group;
} kernel_tasks[] = {
  { { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, 3 },
  { { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, 5 },
  { { 0x2cb15d1d, 0x5fc1, 0x11d2, { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } }, 20 },
};

#define L(arr) { arr, sizeof(arr) / sizeof(arr[0]) }
#define NONE { NULL, 0 }

/* --- CLR (Microsoft-Windows-DotNETRuntime) ------------------------------- */
static const struct tf_field gc_start_v0[] = { { "Count", TF_U32 }, { "Reason", TF_U32 } };
static const struct tf_field gc_start_v1[] = { { "Count", TF_U32 }, { "Depth", TF_U32 },
                                               { "Reason", TF_U32 }, { "Type", TF_U32 },
                                               { "ClrInstanceID", TF_U16 } };
static const struct tf_field gc_start_v2[] = { { "Count", TF_U32 }, { "Depth", TF_U32 },
                                               { "Reason", TF_U32 }, { "Type", TF_U32 },
                                               { "ClrInstanceID", TF_U16 },
                                               { "ClientSequenceNumber", TF_U64 } };
static const struct tf_field gc_end_v0[] = { { "Count", TF_U32 }, { "Depth", TF_U16 } };
static const struct tf_field gc_end_v1[] = { { "Count", TF_U32 }, { "Depth", TF_U32 },
                                             { "ClrInstanceID", TF_U16 } };
static const struct tf_field clr_instance[] = { { "ClrInstanceID", TF_U16 } };
static const struct tf_field heap_stats_v1[] = {
  { "GenerationSize0", TF_U64 }, { "TotalPromotedSize0", TF_U64 },
  { "GenerationSize1", TF_U64 }, { "TotalPromotedSize1", TF_U64 },
  { "GenerationSize2", TF_U64 }, { "TotalPromotedSize2", TF_U64 },
  { "GenerationSize3", TF_U64 }, { "TotalPromotedSize3", TF_U64 },
  { "FinalizationPromotedSize", TF_U64 }, { "FinalizationPromotedCount", TF_U64 },
  { "PinnedObjectCount", TF_U32 }, { "SinkBlockCount", TF_U32 }, { "GCHandleCount", TF_U32 },
  { "ClrInstanceID", TF_U16 }, { "GenerationSize4", TF_U64 }, { "TotalPromotedSize4", TF_U64 }
};
static const struct tf_field create_segment_v1[] = { { "Address", TF_U64 }, { "Size", TF_U64 },
                                                     { "Type", TF_U32 },
                                                     { "ClrInstanceID", TF_U16 } };
static const struct tf_field free_segment_v1[] = { { "Address", TF_U64 },
                                                   { "ClrInstanceID", TF_U16 } };
static const struct tf_field suspend_v0[] = { { "Reason", TF_U16 } };
static const struct tf_field suspend_v1[] = { { "Reason", TF_U32 }, { "Count", TF_U32 },
                                              { "ClrInstanceID", TF_U16 } };
static const struct tf_field alloc_tick_v3[] = {
  { "AllocationAmount", TF_U32 }, { "AllocationKind", TF_U32 }, { "ClrInstanceID", TF_U16 },
  { "AllocationAmount64", TF_U64 }, { "TypeID", TF_PTR }, { "TypeName", TF_UTF16Z },
  { "HeapIndex", TF_U32 }, { "Address", TF_PTR }
};
static const struct tf_field finalizers_end_v1[] = { { "Count", TF_U32 },
                                                     { "ClrInstanceID", TF_U16 } };
static const struct tf_field gc_triggered[] = { { "Reason", TF_U32 }, { "ClrInstanceID", TF_U16 } };
static const struct tf_field exception_v1[] = {
  { "ExceptionType", TF_UTF16Z }, { "ExceptionMessage", TF_UTF16Z }, { "ExceptionEIP", TF_PTR },
  { "ExceptionHRESULT", TF_U32 }, { "ExceptionFlags", TF_U16 }, { "ClrInstanceID", TF_U16 }
};
static const struct tf_field exception_handling[] = { { "EntryEIP", TF_U64 },
                                                      { "MethodID", TF_U64 },
                                                      { "MethodName", TF_UTF16Z },
                                                      { "ClrInstanceID", TF_U16 } };
static const struct tf_field contention_v1[] = { { "ContentionFlags", TF_U8 },
                                                 { "ClrInstanceID", TF_U16 } };
static const struct tf_field contention_start_v2[] = { { "ContentionFlags", TF_U8 },
                                                       { "ClrInstanceID", TF_U16 },
                                                       { "LockID", TF_PTR },
                                                       { "AssociatedObjectID", TF_PTR },
                                                       { "LockOwnerThreadID", TF_U64 } };
static const struct tf_field contention_stop_v1[] = { { "ContentionFlags", TF_U8 },
                                                      { "ClrInstanceID", TF_U16 },
                                                      { "DurationNs", TF_F64 } };
static const struct tf_field tp_worker[] = { { "ActiveWorkerThreadCount", TF_U32 },
                                             { "RetiredWorkerThreadCount", TF_U32 },
                                             { "ClrInstanceID", TF_U16 } };
static const struct tf_field tp_sample[] = { { "Throughput", TF_F64 },
                                             { "ClrInstanceID", TF_U16 } };
static const struct tf_field tp_adjust[] = { { "AverageThroughput", TF_F64 },
                                             { "NewWorkerThreadCount", TF_U32 },
                                             { "Reason", TF_U32 }, { "ClrInstanceID", TF_U16 } };
static const struct tf_field method_load_verbose[] = {
  { "MethodID", TF_U64 }, { "ModuleID", TF_U64 }, { "MethodStartAddress", TF_U64 },
  { "MethodSize", TF_U32 }, { "MethodToken", TF_U32 }, { "MethodFlags", TF_U32 },
  { "MethodNamespace", TF_UTF16Z }, { "MethodName", TF_UTF16Z },
  { "MethodSignature", TF_UTF16Z }, { "ClrInstanceID", TF_U16 }, { "ReJITID", TF_U64 }
};
static const struct tf_field method_jitting[] = {
  { "MethodID", TF_U64 }, { "ModuleID", TF_U64 }, { "MethodToken", TF_U32 },
  { "MethodILSize", TF_U32 }, { "MethodNamespace", TF_UTF16Z }, { "MethodName", TF_UTF16Z },
  { "MethodSignature", TF_UTF16Z }, { "ClrInstanceID", TF_U16 }
};
static const struct tf_field module_load[] = {
  { "ModuleID", TF_U64 }, { "AssemblyID", TF_U64 }, { "ModuleFlags", TF_U32 },
  { "Reserved1", TF_U32 }, { "ModuleILPath", TF_UTF16Z }, { "ModuleNativePath", TF_UTF16Z },
  { "ClrInstanceID", TF_U16 }
};
static const struct tf_field assembly_load[] = {
  { "AssemblyID", TF_U64 }, { "AppDomainID", TF_U64 }, { "BindingID", TF_U64 },
  { "AssemblyFlags", TF_U32 }, { "FullyQualifiedAssemblyName", TF_UTF16Z },
  { "ClrInstanceID", TF_U16 }
};
static const struct tf_field runtime_info[] = {
  { "ClrInstanceID", TF_U16 }, { "Sku", TF_U16 }, { "BclMajorVersion", TF_U16 },
  { "BclMinorVersion", TF_U16 }, { "BclBuildNumber", TF_U16 }, { "BclQfeNumber", TF_U16 },
  { "VMMajorVersion", TF_U16 }, { "VMMinorVersion", TF_U16 }, { "VMBuildNumber", TF_U16 },
  { "VMQfeNumber", TF_U16 }, { "StartupFlags", TF_U32 }, { "StartupMode", TF_U8 },
  { "CommandLine", TF_UTF16Z }, { "ComObjectGuid", TF_GUID }, { "RuntimeDllPath", TF_UTF16Z }
};

/* --- kernel ------------------------------------------------------------------ */
static const struct tf_field process_v0[] = { { "ProcessID", TF_PTR }, { "ParentID", TF_PTR },
                                              { "UserSID", TF_SID },
                                              { "ImageFileName", TF_ANSIZ } };
static const struct tf_field process_v1[] = {
  { "UniqueProcessKey", TF_PTR }, { "ProcessID", TF_U32 }, { "ParentID", TF_U32 },
  { "SessionID", TF_U32 }, { "ExitStatus", TF_I32 }, { "UserSID", TF_SID },
  { "ImageFileName", TF_ANSIZ }
};
static const struct tf_field process_v2[] = {
  { "UniqueProcessKey", TF_PTR }, { "ProcessID", TF_U32 }, { "ParentID", TF_U32 },
  { "SessionID", TF_U32 }, { "ExitStatus", TF_I32 }, { "UserSID", TF_SID },
  { "ImageFileName", TF_ANSIZ }, { "CommandLine", TF_UTF16Z }
};
static const struct tf_field process_v3[] = {
  { "UniqueProcessKey", TF_PTR }, { "ProcessID", TF_U32 }, { "ParentID", TF_U32 },
  { "SessionID", TF_U32 }, { "ExitStatus", TF_I32 }, { "DirectoryTableBase", TF_PTR },
  { "UserSID", TF_SID }, { "ImageFileName", TF_ANSIZ }, { "CommandLine", TF_UTF16Z }
};
static const struct tf_field process_v4[] = {
  { "UniqueProcessKey", TF_PTR }, { "ProcessID", TF_U32 }, { "ParentID", TF_U32 },
  { "SessionID", TF_U32 }, { "ExitStatus", TF_I32 }, { "DirectoryTableBase", TF_PTR },
  { "Flags", TF_U32 }, { "UserSID", TF_SID }, { "ImageFileName", TF_ANSIZ },
  { "CommandLine", TF_UTF16Z }, { "PackageFullName", TF_UTF16Z },
  { "ApplicationID", TF_UTF16Z }
};
static const struct tf_field thread_v2[] = {
  { "ProcessID", TF_U32 }, { "ThreadID", TF_U32 }, { "StackBase", TF_PTR },
  { "StackLimit", TF_PTR }, { "UserStackBase", TF_PTR }, { "UserStackLimit", TF_PTR },
  { "StartAddr", TF_PTR }, { "Win32StartAddr", TF_PTR }, { "TebBase", TF_PTR },
  { "SubProcessTag", TF_U32 }
};
static const struct tf_field thread_v3[] = {
  { "ProcessID", TF_U32 }, { "ThreadID", TF_U32 }, { "StackBase", TF_PTR },
  { "StackLimit", TF_PTR }, { "UserStackBase", TF_PTR }, { "UserStackLimit", TF_PTR },
  { "Affinity", TF_PTR }, { "Win32StartAddr", TF_PTR }, { "TebBase", TF_PTR },
  { "SubProcessTag", TF_U32 }, { "BasePriority", TF_U8 }, { "PagePriority", TF_U8 },
  { "IoPriority", TF_U8 }, { "ThreadFlags", TF_U8 }
};
static const struct tf_field image_v2[] = {
  { "ImageBase", TF_PTR }, { "ImageSize", TF_PTR }, { "ProcessID", TF_U32 },
  { "ImageChecksum", TF_U32 }, { "TimeDateStamp", TF_U32 }, { "Reserved0", TF_U32 },
  { "DefaultBase", TF_PTR }, { "Reserved1", TF_U32 }, { "Reserved2", TF_U32 },
  { "Reserved3", TF_U32 }, { "Reserved4", TF_U32 }, { "FileName", TF_UTF16Z }
};
static const struct tf_field image_v3[] = {
  { "ImageBase", TF_PTR }, { "ImageSize", TF_PTR }, { "ProcessID", TF_U32 },
  { "ImageChecksum", TF_U32 }, { "TimeDateStamp", TF_U32 }, { "SignatureLevel", TF_U8 },
  { "SignatureType", TF_U8 }, { "Reserved0", TF_U16 }, { "DefaultBase", TF_PTR },
  { "Reserved1", TF_U32 }, { "Reserved2", TF_U32 }, { "Reserved3", TF_U32 },
  { "Reserved4", TF_U32 }, { "FileName", TF_UTF16Z }
};

/* --- System.Net.Http ------------------------------------------------------- */
static const struct tf_field http_request_start[] = {
  { "scheme", TF_UTF16Z }, { "host", TF_UTF16Z }, { "port", TF_I32 },
  { "pathAndQuery", TF_UTF16Z }, { "versionMajor", TF_U8 }, { "versionMinor", TF_U8 },
  { "versionPolicy", TF_I32 }
};
static const struct tf_field http_status[] = { { "statusCode", TF_I32 } };
static const struct tf_field http_failed_v1[] = { { "exceptionMessage", TF_UTF16Z } };
static const struct tf_field http_conn_v0[] = { { "versionMajor", TF_U8 },
                                                { "versionMinor", TF_U8 } };
static const struct tf_field http_conn_est_v1[] = {
  { "versionMajor", TF_U8 }, { "versionMinor", TF_U8 }, { "connectionId", TF_I64 },
  { "scheme", TF_UTF16Z }, { "host", TF_UTF16Z }, { "port", TF_I32 },
  { "remoteAddress", TF_UTF16Z }
};
static const struct tf_field http_conn_closed_v1[] = { { "versionMajor", TF_U8 },
                                                       { "versionMinor", TF_U8 },
                                                       { "connectionId", TF_I64 } };
static const struct tf_field http_left_queue[] = { { "timeOnQueueMilliseconds", TF_F64 },
                                                   { "versionMajor", TF_U8 },
                                                   { "versionMinor", TF_U8 } };
static const struct tf_field http_conn_id[] = { { "connectionId", TF_I64 } };
static const struct tf_field http_content_len[] = { { "contentLength", TF_I64 } };
static const struct tf_field http_exception[] = { { "exception", TF_UTF16Z } };
static const struct tf_field http_redirect[] = { { "redirectUri", TF_UTF16Z } };

/* --- IIS: PerfView's /StopOnRequestOverMsec pairs EventID(1) and (2) by
 * their first field, the request's ContextId. */
static const struct tf_field iis_context[] = { { "ContextId", TF_GUID } };

static const struct bi_event table[] = {
  { BI_CLR, 1, 0, 0, "GC", "Start", NULL, L(gc_start_v0) },
  { BI_CLR, 1, 0, 1, "GC", "Start", NULL, L(gc_start_v1) },
  { BI_CLR, 1, 0, 2, "GC", "Start", NULL, L(gc_start_v2) },
  { BI_CLR, 2, 0, 0, "GC", "Stop", NULL, L(gc_end_v0) },
  { BI_CLR, 2, 0, 1, "GC", "Stop", NULL, L(gc_end_v1) },
  { BI_CLR, 3, 0, 0, "GC", "RestartEEStop", NULL, NONE },
  { BI_CLR, 3, 0, 1, "GC", "RestartEEStop", NULL, L(clr_instance) },
  { BI_CLR, 4, 0, 1, "GC", "HeapStats", NULL, L(heap_stats_v1) },
  { BI_CLR, 5, 0, 1, "GC", "CreateSegment", NULL, L(create_segment_v1) },
  { BI_CLR, 6, 0, 1, "GC", "FreeSegment", NULL, L(free_segment_v1) },
  { BI_CLR, 7, 0, 0, "GC", "RestartEEStart", NULL, NONE },
  { BI_CLR, 7, 0, 1, "GC", "RestartEEStart", NULL, L(clr_instance) },
  { BI_CLR, 8, 0, 0, "GC", "SuspendEEStop", NULL, NONE },
  { BI_CLR, 8, 0, 1, "GC", "SuspendEEStop", NULL, L(clr_instance) },
  { BI_CLR, 9, 0, 0, "GC", "SuspendEEStart", NULL, L(suspend_v0) },
  { BI_CLR, 9, 0, 1, "GC", "SuspendEEStart", NULL, L(suspend_v1) },
  { BI_CLR, 10, 0, 0, "GC", "AllocationTick", NULL, L(alloc_tick_v3) },
  { BI_CLR, 11, 0, 0, "GC", "CreateConcurrentThread", NULL, L(clr_instance) },
  { BI_CLR, 12, 0, 0, "GC", "TerminateConcurrentThread", NULL, L(clr_instance) },
  { BI_CLR, 13, 0, 1, "GC", "FinalizersStop", NULL, L(finalizers_end_v1) },
  { BI_CLR, 14, 0, 0, "GC", "FinalizersStart", NULL, L(clr_instance) },
  { BI_CLR, 35, 0, 0, "GC", "Triggered", NULL, L(gc_triggered) },
  { BI_CLR, 50, 0, 0, "ThreadPoolWorkerThread", "Start", NULL, L(tp_worker) },
  { BI_CLR, 51, 0, 0, "ThreadPoolWorkerThread", "Stop", NULL, L(tp_worker) },
  { BI_CLR, 54, 0, 0, "ThreadPoolWorkerThreadAdjustment", "Sample", NULL, L(tp_sample) },
  { BI_CLR, 55, 0, 0, "ThreadPoolWorkerThreadAdjustment", "Adjustment", NULL, L(tp_adjust) },
  { BI_CLR, 80, 0, 0, "Exception", "Start", NULL, NONE },
  { BI_CLR, 80, 0, 1, "Exception", "Start", NULL, L(exception_v1) },
  { BI_CLR, 81, 0, 0, "Contention", "Start", NULL, NONE },
  { BI_CLR, 81, 0, 1, "Contention", "Start", NULL, L(contention_v1) },
  { BI_CLR, 81, 0, 2, "Contention", "Start", NULL, L(contention_start_v2) },
  { BI_CLR, 91, 0, 0, "Contention", "Stop", NULL, L(contention_v1) },
  { BI_CLR, 91, 0, 1, "Contention", "Stop", NULL, L(contention_stop_v1) },
  { BI_CLR, 143, 0, 0, "Method", "LoadVerbose", NULL, L(method_load_verbose) },
  { BI_CLR, 145, 0, 0, "Method", "JittingStarted", NULL, L(method_jitting) },
  { BI_CLR, 152, 0, 0, "Loader", "ModuleLoad", NULL, L(module_load) },
  { BI_CLR, 154, 0, 0, "Loader", "AssemblyLoad", NULL, L(assembly_load) },
  { BI_CLR, 187, 0, 0, "RuntimeInformation", "Start", NULL, L(runtime_info) },
  { BI_CLR, 250, 0, 0, "ExceptionCatch", "Start", NULL, L(exception_handling) },
  { BI_CLR, 251, 0, 0, "ExceptionCatch", "Stop", NULL, NONE },
  { BI_CLR, 252, 0, 0, "ExceptionFinally", "Start", NULL, L(exception_handling) },
  { BI_CLR, 253, 0, 0, "ExceptionFinally", "Stop", NULL, NONE },
  { BI_CLR, 254, 0, 0, "ExceptionFilter", "Start", NULL, L(exception_handling) },
  { BI_CLR, 255, 0, 0, "ExceptionFilter", "Stop", NULL, NONE },
  { BI_CLR, 256, 0, 0, "Exception", "Stop", NULL, NONE },

  { BI_KERNEL, 1, 3, 0, "Process", "Start", NULL, L(process_v0) },
  { BI_KERNEL, 1, 3, 1, "Process", "Start", NULL, L(process_v1) },
  { BI_KERNEL, 1, 3, 2, "Process", "Start", NULL, L(process_v2) },
  { BI_KERNEL, 1, 3, 3, "Process", "Start", NULL, L(process_v3) },
  { BI_KERNEL, 1, 3, 4, "Process", "Start", NULL, L(process_v4) },
  { BI_KERNEL, 2, 3, 0, "Process", "Stop", NULL, L(process_v0) },
  { BI_KERNEL, 2, 3, 1, "Process", "Stop", NULL, L(process_v1) },
  { BI_KERNEL, 2, 3, 2, "Process", "Stop", NULL, L(process_v2) },
  { BI_KERNEL, 2, 3, 3, "Process", "Stop", NULL, L(process_v3) },
  { BI_KERNEL, 2, 3, 4, "Process", "Stop", NULL, L(process_v4) },
  { BI_KERNEL, 3, 3, 0, "Process", "DCStart", NULL, L(process_v0) },
  { BI_KERNEL, 3, 3, 1, "Process", "DCStart", NULL, L(process_v1) },
  { BI_KERNEL, 3, 3, 2, "Process", "DCStart", NULL, L(process_v2) },
  { BI_KERNEL, 3, 3, 3, "Process", "DCStart", NULL, L(process_v3) },
  { BI_KERNEL, 3, 3, 4, "Process", "DCStart", NULL, L(process_v4) },
  { BI_KERNEL, 4, 3, 0, "Process", "DCStop", NULL, L(process_v0) },
  { BI_KERNEL, 4, 3, 1, "Process", "DCStop", NULL, L(process_v1) },
  { BI_KERNEL, 4, 3, 2, "Process", "DCStop", NULL, L(process_v2) },
  { BI_KERNEL, 4, 3, 3, "Process", "DCStop", NULL, L(process_v3) },
  { BI_KERNEL, 4, 3, 4, "Process", "DCStop", NULL, L(process_v4) },
  { BI_KERNEL, 1, 5, 2, "Thread", "Start", NULL, L(thread_v2) },
  { BI_KERNEL, 1, 5, 3, "Thread", "Start", NULL, L(thread_v3) },
  { BI_KERNEL, 2, 5, 2, "Thread", "Stop", NULL, L(thread_v2) },
  { BI_KERNEL, 2, 5, 3, "Thread", "Stop", NULL, L(thread_v3) },
  { BI_KERNEL, 3, 5, 2, "Thread", "DCStart", NULL, L(thread_v2) },
  { BI_KERNEL, 3, 5, 3, "Thread", "DCStart", NULL, L(thread_v3) },
  { BI_KERNEL, 4, 5, 2, "Thread", "DCStop", NULL, L(thread_v2) },
  { BI_KERNEL, 4, 5, 3, "Thread", "DCStop", NULL, L(thread_v3) },
  { BI_KERNEL, 10, 20, 2, "Image", "Load", NULL, L(image_v2) },
  { BI_KERNEL, 10, 20, 3, "Image", "Load", NULL, L(image_v3) },
  { BI_KERNEL, 2, 20, 2, "Image", "Unload", NULL, L(image_v2) },
  { BI_KERNEL, 2, 20, 3, "Image", "Unload", NULL, L(image_v3) },
  { BI_KERNEL, 3, 20, 2, "Image", "DCStart", NULL, L(image_v2) },
  { BI_KERNEL, 3, 20, 3, "Image", "DCStart", NULL, L(image_v3) },
  { BI_KERNEL, 4, 20, 2, "Image", "DCStop", NULL, L(image_v2) },
  { BI_KERNEL, 4, 20, 3, "Image", "DCStop", NULL, L(image_v3) },

  { BI_HTTP, 1, 0, 0, "Request", "Start", "RequestStart", L(http_request_start) },
  { BI_HTTP, 2, 0, 0, "Request", "Stop", "RequestStop", NONE },
  { BI_HTTP, 2, 0, 1, "Request", "Stop", "RequestStop", L(http_status) },
  { BI_HTTP, 3, 0, 0, "RequestFailed", NULL, "RequestFailed", NONE },
  { BI_HTTP, 3, 0, 1, "RequestFailed", NULL, "RequestFailed", L(http_failed_v1) },
  { BI_HTTP, 4, 0, 0, "ConnectionEstablished", NULL, "ConnectionEstablished", L(http_conn_v0) },
  { BI_HTTP, 4, 0, 1, "ConnectionEstablished", NULL, "ConnectionEstablished",
    L(http_conn_est_v1) },
  { BI_HTTP, 5, 0, 0, "ConnectionClosed", NULL, "ConnectionClosed", L(http_conn_v0) },
  { BI_HTTP, 5, 0, 1, "ConnectionClosed", NULL, "ConnectionClosed", L(http_conn_closed_v1) },
  { BI_HTTP, 6, 0, 0, "RequestLeftQueue", NULL, "RequestLeftQueue", L(http_left_queue) },
  { BI_HTTP, 7, 0, 0, "RequestHeaders", "Start", "RequestHeadersStart", NONE },
  { BI_HTTP, 7, 0, 1, "RequestHeaders", "Start", "RequestHeadersStart", L(http_conn_id) },
  { BI_HTTP, 8, 0, 0, "RequestHeaders", "Stop", "RequestHeadersStop", NONE },
  { BI_HTTP, 9, 0, 0, "RequestContent", "Start", "RequestContentStart", NONE },
  { BI_HTTP, 10, 0, 0, "RequestContent", "Stop", "RequestContentStop", L(http_content_len) },
  { BI_HTTP, 11, 0, 0, "ResponseHeaders", "Start", "ResponseHeadersStart", NONE },
  { BI_HTTP, 12, 0, 0, "ResponseHeaders", "Stop", "ResponseHeadersStop", NONE },
  { BI_HTTP, 12, 0, 1, "ResponseHeaders", "Stop", "ResponseHeadersStop", L(http_status) },
  { BI_HTTP, 13, 0, 0, "ResponseContent", "Start", "ResponseContentStart", NONE },
  { BI_HTTP, 14, 0, 0, "ResponseContent", "Stop", "ResponseContentStop", NONE },
  { BI_HTTP, 15, 0, 0, "RequestFailedDetailed", NULL, "RequestFailedDetailed",
    L(http_exception) },
  { BI_HTTP, 16, 0, 0, "Redirect", NULL, "Redirect", L(http_redirect) },

  { BI_IIS, 1, 0, 0, "EventID(1)", NULL, NULL, L(iis_context) },
  { BI_IIS, 2, 0, 0, "EventID(2)", NULL, NULL, L(iis_context) },
};

static const size_t table_count = sizeof(table) / sizeof(table[0]);

const char *bi_provider_name(enum bi_provider p)
{
  switch (p) {
  case BI_CLR: return "Microsoft-Windows-DotNETRuntime";
  case BI_KERNEL: return "Windows Kernel";
  case BI_HTTP: return "System.Net.Http";
  case BI_IIS: return "Microsoft-Windows-IIS";
  default: return "?";
  }
}

unsigned bi_kernel_group(const struct etw_event *ev)
{
  size_t i;
  if (ev->is_kernel)
    return ev->group;
  if (!(ev->has & ETW_HAS_PROVIDER))
    return 0;
  for (i = 0; i < sizeof(kernel_tasks) / sizeof(kernel_tasks[0]); i++)
    if (guid_equal(&ev->provider, &kernel_tasks[i].guid))
      return kernel_tasks[i].group;
  return 0;
}

enum bi_provider bi_provider_of_guid(const struct etw_guid *g)
{
  if (guid_equal(g, &bi_guid_clr))
    return BI_CLR;
  if (guid_equal(g, &bi_guid_kernel))
    return BI_KERNEL;
  if (guid_equal(g, &bi_guid_http))
    return BI_HTTP;
  if (guid_equal(g, &bi_guid_iis))
    return BI_IIS;
  return BI_NONE;
}

enum bi_provider bi_provider_of_event(const struct etw_event *ev)
{
  if (bi_kernel_group(ev))
    return BI_KERNEL;
  if (!(ev->has & ETW_HAS_PROVIDER))
    return BI_NONE;
  return bi_provider_of_guid(&ev->provider);
}

int bi_same_event(const struct bi_event *row, const struct etw_event *ev)
{
  if (row->prov == BI_KERNEL)
    return bi_kernel_group(ev) == row->group && ev->opcode == row->id;
  return ev->id == row->id;
}

const struct bi_event *bi_lookup(enum bi_provider p, const struct etw_event *ev)
{
  const struct bi_event *best = NULL;
  size_t i;
  for (i = 0; i < table_count; i++) {
    const struct bi_event *r = &table[i];
    if (r->prov != p || !bi_same_event(r, ev) || r->version > ev->version)
      continue;
    if (!best || r->version > best->version)
      best = r;
  }
  return best;
}

char *bi_event_name(const struct bi_event *e, char *buf, size_t cap)
{
  if (e->opcode)
    snprintf(buf, cap, "%s/%s", e->task, e->opcode);
  else
    snprintf(buf, cap, "%s", e->task);
  return buf;
}

const struct bi_event *bi_find_name(enum bi_provider p, const char *name)
{
  size_t i;
  char full[128];
  for (i = 0; i < table_count; i++) {
    const struct bi_event *r = &table[i];
    if (r->prov != p)
      continue;
    if (str_caseeq(bi_event_name(r, full, sizeof(full)), name) ||
        (r->method && str_caseeq(r->method, name)))
      return r;
  }
  return NULL;
}

const struct bi_event *bi_find_id(enum bi_provider p, uint16_t id)
{
  size_t i;
  if (p == BI_KERNEL)
    return NULL;
  for (i = 0; i < table_count; i++)
    if (table[i].prov == p && table[i].id == id)
      return &table[i];
  return NULL;
}

const struct bi_event *bi_latest(const struct bi_event *row)
{
  const struct bi_event *best = row;
  size_t i;
  for (i = 0; i < table_count; i++) {
    const struct bi_event *r = &table[i];
    if (r->prov == row->prov && r->id == row->id && r->group == row->group &&
        r->version > best->version)
      best = r;
  }
  return best;
}

int bi_has_field(const struct bi_event *row, const char *field)
{
  size_t i;
  for (i = 0; i < table_count; i++) {
    const struct bi_event *r = &table[i];
    if (r->prov == row->prov && r->id == row->id && r->group == row->group &&
        tf_index(&r->layout, field) >= 0)
      return 1;
  }
  return 0;
}

char *bi_some_names(enum bi_provider p, char *buf, size_t cap)
{
  size_t i, n = 0;
  char full[128], last[128] = "";
  buf[0] = '\0';
  for (i = 0; i < table_count && n + 1 < cap; i++) {
    if (table[i].prov != p)
      continue;
    bi_event_name(&table[i], full, sizeof(full));
    if (!strcmp(full, last))
      continue;
    snprintf(last, sizeof(last), "%s", full);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", full);
    if (n >= cap)
      n = cap - 1;
  }
  return buf;
}
