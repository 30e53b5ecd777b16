/* The Windows headers etwcap's ETW code needs, plus what mingw-w64 10 lacks
 * (toolchain.md §1.2), each guarded so a newer mingw or the Windows SDK wins.
 * Only *_win32.c files include this.  Values are the SDK's (evntrace.h,
 * evntprov.h) as documented on learn.microsoft.com. */
#ifndef ETWCAP_COMPAT_WIN32_H
#define ETWCAP_COMPAT_WIN32_H

/* winreg.h (pulled in by windows.h) declares a `struct provider_info` that
 * clashes with etw/providers.h's; windows' one is renamed while it is
 * declared.  So this header must come before any other Windows header. */
#define provider_info etwcap_winreg_provider_info
#include <windows.h>

#include <evntprov.h>
#include <evntrace.h>
#undef provider_info

/* ENABLE_TRACE_PARAMETERS.EnableProperty bits mingw stops short of. */
#ifndef EVENT_ENABLE_PROPERTY_SID
#define EVENT_ENABLE_PROPERTY_SID 0x00000001
#endif
#ifndef EVENT_ENABLE_PROPERTY_TS_ID
#define EVENT_ENABLE_PROPERTY_TS_ID 0x00000002
#endif
#ifndef EVENT_ENABLE_PROPERTY_STACK_TRACE
#define EVENT_ENABLE_PROPERTY_STACK_TRACE 0x00000004
#endif
#ifndef EVENT_ENABLE_PROPERTY_PSM_KEY
#define EVENT_ENABLE_PROPERTY_PSM_KEY 0x00000008
#endif
#ifndef EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0
#define EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 0x00000010
#endif
#ifndef EVENT_ENABLE_PROPERTY_PROVIDER_GROUP
#define EVENT_ENABLE_PROPERTY_PROVIDER_GROUP 0x00000020
#endif
#ifndef EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0
#define EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0 0x00000040
#endif
#ifndef EVENT_ENABLE_PROPERTY_PROCESS_START_KEY
#define EVENT_ENABLE_PROPERTY_PROCESS_START_KEY 0x00000080
#endif
#ifndef EVENT_ENABLE_PROPERTY_EVENT_KEY
#define EVENT_ENABLE_PROPERTY_EVENT_KEY 0x00000100
#endif
#ifndef EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE
#define EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE 0x00000200
#endif
#ifndef EVENT_ENABLE_PROPERTY_ENABLE_SILOS
#define EVENT_ENABLE_PROPERTY_ENABLE_SILOS 0x00000400
#endif
#ifndef EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING
#define EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING 0x00000800
#endif

/* EVENT_FILTER_DESCRIPTOR.Type values (mingw has only SCHEMATIZED,
 * SYSTEM_FLAGS and TRACEHANDLE). */
#ifndef EVENT_FILTER_TYPE_NONE
#define EVENT_FILTER_TYPE_NONE 0x00000000
#endif
#ifndef EVENT_FILTER_TYPE_PID
#define EVENT_FILTER_TYPE_PID 0x80000004
#endif
#ifndef EVENT_FILTER_TYPE_EXECUTABLE_NAME
#define EVENT_FILTER_TYPE_EXECUTABLE_NAME 0x80000008
#endif
#ifndef EVENT_FILTER_TYPE_EVENT_ID
#define EVENT_FILTER_TYPE_EVENT_ID 0x80000200
#endif
#ifndef EVENT_FILTER_TYPE_STACKWALK
#define EVENT_FILTER_TYPE_STACKWALK 0x80001000
#endif
#ifndef MAX_EVENT_FILTERS_COUNT
#define MAX_EVENT_FILTERS_COUNT 13
#endif
#ifndef MAX_EVENT_FILTER_PID_COUNT
#define MAX_EVENT_FILTER_PID_COUNT 8
#endif
#ifndef MAX_EVENT_FILTER_DATA_SIZE
#define MAX_EVENT_FILTER_DATA_SIZE 1024
#endif

/* TRACE_INFO_CLASS values past mingw's TraceMaxLoggersQuery (19).  An enum
 * cannot be extended, so these are our own names for the SDK's numbers. */
#define ETWCAP_TRACE_STACK_CACHING_CLASS ((TRACE_INFO_CLASS)24) /* TraceStackCachingInfo */

/* TRACE_STACK_CACHING_INFO (evntrace.h, Windows 10): BOOLEAN, then two
 * ULONGs, 12 bytes with the padding. */
typedef struct etwcap_trace_stack_caching_info {
  BOOLEAN Enabled;
  ULONG CacheSize;
  ULONG BucketCount;
} ETWCAP_TRACE_STACK_CACHING_INFO;

#ifndef EVENT_TRACE_SYSTEM_LOGGER_MODE
#define EVENT_TRACE_SYSTEM_LOGGER_MODE 0x02000000
#endif
#ifndef EVENT_TRACE_INDEPENDENT_SESSION_MODE
#define EVENT_TRACE_INDEPENDENT_SESSION_MODE 0x08000000
#endif
#ifndef ERROR_WMI_INSTANCE_NOT_FOUND
#define ERROR_WMI_INSTANCE_NOT_FOUND 4201L
#endif

#endif
