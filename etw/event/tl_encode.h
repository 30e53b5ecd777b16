/* TraceLogging (self-describing) events as bytes, the inverse of
 * tracelogging.h: the provider traits and an event's metadata in the
 * layout of Microsoft's TraceLoggingProvider.h, and its payload, for a
 * writer to hand to EventWriteTransfer as EVENT_DATA_DESCRIPTORs of type
 * PROVIDER_METADATA (2), EVENT_METADATA (1) and plain data.
 *
 * Layout (learn.microsoft.com "Provider Traits"; TraceLoggingProvider.h):
 *   provider traits: UINT16 total size (itself included), the provider
 *     name in UTF-8 with its NUL; no trait chunks;
 *   event metadata: UINT16 total size (itself included), UINT8 tags (0:
 *     none), the event name in UTF-8 with its NUL, then per field its name
 *     with NUL, its InType, and — when the InType's high bit (0x80) says
 *     so — an OutType byte;
 *   payload: the field values in order, little-endian; a UTF-8 string is
 *     TlgInANSISTRING with OutType TlgOutUTF8 (TraceLoggingUtf8String),
 *     its bytes and a NUL.
 * Pure, portable, fixed buffers (an event is bounded by ETW's 64 KB
 * anyway); never allocates. */
#ifndef ETWCAP_TL_ENCODE_H
#define ETWCAP_TL_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* TraceLoggingProvider.h's enum _TlgIn_t and _TlgOut_t values used here. */
#define TL_IN_ANSISTRING 2u
#define TL_IN_UINT32 8u
#define TL_IN_DOUBLE 12u
#define TL_IN_HAS_OUT 0x80u
#define TL_OUT_UTF8 35u
/* The descriptor's Channel TraceLoggingWrite sets:
 * WINEVENT_CHANNEL_TRACELOGGING (11), so tools know the event describes
 * itself. */
#define TL_CHANNEL 11u

/* EVENT_DATA_DESCRIPTOR's Type, the low byte of its Reserved field
 * (evntprov.h in SDK 10.0.15063 and later; mingw-w64 has only Reserved). */
#define TL_DESCRIPTOR_TYPE_EVENT_METADATA 1u
#define TL_DESCRIPTOR_TYPE_PROVIDER_METADATA 2u

#define TL_ENCODE_META_MAX 512
#define TL_ENCODE_DATA_MAX 4096

struct tl_encoded {
  uint8_t meta[TL_ENCODE_META_MAX];
  size_t meta_len;
  uint8_t data[TL_ENCODE_DATA_MAX];
  size_t data_len;
  int overflow; /* a field did not fit: tl_encode_end fails */
};

/* Starts the event `name` (UTF-8). */
void tl_encode_begin(struct tl_encoded *e, const char *name);
/* Appends a field and its value. */
void tl_encode_utf8(struct tl_encoded *e, const char *field, const char *value);
void tl_encode_uint32(struct tl_encoded *e, const char *field, uint32_t value);
void tl_encode_double(struct tl_encoded *e, const char *field, double value);
/* Writes the metadata's size.  0, or ETWCAP_E_RANGE when a field did not
 * fit (the event is then not to be written). */
int tl_encode_end(struct tl_encoded *e);

/* The provider traits for `provider` into buf; their size, or 0 when cap
 * is short. */
size_t tl_encode_provider_traits(const char *provider, uint8_t *buf, size_t cap);

#endif
