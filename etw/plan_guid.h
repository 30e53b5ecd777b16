/* The GUID as the plan holds it: the four fields of a Windows GUID, parsed
 * from and printed as the registry form "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
 * Private to the plan (another module owns the ETL reader's GUID type), so
 * the two can evolve without clashing. */
#ifndef ETWCAP_PLAN_GUID_H
#define ETWCAP_PLAN_GUID_H

#include <stddef.h>
#include <stdint.h>

struct plan_guid {
  uint32_t data1;
  uint16_t data2;
  uint16_t data3;
  uint8_t data4[8];
};

#define PLAN_GUID_TEXT_SIZE 37 /* 36 characters and the NUL */

/* Parses exactly 36 characters of the form above, optionally inside braces.
 * Returns 0, or -1 when `text` is anything else. */
int plan_guid_parse(const char *text, struct plan_guid *out);
/* Parses the first `len` bytes of text (no NUL needed). */
int plan_guid_parse_n(const char *text, size_t len, struct plan_guid *out);
/* Lower-case registry form into buf (at least PLAN_GUID_TEXT_SIZE bytes). */
void plan_guid_format(const struct plan_guid *g, char *buf);
int plan_guid_equal(const struct plan_guid *a, const struct plan_guid *b);
/* The 16 bytes in memory order (Data1..3 little-endian), as Windows lays a
 * GUID out: what filter descriptors and hashes see. */
void plan_guid_to_bytes(const struct plan_guid *g, uint8_t out[16]);
void plan_guid_from_bytes(const uint8_t in[16], struct plan_guid *out);

#endif
