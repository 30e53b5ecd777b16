/* The ETW event triggers on events assembled here from the documented
 * layouts: start/stop pairing (thread, activity path, orphans, the strict
 * '>'), the enable rules a live session applies (level, keywords), process
 * filters by name from kernel Process events, field filter operators, the
 * GC and exception predicates, System.Net.Http status codes, and
 * EventCounters payloads in TraceLogging form (TraceLoggingProvider.h). */
#include "tests/fakes/test_support.h"

#include "etw/event/builtin_events.h"
#include "etw/event/eventsource_guid.h"
#include "etw/event/manifests.h"
#include "etw/event/tl_encode.h"
#include "etw/event/tracelogging.h"
#include "src/base/error.h"
#include "triggers/trigger_engine.h"

#include <stdio.h>
#include <string.h>

#define T0 INT64_C(133000000000000000)
#define MS INT64_C(10000)

static struct etw_guid my_source; /* *MySource */

static void setup_guid(void)
{
  struct etw_guid g;
  assert_int_equal(eventsource_guid("MySource", &g), 0);
  my_source.data1 = g.data1;
  my_source.data2 = g.data2;
  my_source.data3 = g.data3;
  memcpy(my_source.data4, g.data4, 8);
}

static struct etw_event event(const struct etw_guid *prov, uint16_t id, uint8_t version,
                              uint32_t pid, uint32_t tid, const uint8_t *data, uint32_t len)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_EVENT_HEADER64;
  ev.pointer_size = 8;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  ev.provider = *prov;
  ev.id = id;
  ev.version = version;
  ev.level = 4;
  ev.pid = pid;
  ev.tid = tid;
  ev.user_data = data;
  ev.user_len = len;
  return ev;
}

static struct trigger_engine *engine(struct trigger_options *o)
{
  struct trigger_engine *e = NULL;
  char err[1024];
  int rc = trigger_engine_create(&e, o, err, sizeof(err));
  if (rc)
    fail_msg("%s", err);
  assert_int_equal(trigger_engine_start(e, T0, err, sizeof(err)), 0);
  return e;
}

/* Feeds ev at T0 + ms and says whether it fired. */
static int feed(struct trigger_engine *e, struct etw_event *ev, int64_t at)
{
  size_t before = trigger_engine_fire_count(e);
  ev->timestamp = (uint64_t)at;
  assert_int_equal(trigger_engine_event(e, ev, T0 + at), 0);
  return trigger_engine_fire_count(e) > before;
}

static char *one_spec[1];

static void spec_options(struct trigger_options *o, const char *spec)
{
  trigger_options_init(o);
  one_spec[0] = (char *)spec;
  o->stop_on_etw_event = one_spec;
  o->stop_on_etw_event_count = 1;
}

static void duration_pairs_by_thread_strictly_over(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event s1 = event(&my_source, 5, 0, 10, 1, NULL, 0);
  struct etw_event s2 = event(&my_source, 5, 0, 10, 2, NULL, 0);
  struct etw_event p2 = event(&my_source, 6, 0, 10, 2, NULL, 0);
  struct etw_event p3 = event(&my_source, 6, 0, 10, 3, NULL, 0);
  struct etw_event p1 = event(&my_source, 6, 0, 10, 1, NULL, 0);
  struct etw_event other = event(&my_source, 6, 0, 11, 1, NULL, 0); /* same tid, other pid */
  (void)state;
  spec_options(&o, "*MySource/EventID(5);TriggerMSec=10;StartStopID=ThreadID");
  e = engine(&o);
  assert_false(feed(e, &s1, 0));
  assert_false(feed(e, &s2, 1 * MS));
  assert_false(feed(e, &p2, 11 * MS)); /* exactly 10 ms: not over */
  assert_false(feed(e, &p3, 12 * MS)); /* an orphan stop */
  assert_false(feed(e, &other, 13 * MS));
  assert_true(feed(e, &p1, 13 * MS)); /* 13 ms */
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, T0 + 13 * MS);
  assert_true(trigger_engine_fire_at(e, 0)->value == 13.0);
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail, "13.000 ms after its start > 10"));
  assert_int_equal(trigger_engine_phase(e), TRIGGER_STOPPING);
  trigger_engine_free(e);
}

/* An EventSource activity path for a process (TraceEvent's IsActivityPath). */
static struct etw_guid activity_path(uint32_t a, uint32_t b, uint32_t c, uint32_t pid)
{
  uint8_t bytes[16];
  uint32_t u[4] = { a, b, c, (a + b + c + 0x599D99ADu) ^ pid };
  size_t i;
  for (i = 0; i < 16; i++)
    bytes[i] = (uint8_t)(u[i / 4] >> (8 * (i % 4)));
  return guid_from_bytes(bytes);
}

