/* Exact fire times of the trigger engine on the real samples.  The expected
 * instants are found here, independently of the engine: every event is read
 * with the ETL reader in time order, and the GC, exception, process and
 * TraceLogging payloads are decoded by hand from their documented layouts
 * (ClrEtwAll.man GCStart_V1/V2, GCEnd_V1, GCSuspendEE_V1, ExceptionThrown_V1;
 * the kernel Process_V4 class; TraceLoggingProvider.h event metadata). */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"
#define NET_SAMPLE "ms-perfview__net.4.5.2.x64.etl.zip"
#define DIAG_SAMPLE "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip"

enum rec_kind { R_CLR, R_TL, R_PROCESS, R_ES, R_OTHER };

struct rec {
  enum rec_kind kind;
  size_t seq; /* order of reading: files in zip order, each in time order */
  uint64_t raw;
  int64_t ft;
  uint32_t pid, tid;
  uint16_t id;
  uint8_t version, opcode, ptr;
  char name[64]; /* TraceLogging event name */
  uint8_t data[512];
  uint32_t len;
};

struct recs {
  struct rec *r;
  size_t n, cap;
  int64_t first_ft;
  int any;
  uint8_t es_guid[16]; /* an EventSource whose events and manifest are kept */
  char manifest[65536];
};

static const uint8_t clr_guid[16] = { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e,
                                      0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 };

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static int collect(void *ctx, const char *display, struct etl_reader *r)
{
  struct recs *rs = ctx;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  int rc;
  (void)display;
  assert_int_equal(etl_timeorder_open(&t, r), 0);
  while ((rc = etl_timeorder_next(t, &ev)) == 1) {
    struct rec x;
    uint8_t g[16];
    unsigned i;
    memset(&x, 0, sizeof(x));
    x.raw = ev.timestamp;
    x.ft = etl_clock_filetime(etl_reader_clock(r), ev.timestamp);
    if (!rs->any || x.ft < rs->first_ft)
      rs->first_ft = x.ft;
    rs->any = 1;
    x.kind = R_OTHER;
    guid_to_bytes(&ev.provider, g);
    if ((ev.has & ETW_HAS_PROVIDER) && !memcmp(g, clr_guid, 16))
      x.kind = R_CLR;
    else if (ev.is_kernel && ev.group == 3)
      x.kind = R_PROCESS;
    else if ((ev.has & ETW_HAS_PROVIDER) && !memcmp(g, rs->es_guid, 16)) {
      x.kind = R_ES;
      /* ManifestData: 8 bytes of envelope, then the XML (one chunk here). */
      if (ev.id == 0xFFFE && ev.user_len > 8 && ev.user_len - 8 < sizeof(rs->manifest)) {
        memcpy(rs->manifest, ev.user_data + 8, ev.user_len - 8);
        rs->manifest[ev.user_len - 8] = '\0';
      }
    }
    for (i = 0; i < ev.ext_count; i++)
      if (ev.ext[i].type == 11 && ev.ext[i].size > 3) { /* EVENT_SCHEMA_TL */
        const uint8_t *m = ev.ext[i].data;
        unsigned p = 2, n = 0;
        while (p < ev.ext[i].size && (m[p] & 0x80))
          p++;
        p++;
        while (p < ev.ext[i].size && m[p] && n + 1 < sizeof(x.name))
          x.name[n++] = (char)m[p++];
        x.kind = R_TL;
      }
    if (x.kind == R_OTHER)
      continue;
    x.pid = ev.pid;
    x.tid = ev.tid;
    x.id = ev.id;
    x.version = ev.version;
    x.opcode = ev.opcode;
    x.ptr = ev.pointer_size;
    x.len = ev.user_len < sizeof(x.data) ? ev.user_len : sizeof(x.data);
    memcpy(x.data, ev.user_data, x.len);
    if (rs->n == rs->cap) {
      rs->cap = rs->cap ? rs->cap * 2 : 1024;
      rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
      assert_non_null(rs->r);
    }
    x.seq = rs->n;
    rs->r[rs->n++] = x;
  }
  assert_int_equal(rc, 0);
  etl_timeorder_free(t);
  return 0;
}

