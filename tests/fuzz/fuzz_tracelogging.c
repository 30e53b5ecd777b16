/* libFuzzer target: the TraceLogging schema walk (etw/event/tracelogging.c) on a
 * schema and a payload from the input, with the walk's work bounded by the
 * event's bytes (run with a 10 s per-input limit, fuzz.cmake: a slow input
 * is a finding).
 * Input: byte 0 flags (bit 0: 4-byte pointers; bit 1: the schema is taken
 * as is, else it is built), bytes 1-2 the schema part's length S, bytes 3-4
 * a repeat count R, then S schema bytes, then the payload.  A built schema
 * is the extended item's UINT16 size, a tag byte, the name "E", then the S
 * bytes of field metadata R times (up to the item's 65,535 bytes), so a
 * small input can describe thousands of fields. */
#include "etw/event/tracelogging.h"
#include "src/base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SCHEMA_MAX 65535u
#define HEADER 5u

struct seen {
  unsigned fields;
};

static int check_cb(void *ctx, const char *path, const struct tv_value *v)
{
  struct seen *s = ctx;
  if (strlen(path) >= 256 || !memchr(v->text, '\0', sizeof(v->text)))
    abort();
  s->fields++;
  return 0;
}

/* The extended item: size, tag 0, "E\0", the field bytes r times. */
static size_t build_schema(uint8_t *out, const uint8_t *fields, size_t len, size_t r)
{
  size_t n = 5, k;
  out[2] = 0;
  out[3] = 'E';
  out[4] = 0;
  for (k = 0; k < r && len && n + len <= SCHEMA_MAX; k++, n += len)
    memcpy(out + n, fields, len);
  out[0] = (uint8_t)n;
  out[1] = (uint8_t)(n >> 8);
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uint8_t built[SCHEMA_MAX];
  const uint8_t *schema, *payload;
  size_t s_len, schema_len, pay_len, repeat;
  unsigned ptr;
  struct tl_meta m;
  struct etw_event ev;
  struct seen all = { 0 };
  struct tv_value v;
  int walked, first, found;
  if (size < HEADER)
    return 0;
  ptr = data[0] & 1 ? 4 : 8;
  s_len = (size_t)(data[1] | data[2] << 8);
  repeat = (size_t)(data[3] | data[4] << 8);
  if (s_len > size - HEADER)
    s_len = size - HEADER;
  payload = data + HEADER + s_len;
  pay_len = size - HEADER - s_len;
  if (data[0] & 2) {
    schema = data + HEADER;
    schema_len = s_len;
  } else {
    schema_len = build_schema(built, data + HEADER, s_len, repeat);
    schema = built;
  }
  /* Through an event's extended item, as the triggers read it. */
  memset(&ev, 0, sizeof(ev));
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_EVENT_SCHEMA_TL;
  ev.ext[0].size = (uint16_t)schema_len;
  ev.ext[0].data = schema;
  ev.user_data = payload;
  ev.user_len = (uint32_t)pay_len;
  if (tl_parse(&ev, &m) != 1)
    return 0;
  if (!memchr(m.name, '\0', sizeof(m.name)) || m.fields_len > schema_len)
    abort();
  walked = tl_walk(&m, payload, pay_len, ptr, check_cb, &all);
  if (walked != 0 && walked != -1 && walked != ETWCAP_E_CORRUPT)
    abort();
  /* The first field is the walk's first report: the same answer whether
   * or not the walk fails further on. */
  first = tl_first(&m, payload, pay_len, ptr, &v);
  if (first != (all.fields ? 1 : walked ? -1 : 0))
    abort();
  found = tl_find(&m, payload, pay_len, ptr, "Mean", &v);
  if (found < -1 || found > 1 || (found == 1 && !memchr(v.text, '\0', sizeof(v.text))))
    abort();
  return 0;
}