static void duration_pairs_by_activity_path_across_threads(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event start = event(&my_source, 5, 0, 10, 1, NULL, 0);
  struct etw_event other = event(&my_source, 5, 0, 10, 1, NULL, 0);
  struct etw_event stop = event(&my_source, 6, 0, 10, 2, NULL, 0);
  (void)state;
  start.activity_id = activity_path(1, 2, 3, 10);
  other.activity_id = activity_path(7, 8, 9, 10);
  stop.activity_id = start.activity_id;
  assert_true(trigger_is_activity_path(&start.activity_id, 10));
  assert_false(trigger_is_activity_path(&start.activity_id, 11));
  spec_options(&o, "*MySource/EventID(5);TriggerMSec=2");
  e = engine(&o);
  assert_false(feed(e, &start, 0));
  assert_false(feed(e, &other, 1 * MS)); /* same thread, another activity */
  assert_true(feed(e, &stop, 5 * MS));   /* pairs with the first, not the thread's last */
  assert_true(trigger_engine_fire_at(e, 0)->value == 5.0);
  trigger_engine_free(e);
}

static void level_and_keywords_follow_the_enable_rules(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev = event(&my_source, 5, 0, 10, 1, NULL, 0);
  (void)state;
  spec_options(&o, "*MySource/EventID(5)");
  e = engine(&o);
  ev.level = 5; /* Verbose: not enabled at the default Informational */
  assert_false(feed(e, &ev, 0));
  ev.level = 0; /* LogAlways */
  assert_true(feed(e, &ev, 1));
  trigger_engine_free(e);
  spec_options(&o, "*MySource/EventID(5);Keywords=10;Level=Verbose"); /* hex, as PerfView */
  e = engine(&o);
  ev.level = 5;
  ev.keyword = 0x20;
  assert_false(feed(e, &ev, 0));
  ev.keyword = 0x30;
  assert_true(feed(e, &ev, 1));
  trigger_engine_free(e);
  e = engine(&o);
  ev.keyword = 0; /* events without keywords always pass */
  assert_true(feed(e, &ev, 0));
  trigger_engine_free(e);
}

/* Process_V4 (64-bit): UniqueProcessKey, ProcessId, ParentId, SessionId,
 * ExitStatus, DirectoryTableBase, Flags, UserSID (null: 4 zero bytes),
 * ImageFileName, CommandLine, PackageFullName, ApplicationId. */
static uint32_t process_v4(uint8_t *b, uint32_t pid, const char *image)
{
  uint32_t n = 0, i;
  memset(b, 0, 256);
  n = 8;
  b[n] = (uint8_t)pid;
  b[n + 1] = (uint8_t)(pid >> 8);
  n += 4 + 4 + 4 + 4 + 8 + 4 + 4;
  for (i = 0; image[i]; i++)
    b[n++] = (uint8_t)image[i];
  n++;          /* NUL */
  n += 2 + 2 + 2; /* three empty UTF-16 strings */
  return n;
}

static struct etw_event kernel_process(uint8_t opcode, const uint8_t *data, uint32_t len)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_SYSTEM64;
  ev.pointer_size = 8;
  ev.is_kernel = 1;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP;
  ev.group = 3;
  ev.hook_id = (uint16_t)(0x0300 | opcode);
  ev.opcode = opcode;
  ev.version = 4;
  ev.user_data = data;
  ev.user_len = len;
  return ev;
}

static void process_name_filter_waits_for_the_process(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  uint8_t start_bytes[256], stop_bytes[256], other_bytes[256];
  struct etw_event app = event(&my_source, 5, 0, 77, 1, NULL, 0);
  struct etw_event start = kernel_process(1, start_bytes, process_v4(start_bytes, 77, "app.exe"));
  struct etw_event stop = kernel_process(2, stop_bytes, process_v4(stop_bytes, 77, "app.exe"));
  struct etw_event other = kernel_process(3, other_bytes, process_v4(other_bytes, 78, "apx.exe"));
  char problems[1024];
  (void)state;
  spec_options(&o, "*MySource/EventID(5)");
  o.process = "APP"; /* the global /Process applies to /StopOnEtwEvent */
  e = engine(&o);
  assert_false(feed(e, &app, 0)); /* not mapped yet: dropped */
  assert_false(feed(e, &other, 1));
  assert_false(feed(e, &start, 2));
  assert_false(feed(e, &stop, 3)); /* stopped again */
  assert_false(feed(e, &app, 4));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 0);
  assert_false(feed(e, &start, 5));
  app.pid = 78;
  assert_false(feed(e, &app, 6)); /* another process */
  app.pid = 77;
  assert_true(feed(e, &app, 7));
  trigger_engine_free(e);
  /* A name never seen is reported after a replay. */
  spec_options(&o, "*MySource/EventID(5);Process=ghost");
  e = engine(&o);
  assert_false(feed(e, &app, 0));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 1);
  assert_non_null(strstr(problems, "process filter 'ghost'"));
  trigger_engine_free(e);
}

