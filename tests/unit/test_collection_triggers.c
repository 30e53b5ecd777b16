/* `collect` with live triggers against the fake controller, the fake
 * consumer (a real sample's events through etw_event_from_record), a
 * scripted counter source, a scripted event log and a scripted command
 * runner, on a virtual clock: the trigger session is started with what the
 * triggers need and stopped, the engine fires at the instant the events
 * themselves say, the capture stops on the common path, /CollectMultiple
 * restarts and names its outputs, /StopCommand runs with the output's
 * name, and 'etwcap stop' ends a CollectMultiple run.  Runs natively and
 * under Wine. */
#include "tests/fakes/test_support.h"

#include "etw/event/builtin_events.h"
#include "etw/event/guid.h"
#include "etw/event/tracelogging.h"
#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/os/os_version.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"
#include "src/base/zip/zip_member_text.h"
#include "src/capture/periodic_rundown_files.h"
#include "src/capture/session_record.h"
#include "src/os/console.h"
#include "tests/fakes/fake_consumer.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/fake_session_events.h"
#include "tests/fakes/log_capture.h"
#include "tests/fakes/run_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unzip.h>
#include <zip.h>

#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"
#define CLR_GUID "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
#define T0 INT64_C(133232283966946549) /* fake_env's clock at 0 ms */

struct world {
  struct fake_controller fake;
  struct fake_clock clock;
  struct fake_consumer consumer;
  struct collection_env env;
  struct trigger_counter_source counters;
  struct eventlog_source eventlog;
  char data[512], base[512];
  struct log_capture log;
  /* scripted counter: one value per read, the last one repeated */
  const double *values;
  size_t value_count, reads;
  /* scripted event log */
  eventlog_fn log_fn;
  void *log_ctx;
  char log_name[64];
  uint64_t message_at_ms;
  int message_sent;
  /* 'etwcap stop' from another process at this time */
  uint64_t request_at_ms;
  char request_for[600];
  const char *request_text; /* "stop" unless set */
  int request_sent, base_record_seen;
  uint64_t ctrl_c_at_ms;
  int ctrl_c_sent;
  /* /StopCommand */
  char commands[4][1024];
  size_t command_count;
  /* /EventLog entries, and the user session losing events at this time */
  unsigned entries[32];
  size_t entry_count;
  uint64_t lose_events_at_ms;
  /* /MonitorPerfCounter: the events written, decoded, and when */
  char monitored[16][128];
  double monitored_value[16];
  uint64_t monitored_at_ms[16];
  size_t monitored_count;
};

static struct world *W;

static int logged(const struct world *w, const char *text)
{
  return log_capture_has(&w->log, text);
}

