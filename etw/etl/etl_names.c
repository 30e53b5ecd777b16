/* The name tables behind etl_names.h.  Kernel group names follow the
 * EVENT_TRACE_GROUP_* constants (ntwmi.h) in the spelling the golden
 * listings use (DiskIo for IO, FileIo for FILE, ...). */
#include "etw/etl/etl_names.h"

#include <stddef.h>

const char *etl_kernel_group_name(unsigned group)
{
  static const char *const names[] = {
    "Header", "DiskIo", "Memory", "Process", "FileIo", "Thread", "TcpIp", "Job",
    "UdpIp", "Registry", "DbgPrint", "Config", "Spare1", "Wnf", "Pool", "PerfInfo",
    "Heap", "Object", "Power", "Modbound", "Image", "Dpc", "Cc", "Critsec",
    "StackWalk", "Ums", "Alpc", "SplitIo", "ThreadPool", "Hypervisor", "HypervisorX",
  };
  return group < sizeof(names) / sizeof(names[0]) ? names[group] : NULL;
}

struct known_provider {
  const char *guid;
  const char *name;
};

static const struct known_provider known[] = {
  { "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", "Microsoft-Windows-DotNETRuntime" },
  { "a669021c-c450-4609-a035-5af59af4df18", "Microsoft-Windows-DotNETRuntimeRundown" },
  { "763fd754-7086-4dfe-95eb-c01a46faf4ca", "Microsoft-Windows-DotNETRuntimePrivate" },
  { "28ad2447-105b-4fe2-9599-e59b2aa9a634", "KernelTraceControl" },
  { "b3e675d7-2554-4f18-830b-2762732560de", "KernelTraceControl/ImageID" },
  { "9b79ee91-b5fd-41c0-a243-4248e266e9d0", "KernelTraceControl/SystemConfigEx" },
  { "bbccf6c1-6cd1-48c4-80ff-839482e37671", "KernelTraceControl/EventMetadata" },
  { "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", "System.Threading.Tasks.TplEventSource" },
  { "edd08927-9cc4-4e65-b970-c2560fb5c289", "Microsoft-Windows-Kernel-File" },
  { "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", "Microsoft-Windows-Kernel-Process" },
  { "7dd42a49-5329-4832-8dfd-43d979153a88", "Microsoft-Windows-Kernel-Network" },
  { "dd5ef90a-6398-47a4-ad34-4dcecdef795f", "Microsoft-Windows-HttpService" },
  { "a0c1853b-5c40-4b15-8766-3cf1c58f985a", "Microsoft-Windows-PowerShell" },
  { "70eb4f03-c1de-4f73-a051-33d13d5413bd", "Microsoft-Windows-Kernel-Registry" },
  { "331c3b3a-2005-44c2-ac5e-77220c37d6b4", "Microsoft-Windows-Kernel-Power" },
  { "d1d93ef7-e1f2-4f45-9943-03d245fe6c00", "Microsoft-Windows-Kernel-Memory" },
  { "8e805eb3-6a8f-4a1e-90fa-a831d94e54a1", "AmsiTrace" },
  { "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3", "Kernel StackWalk (classic)" },
  { "9e814aad-3204-11d2-9a82-006008a86939", "Kernel SystemTrace (classic)" },
  { "aff081fe-0247-4275-9c4e-021f3dc1da35", "ASP.NET" },
};

const char *etl_provider_name(const struct etw_guid *g)
{
  size_t i;
  for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
    struct etw_guid k;
    if (guid_parse(known[i].guid, &k) == 0 && guid_equal(&k, g))
      return known[i].name;
  }
  return NULL;
}
