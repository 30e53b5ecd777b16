/* Windows GUIDs as etwcap handles them: decoded from the 16 on-disk bytes
 * (Data1..Data3 little-endian, Data4 as bytes), printed and parsed in the
 * registry form without braces.  Pure: no I/O, no allocation. */
#ifndef ETWCAP_GUID_H
#define ETWCAP_GUID_H

#include <stddef.h>
#include <stdint.h>

struct etw_guid {
  uint32_t data1;
  uint16_t data2, data3;
  uint8_t data4[8];
};

/* Text form "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": 36 chars + NUL. */
#define GUID_STRING_SIZE 37

/* Decodes a GUID stored as Windows stores it (16 bytes at p). */
struct etw_guid guid_from_bytes(const uint8_t *p);
/* Encodes into the same 16-byte on-disk form. */
void guid_to_bytes(const struct etw_guid *g, uint8_t *p);
/* Writes the lower-case text form into buf (at least GUID_STRING_SIZE). */
char *guid_format(const struct etw_guid *g, char *buf);
/* Parses the text form, with or without braces, any case.  0 or -1. */
int guid_parse(const char *s, struct etw_guid *g);
/* The same over the first `len` bytes of text (no NUL needed). */
int guid_parse_n(const char *text, size_t len, struct etw_guid *g);
int guid_equal(const struct etw_guid *a, const struct etw_guid *b);
int guid_is_zero(const struct etw_guid *g);

#endif