static uint32_t gc_start_v2(uint8_t *b, uint32_t count, uint32_t depth, uint32_t reason,
                            uint32_t type)
{
  uint32_t v[4] = { count, depth, reason, type };
  size_t i;
  memset(b, 0, 26);
  for (i = 0; i < 16; i++)
    b[i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
  b[16] = 9; /* ClrInstanceID */
  return 26;
}

static void field_filter_operators(void **state)
{
  static const struct {
    const char *filter;
    int fires;
  } cases[] = {
    { "Depth=1", 1 },    { "Depth!=1", 0 },   { "Reason<2", 1 },  { "Reason>2", 0 },
    { "Count>=5", 1 },   { "Count>5", 0 },    { "Count<=5", 1 },  { "Type~^0$", 1 },
    { "Count=05", 1 },   /* numbers compare as numbers */
    { "ClrInstanceID=9", 1 },
    { "Count=five", 0 }, /* and text as text */
  };
  uint8_t b[32];
  struct etw_event ev = event(&bi_guid_clr, 1, 2, 10, 1, b, gc_start_v2(b, 5, 1, 1, 0));
  char spec[128];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct trigger_options o;
    struct trigger_engine *e;
    snprintf(spec, sizeof(spec), "Clr/GC/Start;FieldFilter=%s", cases[i].filter);
    spec_options(&o, spec);
    e = engine(&o);
    if (feed(e, &ev, 0) != cases[i].fires)
      fail_msg("%s: fires %d", cases[i].filter, !cases[i].fires);
    trigger_engine_free(e);
  }
}

static void gc_predicates(void **state)
{
  uint8_t b[32];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event bgc = event(&bi_guid_clr, 1, 2, 10, 1, b, 0);
  (void)state;
  /* Gen2: Depth 2 but a background GC does not count; a blocking one does. */
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  e = engine(&o);
  bgc.user_len = gc_start_v2(b, 3, 2, 0, 1);
  assert_false(feed(e, &bgc, 0));
  bgc.user_len = gc_start_v2(b, 4, 1, 0, 0);
  assert_false(feed(e, &bgc, 1));
  bgc.user_len = gc_start_v2(b, 5, 2, 4, 2); /* a foreground GC during a background one */
  assert_true(feed(e, &bgc, 2));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail,
                         "Count=5 Depth=2 Reason=AllocLarge Type=ForegroundGC pid=10 tid=1"));
  trigger_engine_free(e);
  /* /StopOnGCEvent:Induced;Gen2 needs both. */
  trigger_options_init(&o);
  o.stop_on_gc_event = "Induced;Gen2";
  e = engine(&o);
  bgc.user_len = gc_start_v2(b, 6, 2, 0, 0);
  assert_false(feed(e, &bgc, 0));
  bgc.user_len = gc_start_v2(b, 7, 1, 1, 0);
  assert_false(feed(e, &bgc, 1));
  bgc.user_len = gc_start_v2(b, 8, 2, 7, 0); /* InducedNotForced */
  assert_true(feed(e, &bgc, 2));
  trigger_engine_free(e);
  /* GC/Start version 0 has no Depth: never a gen2 (TraceEvent reads 0). */
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  e = engine(&o);
  bgc.version = 0;
  bgc.user_len = 8;
  assert_false(feed(e, &bgc, 0));
  trigger_engine_free(e);
}

static void bgc_final_pause_needs_gc_prep(void **state)
{
  uint8_t susp[10] = { 0 }, none[2] = { 9, 0 };
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event start = event(&bi_guid_clr, 9, 1, 10, 1, susp, sizeof(susp));
  struct etw_event stop = event(&bi_guid_clr, 3, 1, 10, 1, none, sizeof(none));
  (void)state;
  trigger_options_init(&o);
  o.stop_on_bgc_final_pause_over_msec = 5;
  e = engine(&o);
  susp[0] = 1; /* SuspendForGC */
  assert_false(feed(e, &start, 0));
  assert_false(feed(e, &stop, 20 * MS));
  susp[0] = 6; /* SuspendForGCPrep */
  assert_false(feed(e, &start, 30 * MS));
  assert_true(feed(e, &stop, 36 * MS));
  trigger_engine_free(e);
}

/* Two NUL-terminated UTF-16 strings, the pointer, HRESULT, flags, instance. */
static uint32_t exception_v1(uint8_t *b, const char *type, const char *msg)
{
  uint32_t n = 0;
  const char *s;
  memset(b, 0, 256);
  for (s = type; *s; s++, n += 2)
    b[n] = (uint8_t)*s;
  n += 2;
  for (s = msg; *s; s++, n += 2)
    b[n] = (uint8_t)*s;
  n += 2;
  return n + 8 + 4 + 2 + 2;
}

/* CLR Exception/Start (ExceptionThrown_V1) with its payload at b: an error
 * of the Exception keyword. */
static struct etw_event exception_event(uint8_t *b)
{
  struct etw_event ev = event(&bi_guid_clr, 80, 1, 10, 1, b, 0);
  ev.keyword = 0x8000;
  ev.level = 2;
  return ev;
}

