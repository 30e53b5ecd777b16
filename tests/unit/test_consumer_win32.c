/* The Win32 halves of the live triggers under Wine, each through its
 * swappable table (Wine's own real-time ETW delivers nothing, its pdh
 * knows two counters and its EvtSubscribe is a stub):
 * - consumer_win32.c: a fake OpenTraceW/ProcessTrace/CloseTrace checks the
 *   EVENT_TRACE_LOGFILEW it is given and pushes EVENT_RECORDs built from
 *   the gcevents sample through the real callback on the consumer's
 *   thread; a trigger engine fed by it fires at the gen2 GC found here in
 *   the payloads;
 * - counters_pdh_win32.c: a scripted PDH (English paths, wildcards, a
 *   missing instance, an unknown counter) and /StopOnPerfCounter arming;
 * - eventlog_win32.c: a scripted EvtSubscribe/EvtRender delivering one
 *   entry that fires /StopOnEventLogMessage. */
#include "tests/fakes/test_support.h"

#include "etw/session/consumer_win32.h"
#include "tests/fakes/fake_consumer_win32.h"
#include "triggers/os/counters_pdh_win32.h"
#include "triggers/os/eventlog_win32.h"

#include "etw/event/etw_event_record.h"
#include "etw/event/guid.h"
#include "src/base/error.h"
#include "tests/fakes/fake_consumer.h"
#include "triggers/trigger_engine.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"
#define SEC INT64_C(10000000)

/* The engine and what the callback saw. */
struct feed {
  struct trigger_engine *e;
  DWORD thread;
  uint64_t events;
};