static int by_time(const void *a, const void *b)
{
  const struct rec *x = a, *y = b;
  if (x->ft != y->ft)
    return x->ft < y->ft ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq; /* ties keep file order */
}

static struct recs *load_es(const char *sample, const char *es_guid)
{
  char path[1024], err[512];
  struct recs *rs;
  test_sample_path(sample, path, sizeof(path)); /* skips the test without the samples */
  rs = calloc(1, sizeof(*rs));
  if (es_guid) {
    struct etw_guid g;
    assert_int_equal(guid_parse(es_guid, &g), 0);
    guid_to_bytes(&g, rs->es_guid);
  }
  assert_int_equal(etl_source_foreach(path, collect, rs, err, sizeof(err)), 0);
  /* The files of a zip are merged by time; ties keep file order. */
  qsort(rs->r, rs->n, sizeof(*rs->r), by_time);
  return rs;
}

static struct recs *load(const char *sample)
{
  return load_es(sample, NULL);
}

static void unload(struct recs *rs)
{
  free(rs->r);
  free(rs);
}

/* --- running the engine ------------------------------------------------------- */

struct fires {
  struct trigger_fire f[16];
  size_t n;
};

static void on_fire(void *ctx, const struct trigger_fire *f)
{
  struct fires *fs = ctx;
  if (fs->n < 16)
    fs->f[fs->n++] = *f;
}

static void replay(const char *sample, const struct trigger_options *o, struct fires *fs)
{
  char path[1024], err[1024];
  struct trigger_engine *e = NULL;
  struct trigger_replay_stats st;
  int rc;
  memset(fs, 0, sizeof(*fs));
  test_sample_path(sample, path, sizeof(path));
  rc = trigger_engine_create(&e, o, err, sizeof(err));
  if (rc)
    fail_msg("engine: %s", err);
  rc = trigger_replay_run(path, e, 0, on_fire, fs, &st, err, sizeof(err));
  if (rc)
    fail_msg("replay: %s", err);
  trigger_engine_free(e);
}

static void expect_fire_at(const struct fires *fs, const char *trigger, const struct rec *r)
{
  if (!r) {
    assert_int_equal(fs->n, 0);
    return;
  }
  assert_true(fs->n >= 1);
  assert_string_equal(fs->f[0].trigger, trigger);
  assert_int_equal(fs->f[0].raw, r->raw);
  assert_int_equal(fs->f[0].filetime, r->ft);
  assert_int_equal(fs->f[0].pid, r->pid);
}

/* --- expectations found by hand --------------------------------------------------- */

static int is_gc_start(const struct rec *r)
{
  return r->kind == R_CLR && r->id == 1 && r->version >= 1 && r->len >= 16;
}

static const struct rec *first_gen2(const struct recs *rs)
{
  size_t i;
  for (i = 0; i < rs->n; i++)
    if (is_gc_start(&rs->r[i]) && le32(rs->r[i].data + 4) >= 2 && le32(rs->r[i].data + 12) != 1)
      return &rs->r[i];
  return NULL;
}

/* UTF-16 (ASCII text) at *off into out; advances past the NUL. */
static void utf16(const struct rec *r, uint32_t *off, char *out, size_t cap)
{
  size_t n = 0;
  while (*off + 1 < r->len && le16(r->data + *off)) {
    if (n + 1 < cap)
      out[n++] = (char)r->data[*off];
    *off += 2;
  }
  *off += 2;
  out[n] = '\0';
}

static const struct rec *first_exception(const struct recs *rs, const char *needle)
{
  size_t i;
  for (i = 0; i < rs->n; i++) {
    const struct rec *r = &rs->r[i];
    char type[256], msg[256], full[520];
    uint32_t off = 0;
    if (r->kind != R_CLR || r->id != 80)
      continue;
    utf16(r, &off, type, sizeof(type));
    utf16(r, &off, msg, sizeof(msg));
    snprintf(full, sizeof(full), "%s: %s", type, msg);
    if (!needle || strstr(full, needle))
      return r;
  }
  return NULL;
}

