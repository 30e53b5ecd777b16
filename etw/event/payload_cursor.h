/* Bounded reads of event payload bytes (the triggers, the report): explicit
 * little-endian loads, NUL-terminated UTF-16 and ANSI strings, pointers of
 * the event's own size, kernel SIDs.  A cursor never reads past its end; a
 * read that would is remembered (`bad`) and yields zero/empty, so a decoder
 * can read a whole layout and check once.  Pure; never allocates. */
#ifndef ETWCAP_PAYLOAD_CURSOR_H
#define ETWCAP_PAYLOAD_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct pl_cursor {
  const uint8_t *p;
  size_t len, pos;
  unsigned ptr_size; /* 4 or 8 */
  int bad;           /* a read ran past the end */
};

void pl_init(struct pl_cursor *c, const uint8_t *p, size_t len, unsigned ptr_size);
uint8_t pl_u8(struct pl_cursor *c);
uint16_t pl_u16(struct pl_cursor *c);
uint32_t pl_u32(struct pl_cursor *c);
uint64_t pl_u64(struct pl_cursor *c);
uint64_t pl_ptr(struct pl_cursor *c);
double pl_f64(struct pl_cursor *c);
float pl_f32(struct pl_cursor *c);
/* Skips n bytes. */
void pl_skip(struct pl_cursor *c, size_t n);

/* A NUL-terminated UTF-16LE string, converted to UTF-8 into out (truncated
 * to cap-1 bytes on a character boundary; unpaired surrogates become
 * U+FFFD).  A string that reaches the end of the payload without its NUL is
 * taken as ending there (ETW writers sometimes drop the last NUL) and does
 * not set `bad`.  Returns the UTF-8 length written. */
size_t pl_utf16z(struct pl_cursor *c, char *out, size_t cap);
/* `count` UTF-16 units (no terminator) converted the same way. */
size_t pl_utf16n(struct pl_cursor *c, size_t count, char *out, size_t cap);
/* A NUL-terminated 8-bit string, copied as is (truncated to cap-1). */
size_t pl_ansiz(struct pl_cursor *c, char *out, size_t cap);
/* Skips a kernel SID field: 4 zero bytes, or a TOKEN_USER (two pointers)
 * followed by a SID whose size its sub-authority count gives (TraceEvent's
 * SkipSID). */
void pl_skip_sid(struct pl_cursor *c);

/* UTF-16LE units in p[0..units) to UTF-8 (same rules as pl_utf16z). */
size_t pl_utf16_to_utf8(const uint8_t *p, size_t units, char *out, size_t cap);

#endif
