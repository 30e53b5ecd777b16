/* The event-provider entry points of advapi32 the selftest's TraceLogging
 * writer calls (selftest_os_win32.c), as a table: the product uses
 * advapi32's own; the Windows unit test puts a recording fake in their
 * place to check the descriptors it is given.  Only *_win32.c files include
 * this header. */
#ifndef ETWCAP_SELFTEST_OS_WIN32_H
#define ETWCAP_SELFTEST_OS_WIN32_H

#include "src/base/os/compat_win32.h"

#include "src/selftest/selftest_os.h"

struct selftest_eventapi {
  ULONG(WINAPI *event_register)(LPCGUID provider, PENABLECALLBACK callback, PVOID context,
                                PREGHANDLE handle);
  ULONG(WINAPI *event_write_transfer)(REGHANDLE handle, PCEVENT_DESCRIPTOR descriptor,
                                      LPCGUID activity, LPCGUID related, ULONG count,
                                      PEVENT_DATA_DESCRIPTOR data);
  ULONG(WINAPI *event_unregister)(REGHANDLE handle);
};

/* Replaces the table for every selftest_os_system() table from now on;
 * NULL puts advapi32's back.  For tests: the product never calls it. */
void selftest_os_win32_set_eventapi(const struct selftest_eventapi *api);

/* EVENT_DATA_DESCRIPTOR's Type, the low byte of its Reserved field
 * (evntprov.h in SDK 10.0.15063 and later; mingw-w64 10 has only
 * Reserved). */
#define SELFTEST_DESCRIPTOR_TYPE_EVENT_METADATA 1u
#define SELFTEST_DESCRIPTOR_TYPE_PROVIDER_METADATA 2u

#endif
