/* libFuzzer target: the container table (etw/etl/etl_containers.c) over
 * events made from the input, 24 bytes each: kind (bit 0: a
 * Kernel-Process event, bit 1: ProcessStop rather than ProcessStart, bit 2:
 * with a container item, bits 3-4: the item's size, 36, 16, 35 or 0),
 * header pid and payload ProcessID (u16 each, so ids repeat), time (i64),
 * then 12 bytes naming the item among a few IDs.  Then every pid is looked
 * up at the event times.  Any crash, leak or sanitizer report is a bug. */
#include "etw/etl/etl_containers.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct etw_guid kernel_process = {
  0x22fb2cd6, 0x0e7b, 0x422b, { 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 }
};
static const struct etw_guid clr = {
  0xe13c0d23, 0xccbc, 0x4e12, { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 }
};

static int64_t get_i64(const uint8_t *p)
{
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return (int64_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const uint16_t sizes[] = { 36, 16, 35, 0 };
  struct etl_containers c;
  size_t at, n = size / 24;
  etl_containers_init(&c);
  for (at = 0; at < n; at++) {
    const uint8_t *d = data + 24 * at;
    uint8_t item[36], payload[4];
    struct etw_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
    ev.provider = (d[0] & 1) ? kernel_process : clr;
    ev.id = (d[0] & 2) ? 2 : 1;
    ev.pid = (uint32_t)(d[1] | d[2] << 8);
    memcpy(payload, d + 3, 2);
    payload[2] = payload[3] = 0;
    ev.user_data = payload;
    ev.user_len = sizeof(payload);
    memcpy(item, "6D9F6D0C-57F8-5F0C-898D-2DC82CC922E0", 36);
    memcpy(item + 24, d + 12, 12); /* the last group, hex or not */
    if (d[0] & 4) {
      ev.ext_count = 1;
      ev.ext[0].type = ETW_EXT_CONTAINER_ID;
      ev.ext[0].size = sizes[(d[0] >> 3) & 3];
      ev.ext[0].data = item;
    }
    etl_containers_event(&c, &ev, get_i64(d + 4));
  }
  if (etl_containers_finish(&c) == 0)
    for (at = 0; at < n; at++) {
      const uint8_t *d = data + 24 * at;
      int64_t t = get_i64(d + 4);
      int k = etl_containers_find(&c, (uint32_t)(d[1] | d[2] << 8), t, t);
      if (k >= (int)c.count)
        __builtin_trap();
    }
  etl_containers_release(&c);
  return 0;
}