/* The first stop whose start (same process and key, the last start wins)
 * is more than ms before it.  start_id/stop_id are CLR event ids; key 0 is
 * the first payload field (GC Count), key 1 the thread. */
/* With decay_hours > 0 the limit at a stop is PerfView's
 * (int)(ms * (1 - hours since decay_from / decay_hours)). */
static double decay_hours;
static int64_t decay_from;

static const struct rec *first_pair_over(const struct recs *rs, uint16_t start_id,
                                         uint16_t stop_id, int key_thread, double ms,
                                         uint32_t only_pid, int (*start_ok)(const struct rec *),
                                         double *max_ms)
{
  struct open {
    uint32_t pid, key;
    int64_t ft;
  } *open = calloc(rs->n + 1, sizeof(*open));
  size_t nopen = 0, i, j;
  const struct rec *hit = NULL;
  *max_ms = 0;
  for (i = 0; i < rs->n; i++) {
    const struct rec *r = &rs->r[i];
    uint32_t key;
    if (r->kind != R_CLR || (r->id != start_id && r->id != stop_id))
      continue;
    if (only_pid && r->pid != only_pid)
      continue;
    key = key_thread ? r->tid : (r->len >= 4 ? le32(r->data) : 0);
    for (j = 0; j < nopen; j++)
      if (open[j].pid == r->pid && open[j].key == key)
        break;
    if (r->id == start_id) {
      if (start_ok && !start_ok(r))
        continue;
      open[j].pid = r->pid;
      open[j].key = key;
      open[j].ft = r->ft;
      if (j == nopen)
        nopen++;
    } else if (j < nopen) {
      double d = (double)(r->ft - open[j].ft) / 10000.0, limit = ms;
      if (decay_hours > 0)
        limit = (double)(int64_t)(ms * (1.0 - (double)(r->ft - decay_from) / 36e9 / decay_hours));
      if (d > *max_ms)
        *max_ms = d;
      if (!hit && d > limit)
        hit = r;
      open[j] = open[--nopen];
    }
  }
  free(open);
  return hit;
}

static int not_background(const struct rec *r)
{
  return r->version >= 1 && le32(r->data + 12) != 1;
}

static int gc_prep(const struct rec *r)
{
  uint32_t reason = r->version >= 1 ? le32(r->data) : le16(r->data);
  return reason == 6;
}

/* --- tests ---------------------------------------------------------------------- */

