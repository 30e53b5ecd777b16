/* The TraceLogging (self-describing) events `etwcap selftest` writes under
 * its own provider, as bytes: the provider traits and each event's
 * metadata, in the layout of Microsoft's TraceLoggingProvider.h, and the
 * payload.  The Win32 writer (selftest_os_win32.c) hands them to
 * EventWriteTransfer as EVENT_DATA_DESCRIPTORs of type PROVIDER_METADATA
 * (2), EVENT_METADATA (1) and plain data; ETW then carries the event
 * metadata in each event's EVENT_SCHEMA_TL extended item, which etwcap's
 * own decoder (etw/event/tracelogging.h) reads back.  Portable, so the bytes
 * are tested natively by decoding them.
 *
 * Layout (learn.microsoft.com "Provider Traits" and TraceLoggingProvider.h):
 *   provider traits: UINT16 total size (itself included), the provider
 *     name in UTF-8 with its NUL; no trait chunks;
 *   event metadata: UINT16 total size (itself included), UINT8 tags (0: no
 *     tags, the high bit would chain another byte), the event name in
 *     UTF-8 with its NUL, then per field its name with NUL and its InType
 *     (TlgInUINT32 = 8, no OutType). */
#ifndef ETWCAP_SELFTEST_TL_H
#define ETWCAP_SELFTEST_TL_H

#include "etw/event/guid.h"

#include <stddef.h>
#include <stdint.h>

/* The provider; its GUID is the EventSource hash of the name (as
 * TraceLoggingProvider.h's TRACELOGGING_DEFINE_PROVIDER users and
 * EventSource do), so `/Providers:*etwcap-Selftest` enables it. */
#define SELFTEST_TL_PROVIDER "etwcap-Selftest"
/* Events: SELFTEST_TL_STEPS "SelftestStep" events (Seq 1..N), then one
 * "SelftestStop" (Seq N+1), the event the selftest's trigger watches. */
#define SELFTEST_TL_STEP "SelftestStep"
#define SELFTEST_TL_STOP "SelftestStop"
#define SELFTEST_TL_STEPS 5u
/* The descriptor's Channel: WINEVENT_CHANNEL_TRACELOGGING (11), what
 * TraceLoggingWrite sets, so tools know the event describes itself. */
#define SELFTEST_TL_CHANNEL 11u
/* Their level: Informational (4), recorded at the session's default level. */
#define SELFTEST_TL_LEVEL 4u
/* TlgInUINT32 (TraceLoggingProvider.h enum _TlgIn_t). */
#define SELFTEST_TL_IN_UINT32 8u

#define SELFTEST_TL_META_MAX 96
#define SELFTEST_TL_PAYLOAD_SIZE 8

struct selftest_tl_event {
  uint8_t meta[SELFTEST_TL_META_MAX];
  size_t meta_len;
  uint8_t payload[SELFTEST_TL_PAYLOAD_SIZE]; /* Seq, Pid: UINT32 little-endian */
  size_t payload_len;
};

/* The provider's GUID (EventSource hash of SELFTEST_TL_PROVIDER). */
int selftest_tl_provider_guid(struct etw_guid *out);

/* The provider traits into buf; returns their size, or 0 when cap is short. */
size_t selftest_tl_provider_traits(uint8_t *buf, size_t cap);

/* The event `name` with fields Seq and Pid.  0, or ETWCAP_E_RANGE when the
 * name is too long for SELFTEST_TL_META_MAX. */
int selftest_tl_event_build(struct selftest_tl_event *e, const char *name, uint32_t seq,
                            uint32_t pid);

#endif
