/* TraceLogging bytes of the selftest's events (see selftest_tl.h). */
#include "src/selftest/selftest_tl.h"

#include "etw/event/eventsource_guid.h"
#include "etw/event/tl_encode.h"
#include "src/base/error.h"

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

size_t selftest_tl_provider_traits(uint8_t *buf, size_t cap)
{
  return tl_encode_provider_traits(SELFTEST_TL_PROVIDER, buf, cap);
}

int selftest_tl_event_build(struct selftest_tl_event *e, const char *name, uint32_t seq,
                            uint32_t pid)
{
  struct tl_encoded t;
  int rc;
  memset(e, 0, sizeof(*e));
  tl_encode_begin(&t, name);
  tl_encode_uint32(&t, "Seq", seq);
  tl_encode_uint32(&t, "Pid", pid);
  if ((rc = tl_encode_end(&t)) != 0 || t.meta_len > sizeof(e->meta) ||
      t.data_len > sizeof(e->payload))
    return rc ? rc : ETWCAP_E_RANGE;
  memcpy(e->meta, t.meta, t.meta_len);
  e->meta_len = t.meta_len;
  memcpy(e->payload, t.data, t.data_len);
  e->payload_len = t.data_len;
  return 0;
}
