/* libFuzzer target for the trigger engine's readers of outside bytes: the
 * TraceLogging schema walker (schema and payload from the input), the
 * built-in CLR/kernel/HTTP payload layouts, the GC, exception, HTTP and
 * process-name decoding inside the engine, and the typeperf CSV parser.
 * Input: 2 bytes schema length, the schema, then the payload; the whole
 * input is also offered as a CSV file, as an EventSource manifest (XML, and
 * as ManifestData chunks through the engine). */
#include "etw/event/builtin_events.h"
#include "etw/event/eventsource_guid.h"
#include "etw/event/manifests.h"
#include "etw/event/tracelogging.h"
#include "triggers/trigger_csv.h"
#include "triggers/trigger_engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_cb(void *ctx, const char *path, const struct tv_value *v)
{
  (void)path;
  if (!memchr(v->text, '\0', sizeof(v->text)))
    abort();
  ++*(unsigned *)ctx;
  return 0;
}

static struct trigger_engine *engine;

static void make_engine(void)
{
  struct trigger_options o;
  static char *etw[] = { "Windows Kernel/Process/Start;FieldFilter=ImageFileName~x",
                         "*System.Net.Http/RequestStart;TriggerMSec=1",
                         "*MySource/WorkStart;FieldFilter=size>1;TriggerMSec=1" };
  static char *evc[] = { "System.Runtime:gc-heap-size>1" };
  char err[512];
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  o.stop_on_exception = "x";
  o.stop_on_gc_over_msec = 1;
  o.stop_on_http_status = "5xx";
  o.stop_on_etw_event = etw;
  o.stop_on_etw_event_count = 3;
  o.stop_on_event_counter = evc;
  o.stop_on_event_counter_count = 1;
  o.process = "app";
  o.collect_multiple = 1000000; /* never done: every input is looked at */
  o.delay_after_trigger_sec = 0;
  if (trigger_engine_create(&engine, &o, err, sizeof(err)) != 0 ||
      trigger_engine_start(engine, 1, err, sizeof(err)) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const struct etw_guid *const provs[] = { &bi_guid_clr, &bi_guid_http, &bi_guid_clr };
  static int64_t now = 2;
  struct tl_meta m;
  struct etw_event ev;
  struct trigger_csv *csv = NULL;
  char err[512];
  size_t mlen;
  unsigned fields = 0, i;
  static unsigned runs;
  if (size < 3)
    return 0;
  /* Fresh engine now and then: its fire records grow with every fire. */
  if (engine && ++runs % 4096 == 0) {
    trigger_engine_free(engine);
    engine = NULL;
  }
  if (!engine)
    make_engine();
  mlen = (size_t)(data[0] | data[1] << 8);
  if (mlen > size - 2)
    mlen = size - 2;
  if (tl_parse_bytes(data + 2, mlen, &m) == 1)
    (void)tl_walk(&m, data + 2 + mlen, size - 2 - mlen, data[2] & 1 ? 4 : 8, count_cb, &fields);
  /* The same bytes as payloads of built-in events, through the engine. */
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_EVENT_HEADER64;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  ev.pointer_size = data[2] & 1 ? 4 : 8;
  ev.user_data = data + 2 + mlen;
  ev.user_len = (uint32_t)(size - 2 - mlen);
  ev.level = 4;
  ev.keyword = 0;
  ev.id = data[2];
  ev.version = data[1] & 7;
  ev.pid = data[0];
  ev.tid = data[1];
  ev.provider = *provs[data[0] % 3];
  if (mlen) { /* also as a TraceLogging event */
    ev.ext_count = 1;
    ev.ext[0].type = ETW_EXT_EVENT_SCHEMA_TL;
    ev.ext[0].size = (uint16_t)mlen;
    ev.ext[0].data = data + 2;
  }
  for (i = 0; i < 4; i++) {
    static const uint16_t ids[] = { 1, 2, 80, 12 };
    ev.id = ids[(data[2] + i) & 3];
    if (trigger_engine_event(engine, &ev, now++) != 0)
      abort();
  }
  ev.ext_count = 0;
  ev.is_kernel = 1;
  ev.group = 3;
  ev.opcode = 1 + (data[1] % 4);
  if (trigger_engine_event(engine, &ev, now++) != 0)
    abort();
  /* As an EventSource manifest: whole, and in two ManifestData chunks whose
   * envelope comes from the input. */
  {
    static struct etw_guid my;
    static int have_my;
    struct manifests man = { 0, 0 };
    static uint8_t chunk[8 + 65536];
    size_t half = (size - 2) / 2, k;
    if (!have_my) {
      struct etw_guid g;
      if (eventsource_guid("MySource", &g) != 0)
        abort();
      my.data1 = g.data1;
      my.data2 = g.data2;
      my.data3 = g.data3;
      memcpy(my.data4, g.data4, 8);
      have_my = 1;
    }
    (void)manifests_add_xml(&man, &my, (const char *)data + 2, size - 2);
    manifests_free(&man);
    memset(&ev, 0, sizeof(ev));
    ev.header_type = ETW_HDR_EVENT_HEADER64;
    ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
    ev.pointer_size = 8;
    ev.provider = my;
    ev.id = 0xFFFE;
    for (k = 0; k < 2 && size - 2 <= 65536; k++) {
      size_t from = k ? half : 0, n = k ? size - 2 - half : half;
      chunk[0] = 1;
      chunk[1] = 1;
      chunk[2] = 0;
      chunk[3] = 0x5B;
      chunk[4] = data[0] & 3;
      chunk[5] = 0;
      chunk[6] = (uint8_t)(k ? data[1] & 1 : 0);
      chunk[7] = 0;
      memcpy(chunk + 8, data + 2 + from, n);
      ev.user_data = chunk;
      ev.user_len = (uint32_t)(8 + n);
      if (trigger_engine_event(engine, &ev, now++) != 0)
        abort();
    }
    /* and an event of the source for the names and fields it gave */
    ev.id = data[2] % 8;
    ev.user_data = data + 2;
    ev.user_len = (uint32_t)(size - 2);
    if (trigger_engine_event(engine, &ev, now++) != 0)
      abort();
  }
  /* And as a counter log. */
  if (trigger_csv_parse(&csv, (const char *)data, size, "fuzz.csv", err, sizeof(err)) == 0)
    trigger_csv_free(csv);
  else if (!memchr(err, '\0', sizeof(err)))
    abort();
  return 0;
}