static void feed_event(void *ctx, const struct etw_event *ev, int64_t ft)
{
  struct feed *f = ctx;
  f->thread = GetCurrentThreadId();
  f->events++;
  assert_int_equal(trigger_engine_advance(f->e, ft), 0);
  assert_int_equal(trigger_engine_event(f->e, ev, ft), 0);
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct gen2 {
  int64_t ft;
  int found;
};

/* CLR GCStart (id 1, v >= 1) with Depth >= 2 and Type != background. */
static int find_gen2(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                     const struct etl_clock *clock)
{
  struct gen2 *g = ctx;
  struct etw_guid clr;
  guid_parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", &clr);
  if (!fake_rt.perf_freq) {
    fake_rt.perf_freq = (uint64_t)lf->perf_freq;
    fake_rt.clock_ft = clock->base; /* the sample's own clock: no shift */
  }
  if (!g->found && (ev->has & ETW_HAS_DESCRIPTOR) && guid_equal(&ev->provider, &clr) &&
      ev->id == 1 && ev->version >= 1 && ev->user_len >= 16 && le32(ev->user_data + 4) >= 2 &&
      le32(ev->user_data + 12) != 1) {
    g->found = 1;
    g->ft = etl_clock_filetime(clock, ev->timestamp);
  }
  return 0;
}

static int setup(void **state)
{
  (void)state;
  fake_consumer_win32_install();
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  fake_consumer_win32_uninstall();
  counters_pdh_win32_set_api(NULL);
  eventlog_win32_set_api(NULL);
  return 0;
}

static void recorded_gen2_gc_fires_through_the_real_callback(void **state)
{
  char path[1024];
  struct gen2 g = { 0, 0 };
  struct trigger_options o;
  struct consumer c;
  struct consumer_stats st;
  struct feed f;
  const struct trigger_fire *fire;
  char err[256];
  (void)state;
  if (!test_sample_path(GC_SAMPLE, path, sizeof(path)))
    skip();
  assert_int_equal(fake_trace_foreach(path, find_gen2, &g), 0);
  assert_true(g.found);
  fake_rt.sample = path;

  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  memset(&f, 0, sizeof(f));
  assert_int_equal(trigger_engine_create(&f.e, &o, err, sizeof(err)), 0);
  assert_int_equal(trigger_engine_start(f.e, fake_rt.clock_ft, err, sizeof(err)), 0);

  consumer_system(&c);
  assert_string_equal(c.ops->name, "advapi32");
  assert_int_equal(c.ops->open(&c, "etwcapTrigger_77", feed_event, &f), 0);
  c.ops->close(&c, &st);
  /* The LOGFILE: real time, EVENT_RECORD callbacks, raw timestamps, ours. */
  assert_true(wcscmp(fake_rt.logger, L"etwcapTrigger_77") == 0);
  assert_int_equal(fake_rt.mode, PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD |
                              PROCESS_TRACE_MODE_RAW_TIMESTAMP);
  assert_true(fake_rt.callback_is_ours);
  assert_int_equal(fake_rt.opens, 1);
  assert_int_equal(fake_rt.closes, 1);
  assert_int_equal(fake_rt.violations, 0);
  /* ProcessTrace ran on a thread of its own, and the callback with it. */
  assert_true(fake_rt.thread != GetCurrentThreadId());
  assert_int_equal(f.thread, fake_rt.thread);
  assert_int_equal(f.events, fake_rt.delivered);
  assert_int_equal(st.events, fake_rt.delivered);
  assert_true(st.cpu_seconds >= 0.0);
  /* Fired at the GC's own instant. */
  assert_int_equal(trigger_engine_fire_count(f.e), 1);
  fire = trigger_engine_fire_at(f.e, 0);
  assert_string_equal(fire->trigger, "StopOnGen2GC");
  assert_int_equal(fire->filetime, g.ft);
  trigger_engine_free(f.e);
}

static void open_failure_is_translated_and_named(void **state)
{
  struct consumer c;
  struct consumer_stats st;
  struct feed f;
  (void)state;
  memset(&f, 0, sizeof(f));
  fake_rt.open_error = ERROR_ACCESS_DENIED;
  consumer_system(&c);
  assert_int_equal(c.ops->open(&c, "etwcapTrigger_1", feed_event, &f), ETWCAP_E_ACCES);
  assert_string_equal(c.api, "OpenTraceW");
  assert_int_equal(c.os_code, ERROR_ACCESS_DENIED);
  c.ops->close(&c, &st); /* safe after a failed open */
  assert_int_equal(st.events, 0);
  fake_rt.open_error = ERROR_WMI_INSTANCE_NOT_FOUND;
  assert_int_equal(c.ops->open(&c, "etwcapTrigger_1", feed_event, &f), ETWCAP_E_NO_SESSION);
}

/* --- scripted PDH ------------------------------------------------------------ */

static struct {
  wchar_t paths[4][256];
  unsigned path_count;
  unsigned collects;
  const double *values;
  size_t value_count;
  int two_instances;   /* a wildcard: two values, the second 5 lower */
  int no_instance;     /* the instance does not exist (yet) */
  int late_exists;     /* "late" instances exist from now on */
  unsigned late_adds;
} fp;

static PDH_STATUS WINAPI fp_open(LPCWSTR source, DWORD_PTR user, PDH_HQUERY *q)
{
  (void)source, (void)user;
  *q = (PDH_HQUERY)(uintptr_t)7;
  return ERROR_SUCCESS;
}

static PDH_STATUS WINAPI fp_add(PDH_HQUERY q, LPCWSTR path, DWORD_PTR user, PDH_HCOUNTER *c)
{
  (void)q, (void)user;
  if (wcsncmp(path, L"\\Nope", 5) == 0)
    return (PDH_STATUS)PDH_CSTATUS_NO_OBJECT;
  if (wcsstr(path, L"late")) {
    fp.late_adds++;
    if (!fp.late_exists)
      return (PDH_STATUS)PDH_CSTATUS_NO_INSTANCE;
  }
  if (fp.path_count < 4)
    wcsncpy(fp.paths[fp.path_count++], path, 255);
  *c = (PDH_HCOUNTER)(uintptr_t)9;
  return ERROR_SUCCESS;
}

static PDH_STATUS WINAPI fp_collect(PDH_HQUERY q)
{
  (void)q;
  fp.collects++;
  return fp.no_instance ? (PDH_STATUS)PDH_NO_DATA : ERROR_SUCCESS;
}

static PDH_STATUS WINAPI fp_array(PDH_HCOUNTER c, DWORD format, LPDWORD size, LPDWORD count,
                                  PPDH_FMT_COUNTERVALUE_ITEM_W items)
{
  /* collect 1 is the open's priming sample: values start at collect 2. */
  size_t k = fp.collects >= 2 ? fp.collects - 2 : 0;
  double v = fp.values[k < fp.value_count ? k : fp.value_count - 1];
  DWORD n = fp.two_instances ? 2 : 1, i;
  (void)c;
  assert_true(format & PDH_FMT_DOUBLE);
  if (!items || *size < n * sizeof(*items)) {
    *size = n * sizeof(*items);
    *count = n;
    return (PDH_STATUS)PDH_MORE_DATA;
  }
  for (i = 0; i < n; i++) {
    memset(&items[i], 0, sizeof(items[i]));
    items[i].szName = (LPWSTR)(i ? L"b" : L"a");
    items[i].FmtValue.CStatus = PDH_CSTATUS_VALID_DATA;
    items[i].FmtValue.doubleValue = i ? v - 5 : v;
  }
  *count = n;
  return ERROR_SUCCESS;
}

static PDH_STATUS WINAPI fp_close(PDH_HQUERY q)
{
  (void)q;
  return ERROR_SUCCESS;
}

static const struct counters_pdh_api fake_pdh = { fp_open, fp_add, fp_collect, fp_array,
                                                  fp_close };

static void pdh_counter_fires_after_arming(void **state)
{
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 95, 95 };
  static char *spec[] = { "Processor:% Processor Time:_Total > 90" };
  struct trigger_counter_source src;
  struct trigger_options o;
  struct trigger_engine *e;
  char err[256];
  int64_t t0 = INT64_C(133000000000000000), t;
  (void)state;
  memset(&fp, 0, sizeof(fp));
  fp.values = v;
  fp.value_count = sizeof(v) / sizeof(v[0]);
  counters_pdh_win32_set_api(&fake_pdh);
  trigger_options_init(&o);
  o.stop_on_perf_counter = spec;
  o.stop_on_perf_counter_count = 1;
  o.delay_after_trigger_sec = 0;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), 0);
  src = counters_pdh_system();
  trigger_engine_set_counter_source(e, &src);
  assert_int_equal(trigger_engine_start(e, t0, err, sizeof(err)), 0);
  /* The English path, as PdhAddEnglishCounterW takes it. */
  assert_true(wcscmp(fp.paths[0], L"\\Processor(_Total)\\% Processor Time") == 0);
  for (t = t0; t <= t0 + 12 * SEC; t += SEC / 5)
    assert_int_equal(trigger_engine_advance(e, t), 0);
  /* Four samples below arm it, four above fire it (MinSecForTrigger 3). */
  assert_int_equal(trigger_engine_fire_count(e), 1);
  assert_string_equal(trigger_engine_fire_at(e, 0)->trigger, "StopOnPerfCounter");
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, t0 + 7 * SEC);
  trigger_engine_free(e);
  counters_pdh_release(&src);
}

