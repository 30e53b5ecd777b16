/* etwcap's TraceLogging providers on Windows — its own (own_provider.h) and
 * the selftest's (src/selftest/selftest_os_win32.c) — registered and written
 * as TraceLoggingProvider.h does: EventRegister with the
 * provider's GUID, then EventSetInformation(EventProviderSetTraits) with the
 * provider traits — without it ETW ignores the descriptors' Type and would
 * record the metadata as payload (EVENT_DATA_DESCRIPTOR: "this field is
 * ignored unless the event provider has been configured to respect the
 * Type field by calling the EventSetInformation API with the
 * EventProviderSetTraits or EventProviderUseDescriptorType operation").
 * Each event goes through EventWriteTransfer: descriptor [0] the provider
 * traits (Type PROVIDER_METADATA), [1] the event metadata (Type
 * EVENT_METADATA), [2] the payload; the EVENT_DESCRIPTOR has id 0, Channel
 * 11 (TraceLogging), the event's level, no keyword.  ETW then carries the metadata in
 * the event's extended items (EVENT_SCHEMA_TL, PROV_TRAITS), which is how
 * PerfView, TraceEvent and etwcap's own reader decode it. */
#include "src/os/own_provider_win32.h"

#include "etw/event/guid_win32.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/optional_call_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <stdio.h>
#include <string.h>

typedef ULONG(WINAPI *set_information_fn)(REGHANDLE, EVENT_INFO_CLASS, PVOID, ULONG);

struct set_information_call {
  set_information_fn fn;
  REGHANDLE handle;
  EVENT_INFO_CLASS info_class;
  PVOID info;
  ULONG length;
};

static ULONG call_set_information(void *ctx)
{
  struct set_information_call *c = ctx;
  return c->fn(c->handle, c->info_class, c->info, c->length);
}

/* advapi32's EventSetInformation when this Windows has it (8 and later: a
 * static import would keep etwcap from loading on 7), called so that a
 * stub raising instead of returning reads as "not supported". */
static ULONG WINAPI system_set_information(REGHANDLE handle, EVENT_INFO_CLASS info_class,
                                           PVOID info, ULONG length)
{
  struct set_information_call c = { NULL, handle, info_class, info, length };
  struct optional_call_fault fault;
  HMODULE m = GetModuleHandleW(L"advapi32.dll");
  ULONG result;
  if (m)
    c.fn = (set_information_fn)(void (*)(void))GetProcAddress(m, "EventSetInformation");
  if (!c.fn || optional_call(call_set_information, &c, &result, &fault) != 0)
    return ERROR_NOT_SUPPORTED;
  return result;
}

static const struct own_provider_api real_api = {
  EventRegister,
  EventEnabled,
  EventWriteTransfer,
  EventUnregister,
  system_set_information,
};

static const struct own_provider_api *api = &real_api;

void own_provider_win32_set_api(const struct own_provider_api *a)
{
  api = a ? a : &real_api;
}

struct own_provider {
  struct tl_provider_win32 tl;
};

static void descriptor(EVENT_DESCRIPTOR *d, unsigned level)
{
  memset(d, 0, sizeof(*d));
  d->Channel = TL_CHANNEL;
  d->Level = (UCHAR)level;
}

