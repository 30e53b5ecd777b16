/* The model of advapi32's event-provider calls (see
 * fake_eventwrite_win32.h).  Each rule names its source; the table in
 * tests/fakes/README.md lists them. */
#include "tests/fakes/fake_eventwrite_win32.h"

#include <stdio.h>
#include <string.h>

#define FAKE_HANDLE ((REGHANDLE)0x5eed0001ull)

static struct fake_ew ew;

struct fake_ew *fake_ew_reset(void)
{
  memset(&ew, 0, sizeof(ew));
  return &ew;
}

static void violation(const char *what)
{
  ew.violations++;
  snprintf(ew.last_violation, sizeof(ew.last_violation), "%s", what);
}

static int open_handle(REGHANDLE h)
{
  return h == FAKE_HANDLE && ew.registered > ew.unregistered;
}

/* EventRegister: ProviderId and RegHandle are required ([in], [out]);
 * ERROR_SUCCESS or a system error code (EventRegister, return value). */
static ULONG WINAPI fake_register(LPCGUID provider, PENABLECALLBACK cb, PVOID ctx, PREGHANDLE h)
{
  (void)cb;
  (void)ctx;
  if (!provider || !h) {
    violation("EventRegister without a provider GUID or a handle");
    return ERROR_INVALID_PARAMETER;
  }
  if (ew.register_error) {
    *h = 0;
    return ew.register_error;
  }
  ew.provider = *provider;
  ew.registered++;
  *h = FAKE_HANDLE;
  return ERROR_SUCCESS;
}

/* EventEnabled: FALSE for a NULL handle (EventEnabled: "If RegHandle is
 * NULL, EventEnabled will return FALSE"); otherwise TRUE when a session
 * enabled the provider at a level that takes the event's (EnableTraceEx2
 * Level: events whose level is at or below it; an event of level 0 is
 * always taken); an event without keyword passes any keyword filter. */
static BOOLEAN WINAPI fake_enabled(REGHANDLE h, PCEVENT_DESCRIPTOR d)
{
  if (!h)
    return FALSE;
  if (!open_handle(h) || !d) {
    violation("EventEnabled on a handle EventRegister did not return, or without a descriptor");
    return FALSE;
  }
  return ew.session_level > 0 && (d->Level == 0 || d->Level <= ew.session_level);
}

static uint16_t le16(const void *p)
{
  const uint8_t *b = p;
  return (uint16_t)(b[0] | (b[1] << 8));
}

/* EventWriteTransfer: a registered handle (ERROR_INVALID_HANDLE otherwise);
 * at most MAX_EVENT_DATA_DESCRIPTORS (128) descriptors; the event's data
 * at most 64 KB (ERROR_ARITHMETIC_OVERFLOW).  TraceLogging's descriptors
 * (TraceLoggingProvider.h, EVENT_DATA_DESCRIPTOR_TYPE_*): the provider
 * metadata first, then the event metadata, each one block beginning with
 * its own UINT16 size, which equals the descriptor's Size; the descriptor
 * Channel is 11 (WINEVENT_CHANNEL_TRACELOGGING) so decoders see the event
 * describes itself.  Without a listening session ETW drops the event and
 * returns ERROR_SUCCESS (EventWrite: "includes its own EventEnabled test"). */
static ULONG WINAPI fake_write(REGHANDLE h, PCEVENT_DESCRIPTOR d, LPCGUID activity,
                               LPCGUID related, ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
  struct fake_ew_event *e;
  size_t total = 0;
  ULONG i;
  (void)activity;
  (void)related;
  if (!open_handle(h))
    return ERROR_INVALID_HANDLE;
  if (!d || count > MAX_EVENT_DATA_DESCRIPTORS || (count && !data)) {
    violation("EventWriteTransfer without a descriptor or with too many data descriptors");
    return ERROR_INVALID_PARAMETER;
  }
  for (i = 0; i < count; i++)
    total += data[i].Size;
  if (total > 65536)
    return ERROR_ARITHMETIC_OVERFLOW;
  if (!ew.traits_set)
    violation("typed descriptors before EventSetInformation(EventProviderSetTraits): ETW "
              "ignores their Type and records the metadata as payload");
  if (count < 2 || (data[0].Reserved & 0xFF) != 2 || (data[1].Reserved & 0xFF) != 1) {
    violation("TraceLogging event without provider metadata then event metadata first");
    return ERROR_INVALID_PARAMETER;
  }
  for (i = 0; i < 2; i++)
    if (data[i].Size < 2 || le16((const void *)(ULONG_PTR)data[i].Ptr) != data[i].Size)
      violation("a metadata block whose UINT16 size is not its descriptor's Size");
  for (i = 2; i < count; i++)
    if (data[i].Reserved & 0xFF)
      violation("a payload descriptor with a metadata type");
  if (d->Channel != 11)
    violation("a TraceLogging event whose Channel is not 11");
  ew.writes++;
  if (!fake_enabled(h, d) || ew.event_count >= FAKE_EW_EVENTS_MAX)
    return ERROR_SUCCESS;
  e = &ew.events[ew.event_count++];
  memset(e, 0, sizeof(*e));
  e->desc = *d;
  if (data[0].Size <= sizeof(e->traits)) {
    memcpy(e->traits, (const void *)(ULONG_PTR)data[0].Ptr, data[0].Size);
    e->traits_len = data[0].Size;
  }
  if (data[1].Size <= sizeof(e->meta)) {
    memcpy(e->meta, (const void *)(ULONG_PTR)data[1].Ptr, data[1].Size);
    e->meta_len = data[1].Size;
  }
  for (i = 2; i < count; i++) {
    if (e->data_len + data[i].Size > sizeof(e->data))
      break;
    memcpy(e->data + e->data_len, (const void *)(ULONG_PTR)data[i].Ptr, data[i].Size);
    e->data_len += data[i].Size;
  }
  return ERROR_SUCCESS;
}

/* EventUnregister: a handle EventRegister returned, once. */
static ULONG WINAPI fake_unregister(REGHANDLE h)
{
  if (!open_handle(h)) {
    violation("EventUnregister of a handle that is not registered");
    return ERROR_INVALID_HANDLE;
  }
  ew.unregistered++;
  return ERROR_SUCCESS;
}

/* EventSetInformation(EventProviderSetTraits): a registered handle; the
 * information is the provider traits, a block beginning with its own
 * UINT16 size equal to the length given ("Provider Traits"); from then on
 * ETW honours the descriptors' Type (EVENT_DATA_DESCRIPTOR, Type). */
static ULONG WINAPI fake_set_information(REGHANDLE h, EVENT_INFO_CLASS info_class, PVOID info,
                                         ULONG length)
{
  if (!open_handle(h))
    return ERROR_INVALID_HANDLE;
  if (ew.set_information_error)
    return ew.set_information_error;
  if ((int)info_class != OWN_EVENT_PROVIDER_SET_TRAITS || !info || length < 2 ||
      le16(info) != length) {
    violation("EventSetInformation without the provider traits as EventProviderSetTraits");
    return ERROR_INVALID_PARAMETER;
  }
  ew.traits_set = 1;
  return ERROR_SUCCESS;
}

const struct own_provider_api fake_ew_api = { fake_register, fake_enabled, fake_write,
                                              fake_unregister, fake_set_information };