static void pdh_wildcards_missing_instances_and_unknown_counters(void **state)
{
  static const double v[] = { 40 };
  struct trigger_counter_spec spec;
  struct trigger_counter_source src;
  void *h = NULL;
  double value = -1;
  char err[300];
  (void)state;
  memset(&fp, 0, sizeof(fp));
  fp.values = v;
  fp.value_count = 1;
  fp.two_instances = 1;
  counters_pdh_win32_set_api(&fake_pdh);
  src = counters_pdh_system();
  assert_int_equal(trigger_parse_counter_spec("Process:Working Set:w3wp* > 100", &spec, err,
                                              sizeof(err)), 0);
  assert_int_equal(src.open(src.ctx, &spec, &h, err, sizeof(err)), 0);
  assert_true(wcscmp(fp.paths[0], L"\\Process(w3wp*)\\Working Set") == 0);
  /* '>': the largest of the instances. */
  assert_int_equal(src.read(src.ctx, h, 0, &value), 1);
  assert_true(value == 40);
  /* '<': the smallest. */
  src.close(src.ctx, h);
  assert_int_equal(trigger_parse_counter_spec("Process:Working Set:w3wp* < 100", &spec, err,
                                              sizeof(err)), 0);
  assert_int_equal(src.open(src.ctx, &spec, &h, err, sizeof(err)), 0);
  assert_int_equal(src.read(src.ctx, h, 0, &value), 1);
  assert_true(value == 35);
  /* An instance that does not exist yet reads 0 (PerfView), not an error. */
  fp.no_instance = 1;
  assert_int_equal(src.read(src.ctx, h, 0, &value), 0);
  src.close(src.ctx, h);
  /* A process not started yet: opened, read as 0, then read for real
   * once it exists. */
  fp.no_instance = 0;
  fp.two_instances = 0;
  assert_int_equal(trigger_parse_counter_spec("Process:Working Set:late > 100", &spec, err,
                                              sizeof(err)), 0);
  assert_int_equal(src.open(src.ctx, &spec, &h, err, sizeof(err)), 0);
  assert_int_equal(src.read(src.ctx, h, 0, &value), 0);
  fp.late_exists = 1;
  assert_int_equal(src.read(src.ctx, h, 0, &value), 1);
  assert_true(value == 40);
  assert_int_equal(fp.late_adds, 3); /* at open, at the first read, then it took */
  src.close(src.ctx, h);
  /* An unknown category: refused with the API and the code. */
  assert_int_equal(trigger_parse_counter_spec("Nope:Ctr:Inst > 1", &spec, err, sizeof(err)), 0);
  assert_int_equal(src.open(src.ctx, &spec, &h, err, sizeof(err)), ETWCAP_E_NOENT);
  assert_non_null(strstr(err, "PdhAddEnglishCounterW: PDH_CSTATUS_NO_OBJECT"));
  counters_pdh_release(&src);
}