static void exception_rules(void **state)
{
  uint8_t b[256];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev = exception_event(b);
  (void)state;
  trigger_options_init(&o);
  o.stop_on_exception = "Timeout";
  e = engine(&o);
  ev.user_len = exception_v1(b, "System.TimeoutException", ""); /* no message: PerfView skips */
  assert_false(feed(e, &ev, 0));
  ev.user_len = exception_v1(b, "System.Exception", "Timeout waiting");
  assert_true(feed(e, &ev, 1));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail,
                         "Exception/Start System.Exception: Timeout waiting pid=10"));
  trigger_engine_free(e);
  trigger_options_init(&o);
  o.stop_on_exception = ""; /* any exception, even without a message */
  e = engine(&o);
  ev.user_len = exception_v1(b, "System.TimeoutException", "");
  assert_true(feed(e, &ev, 0));
  trigger_engine_free(e);
  /* An exception event of another keyword would not have been delivered. */
  e = engine(&o);
  ev.keyword = 0x1;
  assert_false(feed(e, &ev, 0));
  trigger_engine_free(e);
}

/* `n` UTF-16 units of `unit`, then the ASCII `tail`, NUL-terminated, at b;
 * returns the bytes written. */
static uint32_t utf16_run(uint8_t *b, uint16_t unit, size_t n, const char *tail)
{
  uint32_t k = 0;
  size_t i;
  for (i = 0; i < n; i++, k += 2) {
    b[k] = (uint8_t)unit;
    b[k + 1] = (uint8_t)(unit >> 8);
  }
  for (; *tail; tail++, k += 2) {
    b[k] = (uint8_t)*tail;
    b[k + 1] = 0;
  }
  b[k] = b[k + 1] = 0;
  return k + 2;
}

/* The exception regex sees the whole type and message, however long (an
 * event carries up to 64 KiB): here a message of 20,000 CJK characters,
 * 60,000 bytes of UTF-8, before the word the regex looks for. */
static void long_exception(struct etw_event *ev, uint8_t *b, const char *tail)
{
  uint32_t n = utf16_run(b, 'T', 1100, "imeout"); /* a type past 1 KiB too */
  n += utf16_run(b + n, 0x4E2D, 20000, tail);
  memset(b + n, 0, 16);
  ev->user_len = n + 16; /* the pointer, HRESULT, flags, instance */
}

static void exception_regex_sees_the_whole_message(void **state)
{
  static uint8_t b[65536];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev = exception_event(b);
  (void)state;
  trigger_options_init(&o);
  o.stop_on_exception = "Timeout.*: .*Deadlock$";
  e = engine(&o);
  long_exception(&ev, b, " Deadlock");
  assert_true(feed(e, &ev, 0));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail, "Exception/Start TTTT"));
  trigger_engine_free(e);
  /* Only the end differs: no match. */
  e = engine(&o);
  long_exception(&ev, b, " Deadlocked");
  assert_false(feed(e, &ev, 0));
  trigger_engine_free(e);
}

static void http_status_codes(void **state)
{
  uint8_t b[4];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event v0 = event(&bi_guid_http, 12, 0, 10, 1, NULL, 0);
  struct etw_event v1 = event(&bi_guid_http, 12, 1, 10, 1, b, 4);
  (void)state;
  trigger_options_init(&o);
  o.stop_on_http_status = "5xx;429";
  e = engine(&o);
  assert_false(feed(e, &v0, 0)); /* before .NET 7: no status code */
  b[0] = 200;
  b[1] = b[2] = b[3] = 0;
  assert_false(feed(e, &v1, 1));
  b[0] = 0xF7; /* 503 */
  b[1] = 0x01;
  assert_true(feed(e, &v1, 2));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail,
                         "ResponseHeaders/Stop statusCode=503"));
  trigger_engine_free(e);
}

/* --- TraceLogging ------------------------------------------------------------------ */

struct tl_builder {
  uint8_t meta[512], data[512];
  uint32_t mlen, dlen;
};

static void meta_str(struct tl_builder *t, const char *s)
{
  size_t n = strlen(s) + 1;
  memcpy(t->meta + t->mlen, s, n);
  t->mlen += (uint32_t)n;
}

static void meta_field(struct tl_builder *t, const char *name, uint8_t in, int out)
{
  meta_str(t, name);
  t->meta[t->mlen++] = (uint8_t)(out >= 0 ? in | 0x80 : in);
  if (out >= 0)
    t->meta[t->mlen++] = (uint8_t)out;
}

static void data_counted(struct tl_builder *t, const char *s)
{
  size_t n = strlen(s), i;
  t->data[t->dlen++] = (uint8_t)(2 * n);
  t->data[t->dlen++] = (uint8_t)((2 * n) >> 8);
  for (i = 0; i < n; i++) {
    t->data[t->dlen++] = (uint8_t)s[i];
    t->data[t->dlen++] = 0;
  }
}

static void data_bytes(struct tl_builder *t, const void *p, size_t n)
{
  memcpy(t->data + t->dlen, p, n);
  t->dlen += (uint32_t)n;
}

static void data_f64(struct tl_builder *t, double d)
{
  uint64_t bits;
  uint8_t b[8];
  size_t i;
  memcpy(&bits, &d, 8);
  for (i = 0; i < 8; i++)
    b[i] = (uint8_t)(bits >> (8 * i));
  data_bytes(t, b, 8);
}