static int exists(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

static void remove_all(const char *base)
{
  static const char *const suffixes[] = {
    "",       ".zip",          ".zip.tmp", ".merged.tmp", SESSION_RECORD_SUFFIX,
    SESSION_REQUEST_SUFFIX, NULL
  };
  static const char *const siblings[] = { ".kernel.etl", ".clrRundown.etl", NULL };
  char stem[512], path[700];
  size_t i, j, len = strlen(base);
  for (j = 0; j <= 3; j++) {
    if (j)
      snprintf(stem, sizeof(stem), "%.*s.%u.etl", (int)(len - 4), base, (unsigned)j);
    else
      snprintf(stem, sizeof(stem), "%s", base);
    for (i = 0; suffixes[i]; i++) {
      snprintf(path, sizeof(path), "%s%s", stem, suffixes[i]);
      os_remove(path);
    }
    for (i = 0; siblings[i]; i++) {
      snprintf(path, sizeof(path), "%.*s%s", (int)(strlen(stem) - 4), stem, siblings[i]);
      os_remove(path);
    }
  }
}

/* --- scripted counters, event log and command runner ------------------------ */

static int counter_open(void *ctx, const struct trigger_counter_spec *spec, void **handle,
                        char *err, size_t cap)
{
  (void)ctx;
  if (strcmp(spec->category, "Processor") != 0 && strcmp(spec->category, "Memory") != 0) {
    snprintf(err, cap, "no counter category '%s'", spec->category);
    return ETWCAP_E_NOENT;
  }
  *handle = W;
  return 0;
}

static int counter_read(void *ctx, void *handle, int64_t now, double *value)
{
  struct world *w = handle;
  (void)ctx, (void)now;
  if (!w->value_count)
    return TRIGGER_COUNTER_NO_SAMPLE;
  *value = w->values[w->reads < w->value_count ? w->reads : w->value_count - 1];
  w->reads++;
  return 1;
}

static void counter_close(void *ctx, void *handle)
{
  (void)ctx, (void)handle;
}

static int evlog_open(void *ctx, const char *log, eventlog_fn fn, void *fn_ctx, void **handle,
                      char *err, size_t cap)
{
  struct world *w = ctx;
  (void)err, (void)cap;
  w->log_fn = fn;
  w->log_ctx = fn_ctx;
  snprintf(w->log_name, sizeof(w->log_name), "%s", log);
  *handle = w;
  return 0;
}

/* etwcap's own provider: each event is decoded as TraceEvent would, from
 * its own TraceLogging metadata (etw/event/tracelogging.h). */
static int own_event(void *ctx, const struct tl_encoded *e, char *why, size_t why_size)
{
  struct world *w = ctx == &W->clock ? W : NULL;
  struct tl_meta m;
  struct tv_value cat, ctr, inst, value;
  size_t n;
  (void)why, (void)why_size;
  assert_non_null(w);
  assert_int_equal(tl_parse_bytes(e->meta, e->meta_len, &m), 1);
  assert_string_equal(m.name, "PerformanceCounterUpdate");
  assert_int_equal(tl_find(&m, e->data, e->data_len, 8, "Category", &cat), 1);
  assert_int_equal(tl_find(&m, e->data, e->data_len, 8, "Counter", &ctr), 1);
  assert_int_equal(tl_find(&m, e->data, e->data_len, 8, "Instance", &inst), 1);
  assert_int_equal(tl_find(&m, e->data, e->data_len, 8, "Value", &value), 1);
  n = w->monitored_count++;
  assert_true(n < 16);
  snprintf(w->monitored[n], sizeof(w->monitored[n]), "%.40s|%.40s|%.40s", cat.text, ctr.text,
           inst.text);
  assert_int_equal(tv_as_double(&value, &w->monitored_value[n]), 1);
  w->monitored_at_ms[n] = w->clock.now_ms;
  return 0;
}

static void evlog_close(void *ctx, void *handle)
{
  struct world *w = ctx;
  (void)handle;
  w->log_fn = NULL;
}

static int run_command(void *ctx, const char *line, unsigned timeout_ms, int *exit_code,
                       char *why, unsigned why_size)
{
  struct world *w = ctx == &W->clock ? W : NULL;
  (void)why, (void)why_size;
  assert_non_null(w);
  assert_int_equal(timeout_ms, 60000);
  if (w->command_count < 4)
    snprintf(w->commands[w->command_count++], sizeof(w->commands[0]), "%s", line);
  *exit_code = 3;
  return 0;
}

static int operator_log(void *ctx, unsigned id, const char *text)
{
  struct world *w = ctx == &W->clock ? W : NULL;
  assert_non_null(w);
  assert_non_null(strstr(text, "etwcap"));
  if (w->entry_count < 32)
    w->entries[w->entry_count++] = id;
  return 0;
}

static size_t entries_of(const struct world *w, unsigned id)
{
  size_t i, n = 0;
  for (i = 0; i < w->entry_count; i++)
    n += w->entries[i] == id;
  return n;
}

static void on_sleep(void *ctx, uint64_t now)
{
  struct world *w = ctx;
  if (w->lose_events_at_ms && now >= w->lose_events_at_ms) {
    size_t i;
    for (i = 0; i < w->fake.session_count; i++)
      if (!strcmp(w->fake.sessions[i].name, "etwcap"))
        w->fake.sessions[i].events_lost = 9;
  }
  char record[600];
  if (w->message_at_ms && now >= w->message_at_ms && !w->message_sent && w->log_fn) {
    struct trigger_message m;
    w->message_sent = 1;
    m.ft = T0 + (int64_t)now * 10000;
    m.log = "Application";
    m.type = "Error";
    m.event_id = 1000;
    m.message = "Faulting application name: w3wp.exe, version: 10.0";
    w->log_fn(w->log_ctx, &m);
  }
  snprintf(record, sizeof(record), "%s%s", w->base, SESSION_RECORD_SUFFIX);
  if (exists(record))
    w->base_record_seen = 1;
  if (w->ctrl_c_at_ms && now >= w->ctrl_c_at_ms && !w->ctrl_c_sent) {
    w->ctrl_c_sent = 1;
    console_deliver(CONSOLE_CTRL_C);
  }
  if (w->request_at_ms && now >= w->request_at_ms && !w->request_sent) {
    w->request_sent = 1;
    session_request_write(w->request_for, w->request_text ? w->request_text : "stop");
  }
}

/* --- fixtures ------------------------------------------------------------- */

static int setup(void **state)
{
  static struct world world;
  struct world *w = &world;
  memset(w, 0, sizeof(*w));
  W = w;
  fake_controller_init(&w->fake);
  w->clock.on_sleep = on_sleep;
  w->clock.on_sleep_ctx = w;
  fake_env_init(&w->env, &w->fake.ctl, &w->clock);
  fake_consumer_init(&w->consumer);
  w->consumer.env = &w->env;
  w->env.consumer = &w->consumer.c;
  w->counters.ctx = w;
  w->counters.open = counter_open;
  w->counters.read = counter_read;
  w->counters.close = counter_close;
  w->env.counters = &w->counters;
  w->eventlog.ctx = w;
  w->eventlog.open = evlog_open;
  w->eventlog.close = evlog_close;
  w->env.eventlog = &w->eventlog;
  w->env.run_command = run_command;
  w->env.operator_log = operator_log;
  w->env.own_event = own_event;
  test_tmp_path("trig.etl", w->data, sizeof(w->data));
  memcpy(w->base, w->data, sizeof(w->base));
  remove_all(w->data);
  log_add_sink(log_capture_sink, &w->log, LOG_DEBUG);
  console_open();
  console_close();
  *state = w;
  return 0;
}

static int teardown(void **state)
{
  struct world *w = *state;
  log_remove_sink(log_capture_sink, &w->log);
  remove_all(w->data);
  console_close();
  return 0;
}

static int run(struct world *w, const char *const *args)
{
  return test_run_command(&w->env, args);
}

static void every_start_stopped(const struct world *w)
{
  size_t i;
  assert_int_equal(fake_controller_running(&w->fake), 0);
  for (i = 0; i < w->fake.call_count; i++) {
    const struct fake_call *c = &w->fake.calls[i];
    if (!strcmp(c->op, "start") && c->rc == 0 &&
        fake_controller_find(&w->fake, "stop", c->session, i + 1) == (size_t)-1)
      fail_msg("session '%s' was started and never stopped", c->session);
  }
}

static void trigger_session_name(char *out, size_t cap)
{
  unsigned long pid;
  int64_t created;
  session_record_self(&pid, &created);
  snprintf(out, cap, "etwcapTrigger_%lu", pid);
}

/* The instant of the first blocking gen2 GCStart of the sample: CLR
 * GCStart (id 1, version >= 1) with Depth >= 2 and Type != 1 (background),
 * read from the payload here, not by the engine. */
struct gen2 {
  int64_t ft;
  int found;
};

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int find_gen2(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                     const struct etl_clock *clock)
{
  struct gen2 *g = ctx;
  struct etw_guid clr;
  (void)lf;
  guid_parse(CLR_GUID, &clr);
  if (g->found || !(ev->has & ETW_HAS_DESCRIPTOR) || !guid_equal(&ev->provider, &clr) ||
      ev->id != 1 || ev->version < 1 || ev->user_len < 16)
    return 0;
  if (le32(ev->user_data + 4) >= 2 && le32(ev->user_data + 12) != 1) {
    g->found = 1;
    g->ft = etl_clock_filetime(clock, ev->timestamp);
  }
  return 0;
}

static int64_t first_gen2(const char *path)
{
  struct gen2 g = { 0, 0 };
  assert_int_equal(fake_trace_foreach(path, find_gen2, &g), 0);
  assert_true(g.found);
  return g.ft;
}

/* --- tests ---------------------------------------------------------------- */

static void gen2_gc_stops_the_capture_at_the_gc(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnGen2GC", "/DelayAfterTriggerSec:2", NULL };
  char sample[1024], tname[64], zip[600];
  size_t start, i, enables = 0;
  int64_t want;
  int rc;
  if (!test_sample_path(GC_SAMPLE, sample, sizeof(sample)))
    skip();
  want = first_gen2(sample);
  w->consumer.sample = sample;
  trigger_session_name(tname, sizeof(tname));
  rc = run(w, args);
  assert_int_equal(rc, 0);
  /* The trigger session: started, real time, 1 s flush, fed to the consumer. */
  start = fake_controller_find(&w->fake, "start", tname, 0);
  assert_true(start != (size_t)-1);
  assert_true(w->fake.calls[start].value & PLAN_REAL_TIME_MODE);
  assert_string_equal(w->consumer.session, tname);
  assert_int_equal(w->consumer.opens, 1);
  assert_int_equal(w->consumer.closes, 1);
  /* It enables exactly the CLR at Informational with the GC keyword. */
  for (i = start + 1; i < w->fake.call_count; i++) {
    const struct fake_call *c = &w->fake.calls[i];
    char g[GUID_STRING_SIZE];
    if (strcmp(c->op, "enable") || strcmp(c->session, tname))
      continue;
    enables++;
    guid_format((const struct etw_guid *)&c->guid, g);
    assert_string_equal(g, CLR_GUID);
    assert_int_equal(c->level, 4);
    assert_int_equal(c->any, 0x1);
  }
  assert_int_equal(enables, 1);
  assert_true(fake_controller_find(&w->fake, "stop", tname, start + 1) != (size_t)-1);
  every_start_stopped(w);
  /* The fire is at the GC, moved onto the collection's clock like the
   * whole trace; the capture went on 2 s more and was written. */
  assert_true(w->consumer.events > 0);
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  test_assert_fired_at(zip, "StopOnGen2GC", want + w->consumer.shift);
  assert_true(logged(w, "trigger /StopOnGen2GC fired"));
  assert_true(logged(w, "trigger session: "));
  assert_true(w->clock.now_ms >= 2000);
  /* The fire in the capture manifest and in LogFile.txt. */
  {
    static char text[200000];
    test_zip_text(zip, "etwcap-capture.json", text, sizeof(text));
    assert_non_null(strstr(text, "StopOnGen2GC"));
    assert_non_null(strstr(text, "Depth=2"));
    test_zip_text(zip, "LogFile.txt", text, sizeof(text));
    assert_non_null(strstr(text, "trigger /StopOnGen2GC fired"));
    assert_non_null(strstr(text, "trigger session: "));
  }
}

static void collect_multiple_restarts_and_names_each_capture(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect",         w->data, "/StopOnGen2GC", "/DelayAfterTriggerSec:1",
                         "/CollectMultiple:2", "/StopCommand:echo %OUTPUTBASENAME% in %OUTPUTDIR%",
                         NULL };
  char sample[1024], tname[64], one[600], two[600], plain[600], want[700], dir[600];
  size_t len = strlen(w->data);
  int rc;
  if (!test_sample_path(GC_SAMPLE, sample, sizeof(sample)))
    skip();
  w->consumer.sample = sample;
  trigger_session_name(tname, sizeof(tname));
  rc = run(w, args);
  assert_int_equal(rc, 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(two, sizeof(two), "%.*s.2.etl.zip", (int)(len - 4), w->data);
  snprintf(plain, sizeof(plain), "%s.zip", w->data);
  assert_true(exists(one));
  assert_true(exists(two));
  assert_false(exists(plain));
  /* Two clean cycles: the trigger session twice started and stopped. */
  assert_int_equal(fake_controller_count(&w->fake, "start", tname), 2);
  assert_int_equal(fake_controller_count(&w->fake, "stop", tname), 2);
  assert_int_equal(w->consumer.opens, 2);
  assert_int_equal(w->consumer.closes, 2);
  every_start_stopped(w);
  {
    char utc[64];
    test_manifest_fire(one, "StopOnGen2GC", utc, sizeof(utc));
    test_manifest_fire(two, "StopOnGen2GC", utc, sizeof(utc));
  }
  /* /StopCommand after each capture, with its own name. */
  assert_int_equal(w->command_count, 2);
  snprintf(dir, sizeof(dir), "%s", w->data);
  *strrchr(dir, '/') = '\0';
  snprintf(want, sizeof(want), "echo trig.1 in %s", dir);
  assert_string_equal(w->commands[0], want);
  snprintf(want, sizeof(want), "echo trig.2 in %s", dir);
  assert_string_equal(w->commands[1], want);
  assert_true(logged(w, "/StopCommand exited with code 3"));
}

static void etwcap_stop_ends_a_collect_multiple_run(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnGen2GC", "/CollectMultiple:3", NULL };
  char one[600], two[600];
  size_t len = strlen(w->data);
  int rc;
  /* No events: no trigger fires; the stop request ends the whole run. */
  snprintf(w->request_for, sizeof(w->request_for), "%.*s.1.etl%s", (int)(len - 4), w->data,
           SESSION_REQUEST_SUFFIX);
  w->request_at_ms = 3000;
  rc = run(w, args);
  assert_int_equal(rc, 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(two, sizeof(two), "%.*s.2.etl.zip", (int)(len - 4), w->data);
  assert_true(exists(one));
  assert_false(exists(two));
  /* 'etwcap stop X.etl' finds the record under the name collect was given. */
  assert_true(w->base_record_seen);
  every_start_stopped(w);
  assert_int_equal(w->consumer.opens, 1);
}

static void ctrl_c_ends_a_collect_multiple_run_with_its_capture(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnGen2GC", "/CollectMultiple:2", NULL };
  char one[600], two[600];
  size_t len = strlen(w->data);
  int rc;
  w->ctrl_c_at_ms = 2000;
  rc = run(w, args);
  assert_int_equal(rc, 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(two, sizeof(two), "%.*s.2.etl.zip", (int)(len - 4), w->data);
  /* The console handler was installed: Ctrl+C stopped, merged and zipped. */
  assert_true(exists(one));
  assert_false(exists(two));
  every_start_stopped(w);
}

static void perf_counter_fires_after_arming(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 95, 95, 95 };
  const char *args[] = { "collect", w->data, "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/DelayAfterTriggerSec:0", NULL };
  char tname[64], zip[600];
  int rc;
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  trigger_session_name(tname, sizeof(tname));
  rc = run(w, args);
  assert_int_equal(rc, 0);
  /* MinSecForTrigger 3 at 1 s polls: four samples to arm, four above. */
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  test_assert_fired_at(zip, "StopOnPerfCounter", T0 + 7 * INT64_C(10000000));
  /* Counters need no ETW: no trigger session. */
  assert_int_equal(fake_controller_count(&w->fake, "start", tname), 0);
  assert_int_equal(w->consumer.opens, 0);
  every_start_stopped(w);
}

static void missing_counter_refuses_to_start(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnPerfCounter:Nope:Ctr:Inst>1", NULL };
  int rc = run(w, args);
  assert_true(rc < 0);
  assert_true(logged(w, "Nope"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

/* PerfView's example (UsersGuide "Monitoring Performance Counters in the ETL
 * file") with a 1 s interval: a value at the start and every second after,
 * each as read from the counter, while the capture runs. */
static void monitored_counter_is_logged_every_interval(void **state)
{
  struct world *w = *state;
  static const double v[] = { 512, 511, 509, 400, 388, 380, 300 };
  const char *args[] = { "collect", w->data, "/MonitorPerfCounter:Memory:Available MBytes:@1",
                         "/MaxCollectSec:4", NULL };
  size_t i;
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  assert_int_equal(run(w, args), 0);
  assert_true(logged(w, "logging Memory:Available MBytes: every 1 s"));
  /* 0, 1, 2, 3 and 4 s: five values, the counter's first five reads. */
  assert_int_equal(w->monitored_count, 5);
  for (i = 0; i < w->monitored_count; i++) {
    assert_string_equal(w->monitored[i], "Memory|Available MBytes|");
    assert_true(w->monitored_value[i] == v[i]);
    if (i)
      assert_int_equal(w->monitored_at_ms[i] - w->monitored_at_ms[i - 1], 1000);
  }
  every_start_stopped(w);
}

static void missing_monitored_counter_refuses_to_start(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/MonitorPerfCounter:Nope:Ctr:Inst@0.01", NULL };
  int rc = run(w, args);
  assert_true(rc < 0);
  assert_true(logged(w, "no counter category 'Nope'"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

static void event_log_message_fires(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnEventLogMessage:FAULTING.*W3WP",
                         "/DelayAfterTriggerSec:1", NULL };
  char zip[600];
  int rc;
  w->message_at_ms = 4000;
  rc = run(w, args);
  assert_int_equal(rc, 0);
  assert_string_equal(w->log_name, "Application");
  /* Case-insensitive, as PerfView; at the message's time. */
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  test_assert_fired_at(zip, "StopOnEventLogMessage", T0 + 4000 * INT64_C(10000));
  assert_null(w->log_fn); /* the subscription was closed */
  every_start_stopped(w);
}

static void consumer_failure_stops_every_session(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnException:Timeout", NULL };
  int rc;
  w->consumer.fail_open = ETWCAP_E_ACCES;
  rc = run(w, args);
  assert_int_equal(rc, ETWCAP_E_ACCES);
  assert_true(logged(w, "cannot read the trigger session"));
  assert_true(logged(w, "OpenTraceW"));
  every_start_stopped(w);
}

static void exception_trigger_enables_the_exception_keyword(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/StopOnException:Timeout", "/MaxCollectSec:2",
                         NULL };
  char tname[64], g[GUID_STRING_SIZE], zip[600];
  size_t i;
  int rc, seen = 0;
  trigger_session_name(tname, sizeof(tname));
  rc = run(w, args);
  assert_int_equal(rc, 0);
  for (i = 0; i < w->fake.call_count; i++) {
    const struct fake_call *c = &w->fake.calls[i];
    if (strcmp(c->op, "enable") || strcmp(c->session, tname))
      continue;
    guid_format((const struct etw_guid *)&c->guid, g);
    assert_string_equal(g, CLR_GUID);
    assert_true(c->any & 0x8000);
    assert_true(c->level <= 4);
    seen++;
  }
  assert_int_equal(seen, 1);
  /* MaxCollectSec is the engine's: a limit fire, 2 s after the start. */
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  test_assert_fired_at(zip, "MaxCollectSec", T0 + 2 * INT64_C(10000000));
  every_start_stopped(w);
}

static void start_trigger_waits_before_starting_anything(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 10, 10, 10, 60, 60, 60, 60, 60, 60, 60, 60 };
  const char *args[] = { "collect", w->data,
                         "/StartOnPerfCounter:Processor:% Processor Time:_Total>50",
                         "/MaxCollectSec:2", NULL };
  const char *fired, *started;
  char zip[600];
  int rc;
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  rc = run(w, args);
  assert_int_equal(rc, 0);
  /* Four low samples arm it, four high ones fire it at poll 7; only then
   * does any session start, and MaxCollectSec counts from there. */
  fired = strstr(w->log.text, "start trigger /StartOnPerfCounter");
  started = strstr(w->log.text, "started session");
  assert_non_null(fired);
  assert_non_null(started);
  assert_true(fired < started);
  assert_true(logged(w, "waiting for the start trigger"));
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  test_assert_fired_at(zip, "MaxCollectSec", T0 + 9 * INT64_C(10000000));
  every_start_stopped(w);
}

/* --- /SnapshotOnTrigger: stay armed ------------------------------------- */

/* The first stop of session `name` (the sessions of a snapshot capture
 * stop once, at its end). */
static size_t stops_of(const struct world *w, const char *name)
{
  return fake_controller_count(&w->fake, "stop", name);
}

static void a_fire_writes_a_snapshot_and_the_sessions_go_on(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 10 };
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/SnapshotOnTrigger",
                         "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/DelayAfterTriggerSec:0", "/MaxCollectSec:20", NULL };
  char one[600], zip[600];
  size_t len = strlen(w->data), flush, stop;
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  assert_int_equal(run(w, args), 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  /* MinSecForTrigger 3 at 1 s polls: armed by four low samples, fired by
   * four high ones at poll 7 (docs/perfview-collection.md §6.1). */
  test_assert_fired_at(one, "StopOnPerfCounter", T0 + 7 * INT64_C(10000000));
  /* The rings were written while the sessions ran: the snapshot's flush
   * comes before the only stop, which /MaxCollectSec made at the end. */
  flush = fake_controller_find(&w->fake, "flush", "etwcap", 0);
  stop = fake_controller_find(&w->fake, "stop", "etwcap", 0);
  assert_true(flush != (size_t)-1 && stop != (size_t)-1 && flush < stop);
  assert_int_equal(stops_of(w, "etwcap"), 1);
  assert_true(logged(w, "the sessions go on"));
  test_assert_fired_at(zip, "MaxCollectSec", T0 + 20 * INT64_C(10000000));
  every_start_stopped(w);
}

static void fires_within_the_cooldown_write_one_snapshot(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 95, 10, 95, 10, 95, 10 };
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/SnapshotOnTrigger", "/SnapshotCooldownSec:600",
                         "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/MinSecForTrigger:0", "/DelayAfterTriggerSec:0",
                         "/MaxCollectSec:20", NULL };
  char one[600], two[600];
  const char *p;
  size_t len = strlen(w->data);
  unsigned fires = 0;
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  assert_int_equal(run(w, args), 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(two, sizeof(two), "%.*s.2.etl.zip", (int)(len - 4), w->data);
  /* Three fires (one low sample arms, one high fires: MinSecForTrigger 0),
   * one snapshot. */
  for (p = w->log.text; (p = strstr(p, "trigger /StopOnPerfCounter:")) != NULL; p++)
    fires++;
  assert_int_equal(fires, 3);
  assert_true(exists(one));
  assert_false(exists(two));
  assert_true(logged(w, "within /SnapshotCooldownSec: no snapshot"));
  assert_int_equal(stops_of(w, "etwcap"), 1);
  every_start_stopped(w);
}

static void collect_multiple_caps_the_snapshots(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 95, 10, 95, 10, 95, 10 };
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/SnapshotOnTrigger", "/SnapshotCooldownSec:0", "/CollectMultiple:2",
                         "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/MinSecForTrigger:0", "/DelayAfterTriggerSec:0",
                         "/MaxCollectSec:20", NULL };
  char one[600], two[600], three[600], zip[600];
  size_t len = strlen(w->data);
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  assert_int_equal(run(w, args), 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  snprintf(two, sizeof(two), "%.*s.2.etl.zip", (int)(len - 4), w->data);
  snprintf(three, sizeof(three), "%.*s.3.etl.zip", (int)(len - 4), w->data);
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  assert_true(exists(one));
  assert_true(exists(two));
  assert_false(exists(three));
  /* The second snapshot ended the capture: the rings once more, at once. */
  assert_true(exists(zip));
  assert_true(w->clock.now_ms < 20000);
  every_start_stopped(w);
}

static void etwcap_snapshot_asks_a_running_collect_for_one(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/MaxCollectSec:10", NULL };
  char one[600], utc[64];
  size_t len = strlen(w->data);
  snprintf(w->request_for, sizeof(w->request_for), "%s%s", w->data, SESSION_REQUEST_SUFFIX);
  w->request_at_ms = 3000;
  w->request_text = "snapshot";
  assert_int_equal(run(w, args), 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  test_manifest_fire(one, "snapshot", utc, sizeof(utc));
  assert_int_equal(stops_of(w, "etwcap"), 1);
  every_start_stopped(w);
}

/* /EventLog, with the ids README documents: start, the fire, the snapshot
 * written, a session losing events, the end. */
static void event_log_tells_the_operators(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 10 };
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/SnapshotOnTrigger", "/EventLog",
                         "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/DelayAfterTriggerSec:0", "/MaxCollectSec:20", NULL };
  const char *quiet[] = { "collect", w->data, "/MaxCollectSec:5", NULL };
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  w->lose_events_at_ms = 12000;
  assert_int_equal(run(w, args), 0);
  assert_int_equal(entries_of(w, 1000), 1);
  assert_int_equal(entries_of(w, 1001), 1); /* the counter; /MaxCollectSec is no trigger */
  assert_int_equal(entries_of(w, 1002), 1);
  assert_true(entries_of(w, 1005) >= 1);
  assert_int_equal(entries_of(w, 1006), 1);
  assert_int_equal(w->entries[0], 1000);
  assert_int_equal(w->entries[w->entry_count - 1], 1006);
  /* Without /EventLog, nothing. */
  w->entry_count = 0;
  w->lose_events_at_ms = 0;
  assert_int_equal(run(w, quiet), 0);
  assert_int_equal(w->entry_count, 0);
}

static void snapshots_need_the_ring_and_a_trigger(void **state)
{
  struct world *w = *state;
  const char *no_ring[] = { "collect", w->data, "/SnapshotOnTrigger", "/StopOnGen2GC", NULL };
  const char *no_trigger[] = { "collect", w->data, "/SnapshotOnTrigger",
                               "/InMemoryCircularBuffer", "/CircularMB:64", NULL };
  assert_int_equal(run(w, no_ring), ETWCAP_E_USAGE);
  assert_true(logged(w, "add /InMemoryCircularBuffer"));
  assert_int_equal(run(w, no_trigger), ETWCAP_E_USAGE);
  assert_true(logged(w, "needs a stop trigger"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

/* --- segments: rotation and retention over simulated days ------------------ */

struct segment_files {
  char names[64][128];
  size_t count;
};

/* The controller calls of a long run, past what the fake keeps: the
 * switches and stops of the user session 'etwcap'. */
static size_t user_switches, user_stops;

static void count_user_calls(void *ctx, const char *op, const char *session)
{
  (void)ctx;
  if (strcmp(session, "etwcap") != 0)
    return;
  user_switches += !strcmp(op, "switch");
  user_stops += !strcmp(op, "stop");
}

static void count_calls(struct world *w)
{
  user_switches = user_stops = 0;
  w->fake.before = count_user_calls;
}

/* trig.YYYYMMDDTHHMMSSZ.etl.zip in the test folder (deleting them when
 * `remove`). */
static int list_segment(void *ctx, const char *name)
{
  struct segment_files *f = ctx;
  if (!strncmp(name, "trig.20", 7) && str_ends_with_case(name, "Z.etl.zip") &&
      f->count < 64)
    snprintf(f->names[f->count++], sizeof(f->names[0]), "%s", name);
  return 0;
}

static size_t segment_zips(const struct world *w, struct segment_files *f, int remove)
{
  char dir[512], path[700];
  size_t i;
  memset(f, 0, sizeof(*f));
  snprintf(dir, sizeof(dir), "%.*s", (int)path_dir_len(w->data), w->data);
  os_dir_list(dir, list_segment, f);
  for (i = 0; remove && i < f->count; i++) {
    snprintf(path, sizeof(path), "%s%s", dir, f->names[i]);
    os_remove(path);
  }
  return f->count;
}

static void segments_rotate_every_hour_for_half_a_day(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/SegmentSec:3600", "/KeepSegments:5",
                         "/MaxCollectSec:43200", NULL };
  struct segment_files f;
  segment_zips(w, &f, 1);
  count_calls(w);
  assert_int_equal(run(w, args), 0);
  /* 12 h in 1 h segments: 12 segments, 11 switches of the user session's
   * file while it ran; it stopped once, at the end. */
  assert_int_equal(user_switches, 11);
  assert_int_equal(user_stops, 1);
  /* /KeepSegments:5: the newest five are left. */
  assert_int_equal(segment_zips(w, &f, 0), 5);
  assert_int_equal(fake_controller_running(&w->fake), 0); /* the call log is full by now */
  segment_zips(w, &f, 1);
}

/* Three segments on each kernel route keep the kernel's events and name
 * their processes, images and methods each on its own.  The fake models
 * UPDATE as ControlTraceW reads (a system logger keeps only the groups of
 * the EnableFlags sent, none on the System Providers route), a kernel
 * session's DCStart at a start with Process/ImageLoad flags and DCEnd at a
 * stop, and the CLR rundown's DCEnd events for its keywords
 * (tests/fakes/README.md).  Expected: CSwitch and SampledProfile in every
 * segment (/ThreadTime, docs/perfview-collection.md §4.1), a Process and an
 * Image DCStart or DCEnd, ModuleDCEnd and MethodDCEndVerbose (the CLR
 * rundown's loader and method passes, §4.4). */
static void segments_keep_kernel_events_and_rundown_on_each_route(void **state)
{
  static const char *const routes[] = { "/KernelRoute:groupMask", "/KernelRoute:systemProviders" };
  static const char *const kind_names[FAKE_EVENT_KINDS] = {
    "CSwitch", "SampledProfile", "Process/DCStart", "Image/DCStart",
    "Process/DCEnd", "Image/DCEnd", "ModuleDCEnd", "MethodDCEndVerbose"
  };
  struct world *w = *state;
  struct segment_files f;
  char dir[512], path[700], err[256];
  unsigned n[FAKE_EVENT_KINDS];
  size_t r, i, k;
  snprintf(dir, sizeof(dir), "%.*s", (int)path_dir_len(w->data), w->data);
  for (r = 0; r < 2; r++) {
    const char *args[] = { "collect", w->data, "/ThreadTime", "/SegmentSec:600",
                           "/MaxCollectSec:1800", routes[r], NULL };
    segment_zips(w, &f, 1);
    fake_controller_init(&w->fake);
    assert_int_equal(run(w, args), 0);
    assert_int_equal(segment_zips(w, &f, 0), 3);
    for (i = 0; i < f.count; i++) {
      snprintf(path, sizeof(path), "%s%s", dir, f.names[i]);
      if (fake_event_census(path, n, err, sizeof(err)) != 0)
        fail_msg("%s: %s", path, err);
      /* The kinds up to MethodDCEndVerbose (the stack keys come with stack
       * caching, their definitions only at a stop). */
      for (k = 0; k < 8; k++)
        if ((k < 2 || k > 5) && !n[k]) /* the DCStart/DCEnd pairs: either will do */
          fail_msg("%s, %s: no %s", routes[r], f.names[i], kind_names[k]);
      if (!n[2] && !n[4])
        fail_msg("%s, %s: no Process rundown", routes[r], f.names[i]);
      if (!n[3] && !n[5])
        fail_msg("%s, %s: no Image rundown", routes[r], f.names[i]);
    }
  }
  segment_zips(w, &f, 1);
}

/* A segment an earlier run left, `days` before T0 (a zip with a manifest
 * naming a fire when `fired`), its path in `path` (700 bytes); `suffix`
 * goes between the stamp and ".etl.zip". */
static void earlier_file(const struct world *w, double days, int fired, const char *suffix,
                         char *path)
{
  char stamp[32];
  struct civil_time t;
  zipFile zf;
  zip_fileinfo info;
  const char *manifest = fired ? "{\"trigger\": {\"name\": \"StopOnGen2GC\"}}"
                               : "{\"trigger\": null}";
  filetime_to_civil(T0 - (int64_t)(days * 86400.0) * INT64_C(10000000), &t);
  snprintf(stamp, sizeof(stamp), "%04d%02u%02uT%02u%02u%02uZ", t.year, t.month, t.day, t.hour,
           t.minute, t.second);
  snprintf(path, 700, "%.*s%s%s.etl.zip", (int)(strlen(w->data) - 3), w->data, stamp, suffix);
  memset(&info, 0, sizeof(info));
  zf = zipOpen64(path, APPEND_STATUS_CREATE);
  assert_non_null(zf);
  assert_int_equal(zipOpenNewFileInZip64(zf, "etwcap-capture.json", &info, NULL, 0, NULL, 0,
                                         NULL, Z_DEFLATED, 6, 0),
                   ZIP_OK);
  assert_int_equal(zipWriteInFileInZip(zf, manifest, (unsigned)strlen(manifest)), ZIP_OK);
  assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
  assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

static void earlier_segment(const struct world *w, double days, int fired)
{
  char path[700];
  earlier_file(w, days, fired, "", path);
}

static int has_segment_of(const struct segment_files *f, double days)
{
  struct civil_time t;
  char stamp[32];
  size_t i;
  filetime_to_civil(T0 - (int64_t)(days * 86400.0) * INT64_C(10000000), &t);
  snprintf(stamp, sizeof(stamp), "%04d%02u%02uT%02u%02u%02uZ", t.year, t.month, t.day, t.hour,
           t.minute, t.second);
  for (i = 0; i < f->count; i++)
    if (strstr(f->names[i], stamp))
      return 1;
  return 0;
}

/* A capture restarted by Task Scheduler finds the segments of the days
 * before: /KeepDays deletes those that began more than a day ago, except
 * one that holds a fire; this run's first segment holds its own fire. */
static void keep_days_spans_earlier_runs_and_keeps_fires(void **state)
{
  struct world *w = *state;
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 10 };
  const char *args[] = { "collect", w->data, "/SegmentSec:600", "/KeepDays:1", "/EventLog",
                         "/StopOnPerfCounter:Processor:% Processor Time:_Total>90",
                         "/DelayAfterTriggerSec:0", "/MaxCollectSec:1800", NULL };
  struct segment_files f;
  char first[700];
  size_t i;
  segment_zips(w, &f, 1);
  earlier_segment(w, 4.0, 1);
  earlier_segment(w, 3.0, 0);
  earlier_segment(w, 2.0, 0);
  earlier_segment(w, 0.5, 0);
  w->values = v;
  w->value_count = sizeof(v) / sizeof(v[0]);
  assert_int_equal(run(w, args), 0);
  /* 30 min in 10 min segments: three of this run, the earlier fired one and
   * the half-day-old one. */
  assert_int_equal(segment_zips(w, &f, 0), 5);
  assert_true(has_segment_of(&f, 4.0));
  assert_false(has_segment_of(&f, 3.0));
  assert_false(has_segment_of(&f, 2.0));
  assert_true(has_segment_of(&f, 0.5));
  /* Two segments written in the background (the last by the stop), and
   * the two stale ones deleted, each told to the Application log. */
  assert_int_equal(entries_of(w, 1003), 2);
  assert_int_equal(entries_of(w, 1004), 2);
  /* This run's first segment (T0's second, 2023-03-14 00:46:36 UTC) names
   * its fire. */
  snprintf(first, sizeof(first), "%.*s", (int)path_dir_len(w->data), w->data);
  for (i = 0; i < f.count; i++)
    if (strstr(f.names[i], "20230314T004636Z"))
      break;
  assert_true(i < f.count);
  strncat(first, f.names[i], sizeof(first) - strlen(first) - 1);
  test_assert_fired_at(first, "StopOnPerfCounter", T0 + 7 * INT64_C(10000000));
  assert_int_equal(fake_controller_running(&w->fake), 0); /* the call log is full by now */
  segment_zips(w, &f, 1);
}

static int file_exists(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (f)
    fclose(f);
  return f != NULL;
}

/* Retention deletes only the names segment_name writes: X.<stamp>Z.etl.zip
 * and X.<stamp>Z-2.etl.zip to -99; a name that merely begins with a stamp
 * and ends in .etl.zip (a copy the user made) is left, however old. */
static void retention_deletes_only_the_names_it_writes(void **state)
{
  static const char *const foreign[] = { ".old", "-1", "-02", "-100", "-x", "--2" };
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/SegmentSec:600", "/KeepDays:1",
                         "/MaxCollectSec:600", NULL };
  char ours[2][700], theirs[6][700];
  struct segment_files f;
  size_t i;
  segment_zips(w, &f, 1);
  earlier_file(w, 3.0, 0, "", ours[0]);
  earlier_file(w, 3.0, 0, "-2", ours[1]);
  for (i = 0; i < 6; i++)
    earlier_file(w, 3.0, 0, foreign[i], theirs[i]);
  assert_int_equal(run(w, args), 0);
  for (i = 0; i < 2; i++)
    if (file_exists(ours[i]))
      fail_msg("the stale segment '%s' was kept", ours[i]);
  for (i = 0; i < 6; i++) {
    if (!file_exists(theirs[i]))
      fail_msg("'%s' is no segment of etwcap's, but retention deleted it", theirs[i]);
    os_remove(theirs[i]);
  }
  segment_zips(w, &f, 1);
}

/* --- /RundownPeriodSec ------------------------------------------------- */

/* When each controller call was made, by call index (the virtual clock). */
static uint64_t call_ms[FAKE_MAX_CALLS];

static void time_calls(void *ctx, const char *op, const char *session)
{
  (void)op;
  (void)session;
  (void)ctx;
  if (W->fake.call_count <= FAKE_MAX_CALLS)
    call_ms[W->fake.call_count - 1] = W->clock.now_ms;
}

/* /RundownPeriodSec:60 for 330 s: rundowns at 60, 120, 180, 240 and 300 s.
 * The CLR's is TraceEventSession.CaptureState on the CLR rundown provider
 * (CLR ETW Providers: a669021c-...) in the user session itself: an enable
 * (EVENT_CONTROL_CODE_ENABLE_PROVIDER 1), then CAPTURE_STATE (2), with
 * Loader 0x8, Jit 0x10, NGen 0x20 and EndRundown 0x100 and without
 * SupressNGen 0x40000 ("CLR ETW Keywords and Levels"; docs/perfview-
 * collection.md §4.4).  The kernel's: on the group mask the kernel rundown
 * session started and stopped at once into a file of its own (PerfView's
 * in-memory stop, CommandProcessor Stop); on the System Providers
 * CAPTURE_STATE to each one the kernel session enabled.  `route` is a
 * /KernelRoute value; *rundown_starts counts the kernel rundown session's
 * starts before the stop. */
static void check_periodic_rundown(struct world *w, const char *route, size_t *rundown_starts)
{
  const char *args[] = { "collect", w->data, "/RundownPeriodSec:60", "/MaxCollectSec:330",
                         "/Merge:false", route, NULL };
  uint64_t clr_at[8], t0 = w->clock.now_ms;
  size_t clr = 0, clr_state = 0, kernel = 0, kernel_on = 0, i;
  fake_controller_init(&w->fake);
  w->fake.before = time_calls;
  *rundown_starts = 0;
  assert_int_equal(run(w, args), 0);
  for (i = 0; i < w->fake.call_count; i++) {
    const struct fake_call *c = &w->fake.calls[i];
    if (!strcmp(c->op, "start") && !strcmp(c->session, "etwcapKernelRundown") &&
        call_ms[i] - t0 < 330000)
      ++*rundown_starts;
    if (strcmp(c->op, "enable") != 0)
      continue;
    if (!strcmp(c->session, "etwcap") && guid_equal(&c->guid, &bi_guid_clr_rundown)) {
      assert_int_equal(c->any & 0x40138, 0x138);
      assert_int_equal(c->level, 5);
      if (c->control_code == 1 && clr < 8)
        clr_at[clr++] = call_ms[i] - t0;
      clr_state += c->control_code == 2;
    }
    if (!strcmp(c->session, "etwcapKernel") && c->control_code == 1)
      kernel_on++;
    if (!strcmp(c->session, "etwcapKernel") && c->control_code == 2) {
      assert_true(call_ms[i] - t0 >= 60000);
      kernel++;
    }
  }
  assert_int_equal(clr, 5);
  assert_int_equal(clr_state, 5);
  for (i = 0; i < clr; i++)
    assert_true(clr_at[i] >= (i + 1) * 60000 && clr_at[i] < (i + 1) * 60000 + 1000);
  /* Capture state only where the System Providers were enabled. */
  assert_int_equal(kernel, 5 * kernel_on);
  every_start_stopped(w);
}

static void the_periodic_rundown_lands_in_the_capture_at_its_period(void **state)
{
  struct world *w = *state;
  char path[700], err[256];
  unsigned n[FAKE_EVENT_KINDS], k;
  size_t starts;
  check_periodic_rundown(w, "/KernelRoute:groupMask", &starts);
  assert_int_equal(starts, 5);
  /* The user session's own file has the runtime's DCEnd rundown (the fake
   * writes it for the capture-state request's keywords): method names. */
  assert_int_equal(fake_event_census(w->data, n, err, sizeof(err)), 0);
  assert_true(n[7] > 0); /* MethodDCEndVerbose */
  assert_true(n[6] > 0); /* ModuleDCEnd */
  /* Each kernel rundown in its own file beside it, with its DCStart. */
  snprintf(path, sizeof(path), "%.*s.kernelRundown.5.etl", (int)(strlen(w->data) - 4), w->data);
  assert_int_equal(fake_event_census(path, n, err, sizeof(err)), 0);
  assert_true(n[2] > 0 && n[3] > 0); /* Process, Image DCStart */
  check_periodic_rundown(w, "/KernelRoute:systemProviders", &starts);
  assert_int_equal(starts, 0);
  for (k = 0; k <= 5; k++) { /* X.kernelRundown.etl, X.kernelRundown.1.etl, ... */
    char num[8] = "";
    if (k)
      snprintf(num, sizeof(num), ".%u", k);
    snprintf(path, sizeof(path), "%.*s.kernelRundown%s.etl", (int)(strlen(w->data) - 4), w->data,
             num);
    os_remove(path);
  }
}

/* The periodic kernel rundown files beside the ring: how many the folder
 * holds at each start of the kernel rundown session (the most seen), and
 * the highest number among them. */
static size_t rundown_files_most;
static unsigned rundown_files_last;

struct rundown_listing {
  const char *stem; /* "trig.kernelRundown." */
  size_t count;
  unsigned last;
};

static int list_rundown_file(void *ctx, const char *name)
{
  struct rundown_listing *l = ctx;
  size_t len = strlen(l->stem);
  if (!strncmp(name, l->stem, len) && name[len] >= '0' && name[len] <= '9' &&
      str_ends_with_case(name, ".etl")) {
    unsigned n = (unsigned)strtoul(name + len, NULL, 10);
    l->count++;
    if (n > l->last)
      l->last = n;
  }
  return 0;
}

static struct rundown_listing list_rundown_files(const struct world *w)
{
  char dir[512], stem[128];
  struct rundown_listing l;
  size_t dir_len = path_dir_len(w->data);
  snprintf(dir, sizeof(dir), "%.*s", (int)dir_len, w->data);
  snprintf(stem, sizeof(stem), "%.*s.kernelRundown.", (int)(strlen(w->data) - dir_len - 4),
           w->data + dir_len);
  memset(&l, 0, sizeof(l));
  l.stem = stem;
  os_dir_list(dir, list_rundown_file, &l);
  l.stem = NULL;
  return l;
}

static void count_rundown_files(void *ctx, const char *op, const char *session)
{
  struct rundown_listing l;
  (void)ctx;
  if (strcmp(op, "start") != 0 || strcmp(session, "etwcapKernelRundown") != 0)
    return;
  l = list_rundown_files(W);
  if (l.count > rundown_files_most)
    rundown_files_most = l.count;
  if (l.last > rundown_files_last)
    rundown_files_last = l.last;
}

/* The numbers n of the files `<prefix>.kernelRundown.<n>.etl` the manifest
 * of `zip` names as the merge's inputs, in `kept` (room for 64); how many. */
static size_t merged_rundown_files(const char *zip, const char *prefix, unsigned kept[64])
{
  char *text = NULL, why[256], needle[160];
  const char *p;
  size_t len, count = 0;
  if (zip_member_text(zip, "etwcap-capture.json", 1u << 20, &text, &len, why, sizeof(why)))
    fail_msg("%s: %s", zip, why);
  snprintf(needle, sizeof(needle), "\"%s.kernelRundown.", prefix);
  for (p = text; (p = strstr(p, needle)) != NULL; p++) {
    const char *num = p + strlen(needle);
    if (*num >= '0' && *num <= '9' && count < 64)
      kept[count++] = (unsigned)strtoul(num, NULL, 10);
  }
  etwcap_free(text);
  return count;
}

/* 1 when n is among the count numbers of kept. */
static int kept_has(const unsigned *kept, size_t count, unsigned n)
{
  size_t i;
  for (i = 0; i < count; i++)
    if (kept[i] == n)
      return 1;
  return 0;
}

/* A week of /RundownPeriodSec:600 is 1,008 periods, each a kernel rundown
 * file; here the same 1,008 at /RundownPeriodSec:60 (16.8 h of the virtual
 * clock, which Wine runs a week of in minutes), in the default circular
 * file, on the group mask.  One merge takes
 * at most ETL_MERGE_MAX_INPUTS (64) files, so the capture's merge fails
 * unless the older ones go: at most PERIODIC_RUNDOWN_FILES_KEPT (32) are
 * there at any time, the newest, and the final zip merges exactly those
 * (its manifest names them) with the stop's own kernel rundown. */
static void a_weeks_periodic_rundowns_keep_the_newest_and_merge(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/RundownPeriodSec:60", "/MaxCollectSec:60480",
                         "/KernelRoute:groupMask", NULL };
  char zip[600], err[256];
  unsigned kept[64], n[FAKE_EVENT_KINDS], i;
  size_t count;
  rundown_files_most = rundown_files_last = 0;
  w->fake.before = count_rundown_files;
  assert_int_equal(run(w, args), 0);
  /* 60,480 s at one rundown every 60 s: 1,008 (the last maybe at the stop
   * itself). */
  assert_true(rundown_files_last >= 1007);
  assert_int_equal(rundown_files_most, PERIODIC_RUNDOWN_FILES_KEPT);
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  count = merged_rundown_files(zip, "trig", kept);
  assert_int_equal(count, PERIODIC_RUNDOWN_FILES_KEPT);
  for (i = 0; i < PERIODIC_RUNDOWN_FILES_KEPT; i++)
    assert_true(kept_has(kept, count, rundown_files_last - i));
  assert_int_equal(fake_event_census(zip, n, err, sizeof(err)), 0);
  assert_true(n[2] > 0 && n[3] > 0); /* Process, Image DCStart */
  /* The merge deleted the files it took; nothing of the week is left. */
  assert_int_equal(list_rundown_files(w).count, 0);
}

/* A snapshot's rings hold a window before it: its zip merges copies of the
 * periodic kernel rundown files kept then (X.1.kernelRundown.<n>.etl), and
 * the originals stay for the final merge. */
static void a_snapshot_merges_the_periodic_rundowns_kept(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/InMemoryCircularBuffer", "/CircularMB:64",
                         "/RundownPeriodSec:60", "/MaxCollectSec:3600",
                         "/KernelRoute:groupMask", NULL };
  char one[600], zip[600];
  unsigned kept[64], i;
  size_t len = strlen(w->data), count;
  /* 'etwcap snapshot' after 40 periods. */
  snprintf(w->request_for, sizeof(w->request_for), "%s%s", w->data, SESSION_REQUEST_SUFFIX);
  w->request_at_ms = 40 * 60000 + 30000;
  w->request_text = "snapshot";
  rundown_files_most = rundown_files_last = 0;
  w->fake.before = count_rundown_files;
  assert_int_equal(run(w, args), 0);
  snprintf(one, sizeof(one), "%.*s.1.etl.zip", (int)(len - 4), w->data);
  count = merged_rundown_files(one, "trig.1", kept);
  assert_int_equal(count, PERIODIC_RUNDOWN_FILES_KEPT);
  for (i = 40 - PERIODIC_RUNDOWN_FILES_KEPT + 1; i <= 40; i++)
    assert_true(kept_has(kept, count, i));
  snprintf(zip, sizeof(zip), "%s.zip", w->data);
  count = merged_rundown_files(zip, "trig", kept);
  assert_int_equal(count, PERIODIC_RUNDOWN_FILES_KEPT);
  assert_true(kept_has(kept, count, rundown_files_last));
  assert_int_equal(rundown_files_most, PERIODIC_RUNDOWN_FILES_KEPT);
  assert_int_equal(list_rundown_files(w).count, 0);
  os_remove(one);
}

