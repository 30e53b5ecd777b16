/* TraceLogging bytes of the selftest's events (see selftest_tl.h). */
#include "selftest_tl.h"

#include "error.h"
#include "eventsource_guid.h"

#include <string.h>

int selftest_tl_provider_guid(struct etw_guid *out)
{
  struct etw_guid g;
  int rc = eventsource_guid(SELFTEST_TL_PROVIDER, &g);
  if (rc)
    return rc;
  out->data1 = g.data1;
  out->data2 = g.data2;
  out->data3 = g.data3;
  memcpy(out->data4, g.data4, sizeof(out->data4));
  return 0;
}

static void put_u16(uint8_t *p, size_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

size_t selftest_tl_provider_traits(uint8_t *buf, size_t cap)
{
  size_t n = sizeof(SELFTEST_TL_PROVIDER); /* the name and its NUL */
  if (cap < 2 + n)
    return 0;
  put_u16(buf, 2 + n);
  memcpy(buf + 2, SELFTEST_TL_PROVIDER, n);
  return 2 + n;
}

/* A field: its name with NUL, then its InType. */
static size_t field(uint8_t *p, const char *name, uint8_t in_type)
{
  size_t n = strlen(name) + 1;
  memcpy(p, name, n);
  p[n] = in_type;
  return n + 1;
}

int selftest_tl_event_build(struct selftest_tl_event *e, const char *name, uint32_t seq,
                            uint32_t pid)
{
  size_t n = strlen(name) + 1, pos;
  memset(e, 0, sizeof(*e));
  /* size, tags, name, "Seq\0" 8, "Pid\0" 8 */
  if (2 + 1 + n + 5 + 5 > sizeof(e->meta))
    return ETWCAP_E_RANGE;
  pos = 2;
  e->meta[pos++] = 0; /* no tags */
  memcpy(e->meta + pos, name, n);
  pos += n;
  pos += field(e->meta + pos, "Seq", SELFTEST_TL_IN_UINT32);
  pos += field(e->meta + pos, "Pid", SELFTEST_TL_IN_UINT32);
  put_u16(e->meta, pos);
  e->meta_len = pos;
  put_u32(e->payload, seq);
  put_u32(e->payload + 4, pid);
  e->payload_len = 8;
  return 0;
}