/* The "EventCounters" event of an EventCounter as .NET's EventSource writes
 * it: one struct field "Payload" (InType 24 with its member count in
 * OutType) of counted UTF-16 strings (22), doubles (12), an int (7) and a
 * float (11). */
static void event_counters(struct tl_builder *t, const char *name, double mean,
                           const char *type)
{
  static const uint8_t count[4] = { 1, 0, 0, 0 }, interval[4] = { 0, 0, 0x80, 0x3f };
  memset(t, 0, sizeof(*t));
  t->mlen = 2;
  t->meta[t->mlen++] = 0; /* no tags */
  meta_str(t, "EventCounters");
  meta_field(t, "Payload", 24, 12);
  meta_field(t, "Name", 22, -1);
  meta_field(t, "DisplayName", 22, -1);
  meta_field(t, "Mean", 12, -1);
  meta_field(t, "StandardDeviation", 12, -1);
  meta_field(t, "Count", 7, -1);
  meta_field(t, "Min", 12, -1);
  meta_field(t, "Max", 12, -1);
  meta_field(t, "IntervalSec", 11, -1);
  meta_field(t, "Series", 22, -1);
  meta_field(t, "CounterType", 22, -1);
  meta_field(t, "Metadata", 22, -1);
  meta_field(t, "DisplayUnits", 22, -1);
  t->meta[0] = (uint8_t)t->mlen;
  t->meta[1] = (uint8_t)(t->mlen >> 8);
  data_counted(t, name);
  data_counted(t, "GC Heap Size");
  data_f64(t, mean);
  data_f64(t, 0);
  data_bytes(t, count, 4);
  data_f64(t, mean);
  data_f64(t, mean);
  data_bytes(t, interval, 4);
  data_counted(t, "Interval=1000");
  data_counted(t, type);
  data_counted(t, "");
  data_counted(t, "MB");
}

static struct etw_event tl_event(const struct etw_guid *prov, struct tl_builder *t)
{
  struct etw_event ev = event(prov, 0, 0, 10, 1, t->data, t->dlen);
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_EVENT_SCHEMA_TL;
  ev.ext[0].size = (uint16_t)t->mlen;
  ev.ext[0].data = t->meta;
  ev.level = 0;
  return ev;
}

static int collect_cb(void *ctx, const char *path, const struct tv_value *v)
{
  char *out = ctx, buf[TV_SHORT_TEXT_MAX];
  size_t n = strlen(out);
  snprintf(out + n, 1024 - n, "%s=%s;", path, tv_text(v, buf));
  return 0;
}

static void tracelogging_walk_of_a_struct(void **state)
{
  struct tl_builder t;
  struct etw_event ev;
  struct tl_meta m;
  struct tv_value v;
  char all[1024] = "";
  (void)state;
  event_counters(&t, "gc-heap-size", 612.5, "Mean");
  ev = tl_event(&bi_guid_http, &t);
  assert_int_equal(tl_parse(&ev, &m), 1);
  assert_string_equal(m.name, "EventCounters");
  assert_int_equal(tl_walk(&m, ev.user_data, ev.user_len, 8, collect_cb, all), 0);
  assert_string_equal(all, "Payload.Name=gc-heap-size;Payload.DisplayName=GC Heap Size;"
                           "Payload.Mean=612.5;Payload.StandardDeviation=0;Payload.Count=1;"
                           "Payload.Min=612.5;Payload.Max=612.5;Payload.IntervalSec=1;"
                           "Payload.Series=Interval=1000;Payload.CounterType=Mean;"
                           "Payload.Metadata=;Payload.DisplayUnits=MB;");
  assert_int_equal(tl_find(&m, ev.user_data, ev.user_len, 8, "Mean", &v), 1);
  assert_true(v.d == 612.5);
  assert_int_equal(tl_find(&m, ev.user_data, ev.user_len, 8, "Payload.DisplayUnits", &v), 1);
  assert_string_equal(v.text, "MB");
  assert_int_equal(tl_find(&m, ev.user_data, ev.user_len, 8, "Nope", &v), 0);
  /* A payload cut short is malformed, not a crash. */
  assert_int_equal(tl_walk(&m, ev.user_data, 10, 8, collect_cb, all), -1);
  /* So is a schema whose size runs past its item. */
  t.meta[0] = 0xFF;
  assert_int_equal(tl_parse(&ev, &m), -1);
}