/* --- scripted event log ---------------------------------------------------------- */

static struct {
  EVT_SUBSCRIBE_CALLBACK cb;
  PVOID ctx;
  wchar_t channel[64];
  DWORD flags;
  unsigned closes;
  const wchar_t *xml;
} fe;

static EVT_HANDLE WINAPI fe_subscribe(EVT_HANDLE session, HANDLE signal, LPCWSTR channel,
                                      LPCWSTR query, EVT_HANDLE bookmark, PVOID ctx,
                                      EVT_SUBSCRIBE_CALLBACK cb, DWORD flags)
{
  (void)session, (void)signal, (void)query, (void)bookmark;
  wcsncpy(fe.channel, channel, 63);
  fe.cb = cb;
  fe.ctx = ctx;
  fe.flags = flags;
  return (EVT_HANDLE)(uintptr_t)5;
}

static WINBOOL WINAPI fe_render(EVT_HANDLE context, EVT_HANDLE fragment, DWORD flags, DWORD size,
                                PVOID buffer, PDWORD used, PDWORD props)
{
  DWORD need = (DWORD)((wcslen(fe.xml) + 1) * sizeof(wchar_t));
  (void)context, (void)fragment;
  assert_int_equal(flags, EvtRenderEventXml);
  *used = need;
  *props = 0;
  if (size < need) {
    SetLastError(ERROR_INSUFFICIENT_BUFFER);
    return FALSE;
  }
  memcpy(buffer, fe.xml, need);
  return TRUE;
}

static EVT_HANDLE WINAPI fe_open_publisher(EVT_HANDLE session, LPCWSTR publisher, LPCWSTR path,
                                           LCID locale, DWORD flags)
{
  (void)session, (void)publisher, (void)path, (void)locale, (void)flags;
  return NULL; /* no message table: the EventData texts are the message */
}

static WINBOOL WINAPI fe_format(EVT_HANDLE pub, EVT_HANDLE ev, DWORD id, DWORD n,
                                PEVT_VARIANT values, DWORD flags, DWORD size, LPWSTR buf,
                                PDWORD used)
{
  (void)pub, (void)ev, (void)id, (void)n, (void)values, (void)flags, (void)size, (void)buf;
  *used = 0;
  return FALSE;
}

