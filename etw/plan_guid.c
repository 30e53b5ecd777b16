/* GUID text and byte forms for the plan (see plan_guid.h). */
#include "plan_guid.h"

#include <stdio.h>
#include <string.h>

static int hexval(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

int plan_guid_parse_n(const char *text, size_t len, struct plan_guid *out)
{
  /* Positions of the 16 bytes' first hex digits in the 36-character form. */
  static const unsigned char pos[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34 };
  uint8_t b[16];
  size_t i;
  if (len == 38 && text[0] == '{' && text[37] == '}') {
    text++;
    len = 36;
  }
  if (len != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-')
    return -1;
  for (i = 0; i < 16; i++) {
    int hi = hexval(text[pos[i]]), lo = hexval(text[pos[i] + 1]);
    if (hi < 0 || lo < 0)
      return -1;
    b[i] = (uint8_t)(hi << 4 | lo);
  }
  out->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
  out->data2 = (uint16_t)(b[4] << 8 | b[5]);
  out->data3 = (uint16_t)(b[6] << 8 | b[7]);
  memcpy(out->data4, b + 8, 8);
  return 0;
}

int plan_guid_parse(const char *text, struct plan_guid *out)
{
  return plan_guid_parse_n(text, strlen(text), out);
}

void plan_guid_format(const struct plan_guid *g, char *buf)
{
  snprintf(buf, PLAN_GUID_TEXT_SIZE, "%08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           (unsigned long)g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
           g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

int plan_guid_equal(const struct plan_guid *a, const struct plan_guid *b)
{
  return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
         !memcmp(a->data4, b->data4, 8);
}

void plan_guid_to_bytes(const struct plan_guid *g, uint8_t out[16])
{
  out[0] = (uint8_t)g->data1;
  out[1] = (uint8_t)(g->data1 >> 8);
  out[2] = (uint8_t)(g->data1 >> 16);
  out[3] = (uint8_t)(g->data1 >> 24);
  out[4] = (uint8_t)g->data2;
  out[5] = (uint8_t)(g->data2 >> 8);
  out[6] = (uint8_t)g->data3;
  out[7] = (uint8_t)(g->data3 >> 8);
  memcpy(out + 8, g->data4, 8);
}

void plan_guid_from_bytes(const uint8_t in[16], struct plan_guid *out)
{
  out->data1 = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
               (uint32_t)in[3] << 24;
  out->data2 = (uint16_t)(in[4] | in[5] << 8);
  out->data3 = (uint16_t)(in[6] | in[7] << 8);
  memcpy(out->data4, in + 8, 8);
}