static void event_counter_threshold(void **state)
{
  struct tl_builder t;
  struct etw_guid runtime;
  struct etw_guid g;
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev;
  char *spec[] = { "System.Runtime:gc-heap-size>500" };
  (void)state;
  assert_int_equal(eventsource_guid("System.Runtime", &g), 0);
  runtime.data1 = g.data1;
  runtime.data2 = g.data2;
  runtime.data3 = g.data3;
  memcpy(runtime.data4, g.data4, 8);
  trigger_options_init(&o);
  o.stop_on_event_counter = spec;
  o.stop_on_event_counter_count = 1;
  e = engine(&o);
  event_counters(&t, "gc-heap-size", 400, "Mean");
  ev = tl_event(&runtime, &t);
  assert_false(feed(e, &ev, 0));
  event_counters(&t, "working-set", 900, "Mean");
  ev = tl_event(&runtime, &t);
  assert_false(feed(e, &ev, 1));
  event_counters(&t, "gc-heap-size", 900, "Mean");
  ev = tl_event(&my_source, &t); /* another EventSource */
  assert_false(feed(e, &ev, 2));
  ev = tl_event(&runtime, &t);
  assert_true(feed(e, &ev, 3));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail,
                         "System.Runtime:gc-heap-size = 900 > 500"));
  assert_true(trigger_engine_fire_at(e, 0)->value == 900);
  trigger_engine_free(e);
  /* /Process: only that process's counters count. */
  o.process = "11";
  e = engine(&o);
  assert_false(feed(e, &ev, 0)); /* pid 10 */
  ev.pid = 11;
  assert_true(feed(e, &ev, 1));
  trigger_engine_free(e);
}

static void names_without_a_schema_are_reported(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event manifest_event = event(&my_source, 5, 0, 10, 1, NULL, 0);
  char problems[1024];
  (void)state;
  spec_options(&o, "*MySource/DoWork");
  e = engine(&o);
  assert_false(feed(e, &manifest_event, 0));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 1);
  assert_non_null(strstr(problems, "EventID(n)"));
  trigger_engine_free(e);
}

/* An EventSource manifest as EventSource writes it (event, task, opcode,
 * template elements), with an entity, a custom opcode, a field of unknown
 * size, and two versions of one event. */
static const char manifest[] =
  "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n"
  " <!-- a comment with <event value=\"99\"/> inside -->\n"
  " <instrumentation><events><provider name=\"MySource\" guid=\"{x}\">\n"
  "  <tasks><task name=\"Work\" value=\"1\"/><task name=\"Ping\" value=\"2\"/></tasks>\n"
  "  <opcodes><opcode name=\"Bounce\" value=\"11\"/></opcodes>\n"
  "  <events>\n"
  "   <event value=\"5\" version=\"0\" level=\"win:Informational\" symbol=\"WorkStart\" "
  "opcode=\"win:Start\" task=\"Work\" template=\"WorkArgs\"/>\n"
  "   <event value=\"6\" version=\"0\" symbol=\"WorkStop\" opcode=\"win:Stop\" "
  "task=\"Work\" template=\"WorkArgs\"/>\n"
  "   <event value=\"7\" version=\"2\" symbol=\"Ping\" task=\"Ping\" opcode=\"Bounce\" "
  "template=\"PingArgs\"/>\n"
  "   <event value=\"8\" version=\"0\" symbol=\"Note\" template=\"NoteArgs\"/>\n"
  "  </events>\n"
  "  <templates>\n"
  "   <template tid=\"WorkArgs\"><data name=\"item\" inType=\"win:UnicodeString\"/>"
  "<data name=\"size\" inType=\"win:Int32\"/></template>\n"
  "   <template tid=\"PingArgs\"><data name=\"count\" inType=\"win:UInt16\"/>"
  "<data name=\"blob\" inType=\"win:Binary\" length=\"count\"/>"
  "<data name=\"after\" inType=\"win:Int32\"/></template>\n"
  "   <template tid=\"NoteArgs\"><data name=\"text &amp; more\" inType=\"win:AnsiString\"/>"
  "</template>\n"
  "  </templates></provider></events></instrumentation></instrumentationManifest>\n";

static void manifest_reader(void **state)
{
  struct manifests m = { 0 };
  const struct man_event *e;
  char name[64];
  (void)state;
  assert_int_equal(manifests_add_xml(&m, &my_source, manifest, sizeof(manifest) - 1), 0);
  assert_true(manifests_known(&m, &my_source));
  e = manifests_lookup(&m, &my_source, 5, 0);
  assert_non_null(e);
  assert_string_equal(manifests_event_name(e, name, sizeof(name)), "Work/Start");
  assert_true(manifests_event_named(e, "workstart") && manifests_event_named(e, "Work/Start"));
  assert_false(manifests_event_named(e, "Work"));
  assert_int_equal(e->layout.count, 2);
  assert_string_equal(e->layout.fields[1].name, "size");
  e = manifests_lookup(&m, &my_source, 7, 2);
  assert_string_equal(manifests_event_name(e, name, sizeof(name)), "Ping/Bounce");
  assert_int_equal(e->layout.count, 1); /* after the Binary field nothing is locatable */
  e = manifests_lookup(&m, &my_source, 8, 0);
  assert_string_equal(manifests_event_name(e, name, sizeof(name)), "Note"); /* Info: task only */
  assert_string_equal(e->layout.fields[0].name, "text & more");
  assert_null(manifests_lookup(&m, &my_source, 99, 0)); /* the commented-out one */
  assert_null(manifests_lookup(&m, &bi_guid_clr, 5, 0));
  manifests_free(&m);
}