static void gen2_fires_on_the_first_blocking_gen2_gc_start(void **state)
{
  struct recs *rs = load(GC_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  const struct rec *want = first_gen2(rs);
  (void)state;
  assert_non_null(want); /* gcevents has an induced gen2 GC */
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  replay(GC_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGen2GC", want);
  assert_int_equal(fs.n, 1);
  assert_non_null(strstr(fs.f[0].detail, "Depth=2"));
  /* The collection would stop DelayAfterTriggerSec (5) later. */
  assert_int_equal(fs.f[0].stop_at, want->ft + 5 * TRIGGER_TICKS_PER_SEC);
  /* /StopOnGCEvent: (empty) is the same trigger. */
  trigger_options_init(&o);
  o.stop_on_gc_event = "";
  replay(GC_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCEvent", want);
  unload(rs);
}

static void gen2_does_not_fire_where_no_gc_is_gen2(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  (void)state;
  assert_null(first_gen2(rs));
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  replay(NET_SAMPLE, &o, &fs);
  assert_int_equal(fs.n, 0);
  unload(rs);
}

static void exception_fires_on_the_first_matching_clr_exception(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  static const struct {
    const char *regex, *needle;
    int fires;
  } cases[] = {
    { "", NULL, 1 },                           /* empty: any exception */
    { "FileNotFound", "FileNotFound", 1 },      /* unanchored */
    { "^System\\.IO\\.", "System.IO.", 1 },
    { "not active\\.$", "not active.", 1 },
    { "filenotfound", NULL, 0 },               /* case-sensitive, as .NET's Regex */
    { "ArgumentException", NULL, 0 },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const struct rec *want = cases[i].fires ? first_exception(rs, cases[i].needle) : NULL;
    if (cases[i].fires)
      assert_non_null(want);
    trigger_options_init(&o);
    o.stop_on_exception = cases[i].regex;
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnException", want);
    if (want)
      assert_non_null(strstr(fs.f[0].detail, "System.IO.FileNotFoundException: The session"));
  }
  /* The same event by its ID through /StopOnEtwEvent. */
  trigger_options_init(&o);
  {
    char *spec[] = { "Microsoft-Windows-DotNETRuntime/EventID(80);Keywords=0x8000" };
    o.stop_on_etw_event = spec;
    o.stop_on_etw_event_count = 1;
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnEtwEvent", first_exception(rs, NULL));
  }
  unload(rs);
}

static void gc_over_msec_fires_on_the_first_long_enough_gc(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  double max_ms = 0;
  int64_t limits[6];
  size_t i;
  (void)state;
  first_pair_over(rs, 1, 2, 0, 1e18, 0, not_background, &max_ms);
  assert_true(max_ms > 3);
  limits[0] = 1;
  limits[1] = 3;
  limits[2] = (int64_t)(max_ms / 2);
  limits[3] = (int64_t)max_ms - 1;
  limits[4] = (int64_t)max_ms + 1; /* nothing is that long */
  limits[5] = 100000;
  for (i = 0; i < 6; i++) {
    double m;
    const struct rec *want =
      first_pair_over(rs, 1, 2, 0, (double)limits[i], 0, not_background, &m);
    trigger_options_init(&o);
    o.stop_on_gc_over_msec = limits[i];
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnGCOverMsec", want);
    if (want)
      assert_int_equal(fs.f[0].raw, want->raw);
  }
  /* The generic form: start/stop over TriggerMSec, default stop GC/Stop. */
  {
    char spec[128];
    char *specs[1] = { spec };
    double m;
    const struct rec *want = first_pair_over(rs, 1, 2, 0, (double)limits[2], 0, NULL, &m);
    snprintf(spec, sizeof(spec), "Clr/GC/Start;TriggerMSec=%lld", (long long)limits[2]);
    trigger_options_init(&o);
    o.stop_on_etw_event = specs;
    o.stop_on_etw_event_count = 1;
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnEtwEvent", want);
  }
  unload(rs);
}

static void process_filters_by_pid_and_by_name(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  double m;
  /* Test.x64.exe (pid 3676) does the GCs; PerfView.exe (pid 3988) has a few
   * and the exception.  Names come from the kernel's Process events. */
  const struct rec *test = first_pair_over(rs, 1, 2, 0, 1.0, 3676, not_background, &m);
  const struct rec *perfview = first_pair_over(rs, 1, 2, 0, 1.0, 3988, not_background, &m);
  (void)state;
  assert_non_null(test);
  assert_int_equal(test->pid, 3676);
  trigger_options_init(&o);
  o.stop_on_gc_over_msec = 1;
  o.process = "3676";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCOverMsec", test);
  o.process = "Test.x64";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCOverMsec", test);
  o.process = "test.x64.exe";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCOverMsec", test);
  o.process = "PerfView";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCOverMsec", perfview);
  o.process = "NoSuchProcess";
  replay(NET_SAMPLE, &o, &fs);
  assert_int_equal(fs.n, 0);
  /* The exception is PerfView's, so a filter on Test.x64 hides it. */
  trigger_options_init(&o);
  o.stop_on_exception = "";
  o.process = "Test.x64";
  replay(NET_SAMPLE, &o, &fs);
  assert_int_equal(fs.n, 0);
  o.process = "PerfView.exe";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnException", first_exception(rs, NULL));
  unload(rs);
}

static void suspend_and_bgc_pause_pair_by_thread(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  double max_ms = 0, m;
  const struct rec *want;
  (void)state;
  first_pair_over(rs, 9, 8, 1, 1e18, 0, NULL, &max_ms);
  want = first_pair_over(rs, 9, 8, 1, max_ms / 2, 0, NULL, &m);
  assert_non_null(want);
  trigger_options_init(&o);
  o.stop_on_gc_suspend_over_msec = (int64_t)(max_ms / 2) > 0 ? (int64_t)(max_ms / 2) : 1;
  want = first_pair_over(rs, 9, 8, 1, (double)o.stop_on_gc_suspend_over_msec, 0, NULL, &m);
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnGCSuspendOverMSec", want);
  /* /StopOnGCEvent:SuspendOverMsec=N is the same measurement. */
  {
    char spec[64];
    snprintf(spec, sizeof(spec), "SuspendOverMsec=%lld", (long long)o.stop_on_gc_suspend_over_msec);
    trigger_options_init(&o);
    o.stop_on_gc_event = spec;
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnGCEvent", want);
  }
  /* The suspensions here are all under a millisecond, which no whole-ms
   * threshold can catch; a threshold decaying to zero within microseconds
   * of the start does, and checks the decay arithmetic on the way. */
  {
    char *spec[] = { "Clr/GC/SuspendEEStart;StopEvent=GC/SuspendEEStop;StartStopID=ThreadID;"
                     "TriggerMSec=2;DecayToZeroHours=0.000001" };
    decay_hours = 0.000001;
    decay_from = rs->first_ft;
    want = first_pair_over(rs, 9, 8, 1, 2.0, 0, NULL, &m);
    decay_hours = 0;
    assert_non_null(want);
    trigger_options_init(&o);
    o.stop_on_etw_event = spec;
    o.stop_on_etw_event_count = 1;
    replay(NET_SAMPLE, &o, &fs);
    expect_fire_at(&fs, "StopOnEtwEvent", want);
    assert_non_null(strstr(fs.f[0].detail, "decayed from 2 ms"));
  }
  /* Background GC final pauses: suspensions for GC prep only. */
  trigger_options_init(&o);
  o.stop_on_bgc_final_pause_over_msec = 1;
  want = first_pair_over(rs, 9, 3, 1, 1.0, 0, gc_prep, &m);
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnBGCFinalPauseOverMsec", want);
  unload(rs);
}

static void field_filter_on_a_clr_field(void **state)
{
  struct recs *rs = load(GC_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  char *spec[] = { "Microsoft-Windows-DotNETRuntime/GC/Start;FieldFilter=Depth>=1" };
  const struct rec *want = NULL;
  size_t i;
  (void)state;
  for (i = 0; i < rs->n && !want; i++)
    if (is_gc_start(&rs->r[i]) && le32(rs->r[i].data + 4) >= 1)
      want = &rs->r[i];
  trigger_options_init(&o);
  o.stop_on_etw_event = spec;
  o.stop_on_etw_event_count = 1;
  replay(GC_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  unload(rs);
}

static void tracelogging_event_by_name_and_field(void **state)
{
  struct recs *rs = load(DIAG_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  char *by_name[] = { "*Microsoft-Diagnostics-DiagnosticSource/Activity2Start" };
  char *by_field[] = { "*Microsoft-Diagnostics-DiagnosticSource/Message;FieldFilter=Message~"
                       "suppressing" };
  const struct rec *want = NULL;
  size_t i;
  (void)state;
  for (i = 0; i < rs->n && !want; i++)
    if (rs->r[i].kind == R_TL && !strcmp(rs->r[i].name, "Activity2Start"))
      want = &rs->r[i];
  assert_non_null(want);
  trigger_options_init(&o);
  o.stop_on_etw_event = by_name;
  o.stop_on_etw_event_count = 1;
  replay(DIAG_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  /* "Message" events whose one UTF-16 field holds "suppressing". */
  want = NULL;
  for (i = 0; i < rs->n && !want; i++) {
    const struct rec *r = &rs->r[i];
    char text[512];
    uint32_t off = 0;
    if (r->kind != R_TL || strcmp(r->name, "Message"))
      continue;
    utf16(r, &off, text, sizeof(text));
    if (strstr(text, "suppressing"))
      want = r;
  }
  assert_non_null(want);
  o.stop_on_etw_event = by_field;
  replay(DIAG_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  unload(rs);
}

/* Process_V4 on a 64-bit kernel: ImageFileName after the SID. */
static void process_name(const struct rec *r, char *out, size_t cap)
{
  uint32_t off = 36, n = 0;
  if (le32(r->data + off) != 0)
    off += 16 + 8 + 4u * r->data[off + 16 + 1];
  else
    off += 4;
  while (off < r->len && r->data[off] && n + 1 < cap)
    out[n++] = (char)r->data[off++];
  out[n] = '\0';
}

static void kernel_event_with_a_regex_field_filter(void **state)
{
  struct recs *rs = load(DIAG_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  char *spec[] = { "Windows Kernel/Process/Start;FieldFilter=ImageFileName~^CMD\\.exe$" };
  const struct rec *want = NULL;
  size_t i;
  (void)state;
  for (i = 0; i < rs->n && !want; i++) {
    char name[128];
    if (rs->r[i].kind != R_PROCESS || rs->r[i].opcode != 1 || rs->r[i].version != 4 ||
        rs->r[i].ptr != 8)
      continue;
    process_name(&rs->r[i], name, sizeof(name));
    if (!strcmp(name, "cmd.exe"))
      want = &rs->r[i];
  }
  assert_non_null(want);
  trigger_options_init(&o);
  o.stop_on_etw_event = spec;
  o.stop_on_etw_event_count = 1;
  replay(DIAG_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  assert_non_null(strstr(fs.f[0].detail, "Process/Start"));
  unload(rs);
}

static void max_collect_sec_and_collect_multiple(void **state)
{
  struct recs *rs = load(NET_SAMPLE);
  struct trigger_options o;
  struct fires fs;
  double m;
  const struct rec *second;
  (void)state;
  trigger_options_init(&o);
  o.max_collect_sec = 4;
  replay(NET_SAMPLE, &o, &fs);
  assert_int_equal(fs.n, 1);
  assert_string_equal(fs.f[0].trigger, "MaxCollectSec");
  assert_int_equal(fs.f[0].filetime, rs->first_ft + 4 * TRIGGER_TICKS_PER_SEC);
  assert_int_equal(fs.f[0].stop_at, fs.f[0].filetime); /* no delay after MaxCollectSec */
  assert_true(fs.f[0].has_raw);

  /* Four collections: each next one starts DelayAfterTriggerSec after the
   * previous fire and watches with fresh state (starts seen before the
   * restart are forgotten). */
  trigger_options_init(&o);
  o.stop_on_gc_over_msec = 1;
  o.collect_multiple = 4;
  o.delay_after_trigger_sec = 1;
  replay(NET_SAMPLE, &o, &fs);
  {
    struct recs later = *rs;
    size_t k, i = 0;
    int64_t restart = rs->first_ft;
    for (k = 0; k < 4; k++) {
      while (i < rs->n && rs->r[i].ft < restart)
        i++;
      later.r = rs->r + i;
      later.n = rs->n - i;
      second = first_pair_over(&later, 1, 2, 0, 1.0, 0, not_background, &m);
      if (!second)
        break;
      assert_true(fs.n > k);
      assert_int_equal(fs.f[k].collection, k + 1);
      assert_int_equal(fs.f[k].raw, second->raw);
      assert_int_equal(fs.f[k].stop_at, second->ft + TRIGGER_TICKS_PER_SEC);
      restart = second->ft + TRIGGER_TICKS_PER_SEC;
    }
    assert_true(k >= 2); /* the sample has GCs over 1 ms in several collections */
    assert_int_equal(fs.n, k);
  }
  unload(rs);
}

/* The id of the manifest's <event> whose attributes hold `attrs` (found by
 * plain text search in the XML the trace carries). */
static int manifest_event_id(const char *xml, const char *attrs)
{
  const char *hit = strstr(xml, attrs), *p;
  assert_non_null(hit);
  for (p = hit; p > xml && strncmp(p, "<event value=\"", 14); p--)
    ;
  assert_true(p > xml);
  return atoi(p + 14);
}

static const struct rec *first_es_event(const struct recs *rs, int id)
{
  size_t i;
  for (i = 0; i < rs->n; i++)
    if (rs->r[i].kind == R_ES && rs->r[i].id == id)
      return &rs->r[i];
  return NULL;
}

static void eventsource_events_named_from_the_manifest(void **state)
{
  struct trigger_options o;
  struct fires fs;
  struct recs *rs;
  const struct rec *want = NULL;
  char *spec[1];
  int id;
  size_t i;
  (void)state;
  /* PerfView's own EventSource in net.4.5.2: its manifest names event 2
   * Tracing/Start (task Tracing, opcode win:Start). */
  rs = load_es(NET_SAMPLE, "a8a71ac1-040f-54a2-07ca-00a89b5ab761");
  id = manifest_event_id(rs->manifest, "opcode=\"win:Start\" task=\"Tracing\"");
  want = first_es_event(rs, id);
  assert_non_null(want);
  spec[0] = "*PerfView/Tracing/Start";
  trigger_options_init(&o);
  o.stop_on_etw_event = spec;
  o.stop_on_etw_event_count = 1;
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  /* A field of its template: the first ProviderEnableParameters event whose
   * providerName (its first field, UTF-16) says Kernel-Process. */
  id = manifest_event_id(rs->manifest, "task=\"ProviderEnableParameters\"");
  want = NULL;
  for (i = 0; i < rs->n && !want; i++) {
    char name[256];
    uint32_t off = 0;
    if (rs->r[i].kind != R_ES || rs->r[i].id != id)
      continue;
    utf16(&rs->r[i], &off, name, sizeof(name));
    if (strstr(name, "Kernel-Process"))
      want = &rs->r[i];
  }
  assert_non_null(want);
  spec[0] = "*PerfView/ProviderEnableParameters;FieldFilter=providerName~kernel-PROCESS$";
  replay(NET_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  assert_non_null(strstr(fs.f[0].detail, "providerName=Microsoft-Windows-Kernel-Process"));
  unload(rs);
  /* Tx's EventSource, by method name (the manifest's symbol). */
  rs = load_es("ms-Tx__BondEtwSample.etl", "4f8f06bf-8261-4099-ae5f-07c54bbcfab3");
  id = manifest_event_id(rs->manifest, "symbol=\"WriteManifestPayload\"");
  want = first_es_event(rs, id);
  assert_non_null(want);
  spec[0] = "4f8f06bf-8261-4099-ae5f-07c54bbcfab3/WriteManifestPayload";
  replay("ms-Tx__BondEtwSample.etl", &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  unload(rs);
  /* The TPL EventSource (PerfView's .NETTasks) in the diaghub capture:
   * TaskScheduled/Send, an opcode of the manifest's own. */
  rs = load_es(DIAG_SAMPLE, "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5");
  id = manifest_event_id(rs->manifest, "opcode=\"win:Send\" task=\"TaskScheduled\"");
  want = first_es_event(rs, id);
  assert_non_null(want);
  spec[0] = ".NETTasks/TaskScheduled/Send;Level=Verbose";
  replay(DIAG_SAMPLE, &o, &fs);
  expect_fire_at(&fs, "StopOnEtwEvent", want);
  unload(rs);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(gen2_fires_on_the_first_blocking_gen2_gc_start),
    cmocka_unit_test(gen2_does_not_fire_where_no_gc_is_gen2),
    cmocka_unit_test(exception_fires_on_the_first_matching_clr_exception),
    cmocka_unit_test(gc_over_msec_fires_on_the_first_long_enough_gc),
    cmocka_unit_test(process_filters_by_pid_and_by_name),
    cmocka_unit_test(suspend_and_bgc_pause_pair_by_thread),
    cmocka_unit_test(field_filter_on_a_clr_field),
    cmocka_unit_test(tracelogging_event_by_name_and_field),
    cmocka_unit_test(kernel_event_with_a_regex_field_filter),
    cmocka_unit_test(max_collect_sec_and_collect_multiple),
    cmocka_unit_test(eventsource_events_named_from_the_manifest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
