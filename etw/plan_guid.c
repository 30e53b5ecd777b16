/* GUID text and byte forms for the plan (see plan_guid.h). */
#include "plan_guid.h"

#include "guid.h"

#include <string.h>

/* The plan's GUID has the same fields as etw_guid: convert and let guid.c
 * do the text and byte forms, so there is one implementation of each. */
static struct etw_guid to_etw(const struct plan_guid *g)
{
  struct etw_guid e;
  e.data1 = g->data1;
  e.data2 = g->data2;
  e.data3 = g->data3;
  memcpy(e.data4, g->data4, 8);
  return e;
}

static void from_etw(const struct etw_guid *e, struct plan_guid *g)
{
  g->data1 = e->data1;
  g->data2 = e->data2;
  g->data3 = e->data3;
  memcpy(g->data4, e->data4, 8);
}

int plan_guid_parse_n(const char *text, size_t len, struct plan_guid *out)
{
  char buf[40];
  struct etw_guid e;
  if (len != 36 && len != 38)
    return -1;
  memcpy(buf, text, len);
  buf[len] = '\0';
  if (guid_parse(buf, &e) != 0)
    return -1;
  from_etw(&e, out);
  return 0;
}

int plan_guid_parse(const char *text, struct plan_guid *out)
{
  return plan_guid_parse_n(text, strlen(text), out);
}

void plan_guid_format(const struct plan_guid *g, char *buf)
{
  struct etw_guid e = to_etw(g);
  guid_format(&e, buf);
}

int plan_guid_equal(const struct plan_guid *a, const struct plan_guid *b)
{
  struct etw_guid x = to_etw(a), y = to_etw(b);
  return guid_equal(&x, &y);
}

void plan_guid_to_bytes(const struct plan_guid *g, uint8_t out[16])
{
  struct etw_guid e = to_etw(g);
  guid_to_bytes(&e, out);
}

void plan_guid_from_bytes(const uint8_t in[16], struct plan_guid *out)
{
  struct etw_guid e = guid_from_bytes(in);
  from_etw(&e, out);
}