static WINBOOL WINAPI fe_close(EVT_HANDLE h)
{
  (void)h;
  fe.closes++;
  return TRUE;
}

static const struct eventlog_api fake_evt = { fe_subscribe, fe_render, fe_open_publisher,
                                              fe_format, fe_close };

struct messages {
  struct trigger_engine *e;
  unsigned n;
};

static void on_message(void *ctx, const struct trigger_message *m)
{
  struct messages *ms = ctx;
  ms->n++;
  assert_string_equal(m->log, "System");
  assert_string_equal(m->type, "Error");
  assert_int_equal(m->event_id, 7031);
  assert_int_equal(trigger_engine_advance(ms->e, m->ft), 0);
  assert_int_equal(trigger_engine_message(ms->e, m), 0);
}

static void event_log_entry_fires_the_trigger(void **state)
{
  struct eventlog_source src;
  struct trigger_options o;
  struct messages ms;
  void *h = NULL;
  char err[256];
  (void)state;
  memset(&fe, 0, sizeof(fe));
  fe.xml = L"<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
           L"<Provider Name='Service Control Manager'/><EventID Qualifiers='49152'>7031</EventID>"
           L"<Level>2</Level><TimeCreated SystemTime='2024-03-01T12:00:05.5000000Z'/></System>"
           L"<EventData><Data Name='param1'>W3SVC</Data><Data Name='param2'>terminated "
           L"unexpectedly</Data></EventData></Event>";
  eventlog_win32_set_api(&fake_evt);
  trigger_options_init(&o);
  o.stop_on_event_log_message = "System@w3svc TERMINATED";
  memset(&ms, 0, sizeof(ms));
  assert_int_equal(trigger_engine_create(&ms.e, &o, err, sizeof(err)), 0);
  /* 2024-03-01T12:00:00Z */
  assert_int_equal(trigger_engine_start(ms.e, INT64_C(133537680000000000), err, sizeof(err)), 0);
  src = eventlog_system();
  assert_int_equal(src.open(src.ctx, "System", on_message, &ms, &h, err, sizeof(err)), 0);
  assert_true(wcscmp(fe.channel, L"System") == 0);
  assert_int_equal(fe.flags, EvtSubscribeToFutureEvents);
  /* Windows delivers one entry on its thread. */
  assert_int_equal(fe.cb(EvtSubscribeActionDeliver, fe.ctx, (EVT_HANDLE)(uintptr_t)6), 0);
  src.close(src.ctx, h);
  assert_int_equal(fe.closes, 1);
  assert_int_equal(ms.n, 1);
  assert_int_equal(trigger_engine_fire_count(ms.e), 1);
  assert_string_equal(trigger_engine_fire_at(ms.e, 0)->trigger, "StopOnEventLogMessage");
  assert_int_equal(trigger_engine_fire_at(ms.e, 0)->filetime,
                   INT64_C(133537680000000000) + 55 * SEC / 10);
  trigger_engine_free(ms.e);
}

static void subscribe_failure_names_the_log(void **state)
{
  struct eventlog_source src = eventlog_system();
  void *h = NULL;
  char err[256];
  (void)state;
  /* Wine's own EvtSubscribe is the stub that fails: the real wevtapi. */
  eventlog_win32_set_api(NULL);
  if (src.open(src.ctx, "Application", on_message, NULL, &h, err, sizeof(err)) == 0) {
    src.close(src.ctx, h);
    skip(); /* a real event log answered (Windows) */
  }
  assert_non_null(strstr(err, "Application"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(recorded_gen2_gc_fires_through_the_real_callback),
    T(open_failure_is_translated_and_named),
    T(pdh_counter_fires_after_arming),
    T(pdh_wildcards_missing_instances_and_unknown_counters),
    T(event_log_entry_fires_the_trigger),
    T(subscribe_failure_names_the_log),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