/* ManifestData (event 0xFFFE): Format 1, version 1.0, magic 0x5B, chunk
 * count and number, then the chunk. */
static struct etw_event manifest_chunk(uint8_t *buf, unsigned total, unsigned number,
                                       const char *part, size_t n)
{
  struct etw_event ev = event(&my_source, 0xFFFE, 1, 10, 1, buf, (uint32_t)(8 + n));
  buf[0] = 1;
  buf[1] = 1;
  buf[2] = 0;
  buf[3] = 0x5B;
  buf[4] = (uint8_t)total;
  buf[5] = 0;
  buf[6] = (uint8_t)number;
  buf[7] = 0;
  memcpy(buf + 8, part, n);
  ev.level = 0;
  return ev;
}

static uint32_t work_args(uint8_t *b, const char *item, int32_t size)
{
  uint32_t n = 0;
  for (; *item; item++, n += 2) {
    b[n] = (uint8_t)*item;
    b[n + 1] = 0;
  }
  b[n] = b[n + 1] = 0;
  n += 2;
  b[n] = (uint8_t)size;
  b[n + 1] = (uint8_t)(size >> 8);
  b[n + 2] = (uint8_t)(size >> 16);
  b[n + 3] = (uint8_t)(size >> 24);
  return n + 4;
}

static void manifest_events_by_name_and_field(void **state)
{
  static uint8_t c1[4096], c2[4096];
  uint8_t payload[64];
  size_t half = (sizeof(manifest) - 1) / 2;
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event m1 = manifest_chunk(c1, 2, 0, manifest, half);
  struct etw_event m2 = manifest_chunk(c2, 2, 1, manifest + half, sizeof(manifest) - 1 - half);
  struct etw_event work = event(&my_source, 5, 0, 10, 1, payload, 0);
  struct etw_event stop = event(&my_source, 6, 0, 10, 1, payload, 0);
  char problems[1024];
  (void)state;
  /* The name and a field come from the manifest, sent in two chunks. */
  spec_options(&o, "*MySource/WorkStart;FieldFilter=size>100;FieldFilter=item~^big");
  e = engine(&o);
  assert_true(trigger_engine_wants_manifests(e));
  work.user_len = work_args(payload, "big job", 500);
  assert_false(feed(e, &work, 0)); /* no manifest yet: cannot be named */
  assert_false(feed(e, &m1, 1));
  assert_false(feed(e, &m2, 2));
  assert_true(feed(e, &work, 3));
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail,
                         "Work/Start item=big job size=500"));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 0);
  trigger_engine_free(e);
  /* Start/stop by the manifest's names: the default stop is WorkStop. */
  spec_options(&o, "*MySource/Work/Start;TriggerMSec=5;StartStopID=item");
  e = engine(&o);
  assert_int_equal(trigger_engine_preload(e, &m1), 0); /* what replay does first */
  assert_int_equal(trigger_engine_preload(e, &m2), 0);
  work.user_len = work_args(payload, "a", 1);
  assert_false(feed(e, &work, 0));
  stop.user_len = work_args(payload, "b", 1);
  assert_false(feed(e, &stop, 10 * MS)); /* another item */
  stop.user_len = work_args(payload, "a", 1);
  assert_true(feed(e, &stop, 12 * MS));
  assert_true(trigger_engine_fire_at(e, 0)->value == 12.0);
  trigger_engine_free(e);
  /* Without a manifest the name stays unresolved, and replay says so. */
  spec_options(&o, "*MySource/WorkStart");
  e = engine(&o);
  assert_false(feed(e, &work, 0));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 1);
  assert_non_null(strstr(problems, "no manifest of the provider was seen"));
  trigger_engine_free(e);
  /* A filter on a field the manifest's event lacks is reported too. */
  spec_options(&o, "*MySource/WorkStart;FieldFilter=colour=red");
  e = engine(&o);
  assert_int_equal(trigger_engine_preload(e, &m1), 0);
  assert_int_equal(trigger_engine_preload(e, &m2), 0);
  work.user_len = work_args(payload, "a", 1);
  assert_false(feed(e, &work, 0));
  assert_int_equal(trigger_engine_problems(e, problems, sizeof(problems)), 1);
  assert_non_null(strstr(problems, "'colour' is not a field"));
  trigger_engine_free(e);
}

/* An engine that has read the manifest (as replay does first). */
static struct trigger_engine *engine_with_manifest(struct trigger_options *o)
{
  static uint8_t c1[4096], c2[4096];
  size_t half = (sizeof(manifest) - 1) / 2;
  struct etw_event m1 = manifest_chunk(c1, 2, 0, manifest, half);
  struct etw_event m2 = manifest_chunk(c2, 2, 1, manifest + half, sizeof(manifest) - 1 - half);
  struct trigger_engine *e = engine(o);
  assert_int_equal(trigger_engine_preload(e, &m1), 0);
  assert_int_equal(trigger_engine_preload(e, &m2), 0);
  return e;
}