int tl_provider_win32_open(struct tl_provider_win32 *p, const struct etw_guid *guid,
                           const char *name, char *why, size_t why_size)
{
  GUID g = guid_to_win32(guid);
  ULONG rc;
  memset(p, 0, sizeof(*p));
  p->api = api;
  p->traits_len = tl_encode_provider_traits(name, p->traits, sizeof(p->traits));
  rc = p->api->event_register(&g, NULL, NULL, &p->handle);
  if (rc != ERROR_SUCCESS) {
    snprintf(why, why_size, "EventRegister of the '%s' provider failed (Win32 error %lu)", name,
             (unsigned long)rc);
    p->handle = 0;
    return win32_error(rc, ETWCAP_E_SYSTEM);
  }
  rc = p->api->event_set_information(p->handle, (EVENT_INFO_CLASS)OWN_EVENT_PROVIDER_SET_TRAITS,
                                     p->traits, (ULONG)p->traits_len);
  if (rc != ERROR_SUCCESS) {
    /* Without the traits the events could not be decoded: none is better. */
    snprintf(why, why_size, "Windows did not take the '%s' provider's traits "
             "(EventSetInformation EventProviderSetTraits: Win32 error %lu), without which its "
             "events cannot be decoded; TraceLogging events need Windows 10 or a Windows 8.1 "
             "with TraceLogging support", name, (unsigned long)rc);
    p->api->event_unregister(p->handle);
    p->handle = 0;
    return rc == ERROR_NOT_SUPPORTED ? ETWCAP_E_UNSUPPORTED : win32_error(rc, ETWCAP_E_SYSTEM);
  }
  return 0;
}

static void describe(EVENT_DATA_DESCRIPTOR *d, const void *data, size_t size, unsigned type)
{
  d->Ptr = (ULONGLONG)(ULONG_PTR)data;
  d->Size = (ULONG)size;
  d->Reserved = type;
}

int tl_provider_win32_write(struct tl_provider_win32 *p, unsigned level, const void *meta,
                            size_t meta_len, const void *data, size_t data_len, char *why,
                            size_t why_size)
{
  EVENT_DESCRIPTOR d;
  EVENT_DATA_DESCRIPTOR items[3];
  ULONG rc;
  if (!p->handle) {
    snprintf(why, why_size, "the provider is not registered");
    return ETWCAP_E_SYSTEM;
  }
  descriptor(&d, level);
  describe(&items[0], p->traits, p->traits_len, TL_DESCRIPTOR_TYPE_PROVIDER_METADATA);
  describe(&items[1], meta, meta_len, TL_DESCRIPTOR_TYPE_EVENT_METADATA);
  describe(&items[2], data, data_len, 0);
  rc = p->api->event_write_transfer(p->handle, &d, NULL, NULL, 3, items);
  if (rc == ERROR_SUCCESS)
    return 0;
  snprintf(why, why_size, "EventWriteTransfer failed (Win32 error %lu)%s", (unsigned long)rc,
           rc == ERROR_MORE_DATA ? ": the event is larger than the session's buffers" : "");
  return win32_error(rc, ETWCAP_E_SYSTEM);
}

void tl_provider_win32_close(struct tl_provider_win32 *p)
{
  if (p->handle)
    p->api->event_unregister(p->handle);
  p->handle = 0;
}

int own_provider_open(struct own_provider **out, char *why, size_t why_size)
{
  struct own_provider *p;
  struct etw_guid eg;
  int err;
  *out = NULL;
  if ((err = own_provider_guid(&eg)) != 0)
    return err;
  if (!(p = etwcap_calloc(1, sizeof(*p))))
    return ETWCAP_E_NOMEM;
  if ((err = tl_provider_win32_open(&p->tl, &eg, OWN_PROVIDER_NAME, why, why_size)) != 0) {
    etwcap_free(p);
    return err;
  }
  *out = p;
  return 0;
}

int own_provider_listened(const struct own_provider *p)
{
  EVENT_DESCRIPTOR d;
  descriptor(&d, OWN_EVENT_LEVEL);
  return p && p->tl.api->event_enabled(p->tl.handle, &d) ? 1 : 0;
}

int own_provider_write(struct own_provider *p, const struct tl_encoded *e, char *why,
                       size_t why_size)
{
  return tl_provider_win32_write(&p->tl, OWN_EVENT_LEVEL, e->meta, e->meta_len, e->data,
                                 e->data_len, why, why_size);
}

void own_provider_close(struct own_provider *p)
{
  if (!p)
    return;
  tl_provider_win32_close(&p->tl);
  etwcap_free(p);
}
