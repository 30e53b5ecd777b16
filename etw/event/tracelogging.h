/* TraceLogging self-describing events (EventSource.Write, TraceLoggingWrite):
 * the event's schema travels with it in the EVENT_SCHEMA_TL extended item
 * (TraceLoggingProvider.h: UINT16 size, tag bytes, NUL-terminated event
 * name, then per field a NUL-terminated name, InType, optional OutType and
 * tags, an optional constant count or custom type info).  This walks the
 * schema and the payload together and reports each scalar field with its
 * dotted path ("Payload.Mean").  Arrays are skipped, structs descended.
 * Pure; never allocates; bounded against hostile bytes. */
#ifndef ETWCAP_TRACELOGGING_H
#define ETWCAP_TRACELOGGING_H

#include "etw/event/etw_event.h"
#include "etw/event/payload_value.h"

#include <stddef.h>
#include <stdint.h>

#define TL_NAME_MAX 256

struct tl_meta {
  const uint8_t *fields; /* the field metadata after the event name */
  size_t fields_len;
  char name[TL_NAME_MAX]; /* event name, UTF-8, cut to fit (to show) */
  const char *whole_name; /* the same whole, NUL-terminated in the schema (to compare) */
};

/* 1 when the event carries a TraceLogging schema (m filled), 0 when it has
 * none, -1 when the schema is malformed. */
int tl_parse(const struct etw_event *ev, struct tl_meta *m);
/* The same from the extended item's bytes (tests). */
int tl_parse_bytes(const uint8_t *schema, size_t len, struct tl_meta *m);

/* Receives a field; return non-zero to stop the walk (that value is
 * returned by tl_walk).  The path is cut to 255 bytes, to show: tl_find
 * compares names whole. */
typedef int (*tl_field_fn)(void *ctx, const char *path, const struct tv_value *v);

/* Walks every scalar field.  Returns 0 at the end, the callback's non-zero
 * value, -1 when schema and payload disagree, or ETWCAP_E_CORRUPT when the
 * walk would take more steps than the event's bytes allow (a few per byte
 * of schema and payload: a crafted schema of large arrays whose elements
 * read no payload would otherwise cost billions of steps). */
int tl_walk(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
            tl_field_fn fn, void *ctx);

/* Finds a field by dotted path or by its last name component (the first
 * match in payload order; ASCII case-insensitive): 1 found, 0 not found,
 * -1 malformed or over tl_walk's step budget. */
int tl_find(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
            const char *name, struct tv_value *v);
/* The first scalar field (for PerfView's default start/stop correlation). */
int tl_first(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
             struct tv_value *v);

/* Where a string field lies in the payload: len bytes at pos, UTF-16LE
 * units or 8-bit characters, without a count or a terminator.  A string
 * of TraceLogging's runs to 64 KiB; tv_value keeps TV_TEXT_MAX bytes. */
struct tl_string {
  size_t pos, len;
  int utf16;
};

/* tl_find (name NULL: tl_first) that also fills s when the field is a
 * string (v->type TV_TEXT), so the caller can decode it whole. */
int tl_find_string(const struct tl_meta *m, const uint8_t *payload, size_t len,
                   unsigned ptr_size, const char *name, struct tv_value *v, struct tl_string *s);
/* The string s of payload as UTF-8 into out (cut to cap - 1 bytes; cap
 * len / 2 * 3 + 1 for UTF-16, len + 1 otherwise holds it whole); its
 * length. */
size_t tl_string_text(const struct tl_string *s, const uint8_t *payload, char *out, size_t cap);

#endif