/* Segments of 70 min with /RundownPeriodSec:60, 70 periods each: each
 * segment's zip merges the newest 32 of its own, and the segment's merge
 * deletes them. */
static void each_segment_merges_its_newest_periodic_rundowns(void **state)
{
  struct world *w = *state;
  const char *args[] = { "collect", w->data, "/SegmentSec:4200", "/RundownPeriodSec:60",
                         "/MaxCollectSec:16800", "/KernelRoute:groupMask", NULL };
  struct segment_files f;
  char dir[512], path[700], prefix[128];
  unsigned kept[64];
  size_t i;
  snprintf(dir, sizeof(dir), "%.*s", (int)path_dir_len(w->data), w->data);
  segment_zips(w, &f, 1);
  assert_int_equal(run(w, args), 0);
  assert_int_equal(segment_zips(w, &f, 0), 4);
  for (i = 0; i < f.count; i++) {
    snprintf(path, sizeof(path), "%s%s", dir, f.names[i]);
    /* trig.<stamp>.etl.zip: its files are trig.<stamp>.kernelRundown.<n>.etl */
    snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(f.names[i]) - 8), f.names[i]);
    assert_int_equal(merged_rundown_files(path, prefix, kept), PERIODIC_RUNDOWN_FILES_KEPT);
  }
  segment_zips(w, &f, 1);
}

