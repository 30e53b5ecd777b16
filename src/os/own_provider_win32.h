/* The event-provider entry points of advapi32 etwcap's TraceLogging
 * providers call (own_provider_win32.c: etwcap's own provider and the
 * selftest's), as a table: the product uses advapi32's own; the Windows
 * unit tests put the recording fake of tests/fakes/fake_eventwrite_win32.c
 * in their place.  Only *_win32.c files include this header. */
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

/* A TraceLogging provider registered and written as TraceLoggingProvider.h
 * does: EventRegister, then EventSetInformation(EventProviderSetTraits)
 * with its traits, each event through EventWriteTransfer with Channel 11
 * and the descriptors traits, event metadata, payload. */
struct tl_provider_win32 {
  const struct own_provider_api *api; /* the table it was registered with */
  REGHANDLE handle;
  uint8_t traits[64];
  size_t traits_len;
};

/* 0, or an error with `why` naming the call that failed and its code
 * (ETWCAP_E_UNSUPPORTED when this Windows cannot take the traits). */
int tl_provider_win32_open(struct tl_provider_win32 *p, const struct etw_guid *guid,
                           const char *name, char *why, size_t why_size);
/* One event at `level` with no keyword.  0 or an error with `why`. */
int tl_provider_win32_write(struct tl_provider_win32 *p, unsigned level, const void *meta,
                            size_t meta_len, const void *data, size_t data_len, char *why,
                            size_t why_size);
/* EventUnregister; safe on a provider that is not open. */
void tl_provider_win32_close(struct tl_provider_win32 *p);

#endif