/* WorkArgs with an item of 2,000 'x' and then tail. */
static void long_item(struct etw_event *ev, uint8_t *payload, const char *tail)
{
  uint32_t n = utf16_run(payload, 'x', 2000, tail);
  memset(payload + n, 0, 4); /* size */
  ev->user_len = n + 4;
}

/* A manifest event's string field is compared and correlated whole: a
 * filter on its end, and two items that differ only after 2,000 bytes
 * are two start/stop contexts. */
static void long_string_fields_are_matched_whole(void **state)
{
  static uint8_t payload[8192];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event work = event(&my_source, 5, 0, 10, 1, payload, 0);
  struct etw_event stop = event(&my_source, 6, 0, 10, 1, payload, 0);
  (void)state;
  spec_options(&o, "*MySource/WorkStart;FieldFilter=item~Deadlock$");
  e = engine_with_manifest(&o);
  long_item(&work, payload, "Deadlocked");
  assert_false(feed(e, &work, 0));
  long_item(&work, payload, "Deadlock");
  assert_true(feed(e, &work, 1));
  trigger_engine_free(e);
  spec_options(&o, "*MySource/Work/Start;TriggerMSec=5;StartStopID=item");
  e = engine_with_manifest(&o);
  long_item(&work, payload, "a");
  assert_false(feed(e, &work, 0));
  long_item(&stop, payload, "b");
  assert_false(feed(e, &stop, 10 * MS)); /* another item */
  long_item(&stop, payload, "a");
  assert_true(feed(e, &stop, 12 * MS));
  trigger_engine_free(e);
}

/* A TraceLogging event of tl_encode.h's making. */
static struct etw_event encoded_event(struct tl_encoded *t)
{
  struct etw_event ev = event(&my_source, 0, 0, 10, 1, t->data, (uint32_t)t->data_len);
  assert_int_equal(tl_encode_end(t), 0);
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_EVENT_SCHEMA_TL;
  ev.ext[0].size = (uint16_t)t->meta_len;
  ev.ext[0].data = t->meta;
  return ev;
}

/* An event "Hang" whose Reason is 2,000 'x' and then tail. */
static struct etw_event long_reason(struct tl_encoded *t, const char *tail)
{
  static char reason[2100];
  memset(reason, 'x', 2000);
  snprintf(reason + 2000, sizeof(reason) - 2000, "%s", tail);
  tl_encode_begin(t, "Hang");
  tl_encode_utf8(t, "Reason", reason);
  return encoded_event(t);
}

/* A TraceLogging string field is compared whole, as a manifest one is:
 * the filter sees its end, 2,000 bytes in. */
static void long_tracelogging_strings_are_matched_whole(void **state)
{
  static struct tl_encoded t;
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev;
  (void)state;
  spec_options(&o, "*MySource/Hang;FieldFilter=Reason~Deadlock$");
  e = engine(&o);
  ev = long_reason(&t, "Deadlocked");
  assert_false(feed(e, &ev, 0));
  ev = long_reason(&t, "Deadlock");
  assert_true(feed(e, &ev, 1));
  trigger_engine_free(e);
}

/* A TraceLogging event name longer than 255 bytes is not named by its
 * first 255 (the longest name a trigger takes). */
static void long_tracelogging_names_are_not_cut(void **state)
{
  static struct tl_encoded t;
  char name[301], spec[400];
  struct trigger_options o;
  struct trigger_engine *e;
  struct etw_event ev;
  (void)state;
  memset(name, 'N', 300);
  name[300] = '\0';
  tl_encode_begin(&t, name);
  tl_encode_utf8(&t, "Reason", "r");
  ev = encoded_event(&t);
  snprintf(spec, sizeof(spec), "*MySource/%.255s", name);
  spec_options(&o, spec);
  e = engine(&o);
  assert_false(feed(e, &ev, 0));
  trigger_engine_free(e);
}

static int setup(void **state)
{
  (void)state;
  setup_guid();
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(duration_pairs_by_thread_strictly_over),
    cmocka_unit_test(duration_pairs_by_activity_path_across_threads),
    cmocka_unit_test(level_and_keywords_follow_the_enable_rules),
    cmocka_unit_test(process_name_filter_waits_for_the_process),
    cmocka_unit_test(field_filter_operators),
    cmocka_unit_test(gc_predicates),
    cmocka_unit_test(bgc_final_pause_needs_gc_prep),
    cmocka_unit_test(exception_rules),
    cmocka_unit_test(exception_regex_sees_the_whole_message),
    cmocka_unit_test(http_status_codes),
    cmocka_unit_test(tracelogging_walk_of_a_struct),
    cmocka_unit_test(event_counter_threshold),
    cmocka_unit_test(names_without_a_schema_are_reported),
    cmocka_unit_test(manifest_reader),
    cmocka_unit_test(manifest_events_by_name_and_field),
    cmocka_unit_test(long_string_fields_are_matched_whole),
    cmocka_unit_test(long_tracelogging_strings_are_matched_whole),
    cmocka_unit_test(long_tracelogging_names_are_not_cut),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
