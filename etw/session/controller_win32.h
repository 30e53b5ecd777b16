/* The advapi32 entry points controller_win32.c calls, as a table of
 * function pointers.  The product fills it with advapi32's own functions;
 * the Windows unit tests put a recording fake in its place
 * (tests/fakes/fake_advapi32_win32.c), so the code that builds the property
 * blocks and enable parameters is the code under test.  Only *_win32.c
 * files include this header. */
#ifndef ETWCAP_CONTROLLER_WIN32_H
#define ETWCAP_CONTROLLER_WIN32_H

#include "src/base/os/compat_win32.h"

#include "etw/session/controller.h"

struct controller_advapi {
  ULONG(WINAPI *start_trace)(PTRACEHANDLE handle, LPCWSTR name, PEVENT_TRACE_PROPERTIES props);
  ULONG(WINAPI *control_trace)(TRACEHANDLE handle, LPCWSTR name, PEVENT_TRACE_PROPERTIES props,
                               ULONG code);
  ULONG(WINAPI *enable_trace_ex2)(TRACEHANDLE handle, LPCGUID provider, ULONG code, UCHAR level,
                                  ULONGLONG any, ULONGLONG all, ULONG timeout,
                                  PENABLE_TRACE_PARAMETERS params);
  ULONG(WINAPI *trace_set_information)(TRACEHANDLE handle, TRACE_INFO_CLASS info_class,
                                       PVOID info, ULONG length);
  ULONG(WINAPI *query_all_traces)(PEVENT_TRACE_PROPERTIES *props, ULONG count, PULONG found);
  /* TraceQueryInformation, or NULL where advapi32 does not export it
   * (before Windows 8; Wine).  The product resolves it at run time so that
   * etwcap.exe still loads where it is missing. */
  ULONG(WINAPI *trace_query_information)(TRACEHANDLE handle, TRACE_INFO_CLASS info_class,
                                         PVOID info, ULONG length, PULONG returned);
  /* EnumerateTraceGuidsEx, resolved at run time like TraceQueryInformation
   * (Wine has it only as a stub that raises; docs/building.md §2.2). */
  ULONG(WINAPI *enumerate_trace_guids_ex)(TRACE_QUERY_INFO_CLASS info_class, PVOID in,
                                          ULONG in_size, PVOID out, ULONG out_size,
                                          PULONG returned);
  /* Enables a privilege of this process's token (OpenProcessToken,
   * LookupPrivilegeValueW, AdjustTokenPrivileges as one step); returns a
   * Win32 code (ERROR_NOT_ALL_ASSIGNED when the token lacks it). */
  ULONG (*enable_privilege)(LPCWSTR privilege);
};

/* Replaces the table every controller_system() controller uses from now
 * on; NULL puts advapi32's functions back.  For tests: the product never
 * calls it. */
void controller_win32_set_advapi(const struct controller_advapi *api);

/* The property block's layout, shared with the fake that checks it:
 * EVENT_TRACE_PROPERTIES, then room for the session name, then room for
 * the file name (TraceEvent's layout without its extension area). */
#define CONTROLLER_WIN32_NAME_CHARS 1024
#define CONTROLLER_WIN32_PROPS_SIZE \
  (sizeof(EVENT_TRACE_PROPERTIES) + 2 * CONTROLLER_WIN32_NAME_CHARS * sizeof(WCHAR))

/* Most sessions QueryAllTracesW reports in one call (its documented limit). */
#define CONTROLLER_WIN32_MAX_SESSIONS 64

#endif
