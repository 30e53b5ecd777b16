/* The event-provider entry points of advapi32 etwcap's own provider calls
 * (own_provider_win32.c), as a table: the product uses advapi32's own; the
 * Windows unit test puts the recording fake of tests/fakes/
 * fake_eventwrite_win32.c in their place.  Only *_win32.c files include
 * this header. */
#ifndef ETWCAP_OWN_PROVIDER_WIN32_H
#define ETWCAP_OWN_PROVIDER_WIN32_H

#include "src/base/os/compat_win32.h"

#include "src/os/own_provider.h"

struct own_provider_api {
  ULONG(WINAPI *event_register)(LPCGUID provider, PENABLECALLBACK callback, PVOID context,
                                PREGHANDLE handle);
  BOOLEAN(WINAPI *event_enabled)(REGHANDLE handle, PCEVENT_DESCRIPTOR descriptor);
  ULONG(WINAPI *event_write_transfer)(REGHANDLE handle, PCEVENT_DESCRIPTOR descriptor,
                                      LPCGUID activity, LPCGUID related, ULONG count,
                                      PEVENT_DATA_DESCRIPTOR data);
  ULONG(WINAPI *event_unregister)(REGHANDLE handle);
  /* EventSetInformation (Windows 8 and later, so resolved at run time in
   * the product's table). */
  ULONG(WINAPI *event_set_information)(REGHANDLE handle, EVENT_INFO_CLASS info_class,
                                       PVOID info, ULONG length);
};

/* EVENT_INFO_CLASS's EventProviderSetTraits (evntprov.h of the Windows SDK;
 * mingw-w64's enum stops before it): gives ETW the provider traits and
 * makes it honour EVENT_DATA_DESCRIPTOR's Type. */
#define OWN_EVENT_PROVIDER_SET_TRAITS 2

/* Replaces the table for providers opened from now on; NULL puts
 * advapi32's back.  For tests: the product never calls it. */
void own_provider_win32_set_api(const struct own_provider_api *api);

#endif