static void segments_refuse_what_cannot_work(void **state)
{
  struct world *w = *state;
  const char *ring[] = { "collect", w->data, "/SegmentSec:60", "/InMemoryCircularBuffer",
                         "/CircularMB:64", NULL };
  const char *both[] = { "collect", w->data, "/SegmentSec:60", "/SnapshotOnTrigger",
                         "/StopOnGen2GC", NULL };
  const char *keep[] = { "collect", w->data, "/KeepSegments:3", NULL };
  const char *heap_pid[] = { "collect", w->data, "/SegmentMB:100", "/OSHeapProcess:4242", NULL };
  const char *heap_exe[] = { "collect", w->data, "/SegmentSec:60", "/OSHeapExe:app.exe", NULL };
  assert_int_equal(run(w, heap_pid), ETWCAP_E_USAGE);
  assert_true(logged(w, "/OSHeapProcess and /OSHeapExe do not combine with /SegmentSec"));
  assert_int_equal(run(w, heap_exe), ETWCAP_E_USAGE);
  assert_true(logged(w, "one heap file cannot belong to every segment"));
  assert_int_equal(run(w, ring), ETWCAP_E_USAGE);
  assert_true(logged(w, "they replace /InMemoryCircularBuffer"));
  assert_int_equal(run(w, both), ETWCAP_E_USAGE);
  assert_true(logged(w, "do not combine"));
  assert_int_equal(run(w, keep), ETWCAP_E_USAGE);
  assert_true(logged(w, "add /SegmentSec or /SegmentMB"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

/* collect with a process-name trigger, planned for Windows
 * major.minor.build (the environment's), by `route` (a /KernelRoute
 * value); *start: the trigger session's start among the controller's calls
 * ((size_t)-1: none). */
static int collect_by_process_name(struct world *w, unsigned major, unsigned minor,
                                   unsigned build, const char *route, size_t *start)
{
  const char *args[] = { "collect", w->data, "/StopOnGen2GC", "/Process:w3wp", "/MaxCollectSec:1",
                         route, NULL };
  char tname[64];
  int rc;
  w->env.os.major = major;
  w->env.os.minor = minor;
  w->env.os.build = build;
  trigger_session_name(tname, sizeof(tname));
  rc = run(w, args);
  *start = fake_controller_find(&w->fake, "start", tname, 0);
  return rc;
}

/* A name needs the kernel's process events to find the process, so the
 * trigger session is a system logger; by /KernelRoute:systemProviders they
 * come from SystemProcessProvider {151f55dc-...} with
 * SYSTEM_PROCESS_KW_GENERAL 0x1 (the System Providers page). */
static void process_name_makes_the_trigger_session_a_system_logger(void **state)
{
  struct world *w = *state;
  size_t start, on;
  assert_int_equal(
      collect_by_process_name(w, 10, 0, 20348, "/KernelRoute:systemProviders", &start), 0);
  assert_true(start != (size_t)-1);
  assert_true(w->fake.calls[start].value & PLAN_SYSTEM_LOGGER_MODE);
  assert_true(w->fake.calls[start].value & PLAN_REAL_TIME_MODE);
  on = fake_controller_find(&w->fake, "enable", w->fake.calls[start].session, start + 1);
  assert_true(on != (size_t)-1);
  assert_int_equal(w->fake.calls[on].guid.data1, 0x151f55dc);
  assert_true(w->fake.calls[on].any & 0x1);
  every_start_stopped(w);
}

/* By default (here on build 20348) the process events come by the group
 * mask: the EnableFlags at start (EVENT_TRACE_FLAG_PROCESS 0x1), whose group
 * is Masks[0] PERF_PROCESS 0x1, and no System Provider. */
static void process_name_takes_the_group_mask_by_default(void **state)
{
  struct world *w = *state;
  const struct fake_session *s = NULL;
  size_t start, i;
  assert_int_equal(collect_by_process_name(w, 10, 0, 20348, "/KernelRoute:auto", &start), 0);
  assert_true(start != (size_t)-1);
  assert_true(w->fake.calls[start].value & PLAN_SYSTEM_LOGGER_MODE);
  for (i = 0; i < w->fake.session_count; i++)
    if (!strcmp(w->fake.sessions[i].name, w->fake.calls[start].session))
      s = &w->fake.sessions[i];
  assert_non_null(s);
  assert_true(s->enable_flags & 0x1);
  assert_true(s->group_mask[0] & 0x1);
  for (i = start + 1; i < w->fake.call_count; i++)
    assert_false(!strcmp(w->fake.calls[i].op, "enable") &&
                 w->fake.calls[i].guid.data1 == 0x151f55dc);
  every_start_stopped(w);
}

/* Windows 7 has no private system loggers: refused before anything starts. */
static void process_name_needs_windows_8(void **state)
{
  struct world *w = *state;
  size_t start;
  assert_int_equal(collect_by_process_name(w, 6, 1, 7601, "/KernelRoute:auto", &start),
                   ETWCAP_E_UNSUPPORTED);
  assert_true(logged(w, "needs Windows 8 / Server 2012"));
  assert_int_equal(fake_controller_count(&w->fake, "start", NULL), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(gen2_gc_stops_the_capture_at_the_gc),
    T(collect_multiple_restarts_and_names_each_capture),
    T(etwcap_stop_ends_a_collect_multiple_run),
    T(ctrl_c_ends_a_collect_multiple_run_with_its_capture),
    T(perf_counter_fires_after_arming),
    T(missing_counter_refuses_to_start),
    T(monitored_counter_is_logged_every_interval),
    T(missing_monitored_counter_refuses_to_start),
    T(event_log_message_fires),
    T(consumer_failure_stops_every_session),
    T(exception_trigger_enables_the_exception_keyword),
    T(process_name_makes_the_trigger_session_a_system_logger),
    T(process_name_takes_the_group_mask_by_default),
    T(process_name_needs_windows_8),
    T(a_fire_writes_a_snapshot_and_the_sessions_go_on),
    T(fires_within_the_cooldown_write_one_snapshot),
    T(collect_multiple_caps_the_snapshots),
    T(etwcap_snapshot_asks_a_running_collect_for_one),
    T(snapshots_need_the_ring_and_a_trigger),
    T(event_log_tells_the_operators),
    T(segments_rotate_every_hour_for_half_a_day),
    T(segments_keep_kernel_events_and_rundown_on_each_route),
    T(keep_days_spans_earlier_runs_and_keeps_fires),
    T(retention_deletes_only_the_names_it_writes),
    T(a_weeks_periodic_rundowns_keep_the_newest_and_merge),
    T(a_snapshot_merges_the_periodic_rundowns_kept),
    T(each_segment_merges_its_newest_periodic_rundowns),
    T(segments_refuse_what_cannot_work),
    T(the_periodic_rundown_lands_in_the_capture_at_its_period),
    T(start_trigger_waits_before_starting_anything),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
