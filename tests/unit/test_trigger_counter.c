/* The performance-counter triggers on a virtual clock with scripted
 * samples: PerfView's arming (the counter must first be on the other side),
 * MinSecForTrigger consecutive samples, a reset on an opposite sample,
 * DecayToZeroHours, /TriggerPollMSec, /StartOnPerfCounter gating the stop
 * triggers, a missing instance reading 0, the collection cycle after a
 * fire (DelayAfterTriggerSec, CollectMultiple) and the typeperf CSV source. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "triggers/trigger_counter.h"
#include "triggers/trigger_csv.h"
#include "triggers/trigger_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 INT64_C(133000000000000000) /* a UTC FILETIME */
#define SEC TRIGGER_TICKS_PER_SEC

/* A scripted counter: poll k (k = (now - T0) / poll) reads values[k];
 * exists[k] == 0 means the instance is missing, 2 means no sample yet. */
struct script {
  const char *category; /* which counter this script answers */
  double values[4000];
  int exists[4000];
  size_t n;
  int64_t poll;
  unsigned reads;
};

struct scripts {
  struct script *s[2];
};

static int s_open(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
                  size_t cap)
{
  struct scripts *ss = ctx;
  size_t i;
  for (i = 0; i < 2; i++)
    if (ss->s[i] && !strcmp(ss->s[i]->category, spec->category)) {
      *handle = ss->s[i];
      return 0;
    }
  snprintf(err, cap, "no counter %s", spec->category);
  return ETWCAP_E_USAGE;
}

static int s_read(void *ctx, void *handle, int64_t now, double *value)
{
  struct script *s = handle;
  int64_t k = (now - T0) / s->poll;
  (void)ctx;
  s->reads++;
  if (k < 0 || (size_t)k >= s->n)
    return TRIGGER_COUNTER_NO_SAMPLE;
  if (s->exists[k] == 2)
    return TRIGGER_COUNTER_NO_SAMPLE;
  if (!s->exists[k])
    return 0;
  *value = s->values[k];
  return 1;
}

static void s_close(void *ctx, void *handle)
{
  (void)ctx;
  (void)handle;
}

static struct script one, two;

static void script(struct script *s, const char *category, int64_t poll_ms, const double *v,
                   size_t n)
{
  size_t i;
  memset(s, 0, sizeof(*s));
  s->category = category;
  s->poll = poll_ms * (SEC / 1000);
  for (i = 0; i < n; i++) {
    s->values[i] = v[i];
    s->exists[i] = 1;
  }
  s->n = n;
}

/* Runs the engine on a virtual clock until `end` (ticks after T0), polling
 * the way a capture's loop does: sleep until the next deadline. */
static struct trigger_engine *run(const struct trigger_options *o, int64_t end)
{
  struct trigger_engine *e = NULL;
  struct scripts ss = { { &one, &two } };
  struct trigger_counter_source src = { &ss, s_open, s_read, s_close };
  int64_t now = T0; /* the virtual clock: each sleep jumps to its deadline */
  char err[1024];
  int rc = trigger_engine_create(&e, o, err, sizeof(err));
  if (rc)
    fail_msg("%s", err);
  trigger_engine_set_counter_source(e, &src);
  rc = trigger_engine_start(e, now, err, sizeof(err));
  if (rc)
    fail_msg("%s", err);
  for (;;) {
    int64_t next = trigger_engine_next_deadline(e);
    if (next > T0 + end)
      break;
    if (next > now)
      now = next;
    assert_int_equal(trigger_engine_advance(e, now), 0);
  }
  return e;
}

static char *gt90[] = { "A:Ctr:Inst > 90" };

static void options(struct trigger_options *o)
{
  trigger_options_init(o);
  o->stop_on_perf_counter = gt90;
  o->stop_on_perf_counter_count = 1;
}

static void expect_one_fire_at_poll(struct trigger_engine *e, int64_t k, int64_t poll_ms)
{
  assert_int_equal(trigger_engine_fire_count(e), 1);
  assert_string_equal(trigger_engine_fire_at(e, 0)->trigger, "StopOnPerfCounter");
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, T0 + k * poll_ms * (SEC / 1000));
}

static void arms_below_then_fires_after_min_sec(void **state)
{
  /* MinSecForTrigger 3 at one-second polls: PerfView's m_count > 3, i.e.
   * four samples to arm and four past the threshold. */
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 95, 95 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  script(&one, "A", 1000, v, 9);
  e = run(&o, 20 * SEC);
  expect_one_fire_at_poll(e, 7, 1000);
  assert_true(trigger_engine_fire_at(e, 0)->value == 95);
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail, "A:Ctr:Inst = 95 > 90"));
  trigger_engine_free(e);
}

static void three_high_samples_are_not_enough(void **state)
{
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 10, 10 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  script(&one, "A", 1000, v, 9);
  e = run(&o, 20 * SEC);
  assert_int_equal(trigger_engine_fire_count(e), 0);
  trigger_engine_free(e);
}

static void a_counter_already_past_waits_to_come_back(void **state)
{
  static const double v[] = { 95, 95, 95, 10, 10, 10, 10, 95, 95, 95, 95 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  script(&one, "A", 1000, v, 11);
  e = run(&o, 20 * SEC);
  expect_one_fire_at_poll(e, 10, 1000);
  trigger_engine_free(e);
}

static void an_opposite_sample_while_armed_restarts_the_count(void **state)
{
  static const double v[] = { 10, 10, 10, 10, 95, 95, 95, 10, 95, 95, 95, 95 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  script(&one, "A", 1000, v, 12);
  e = run(&o, 20 * SEC);
  expect_one_fire_at_poll(e, 11, 1000);
  trigger_engine_free(e);
}

static void less_than_and_min_sec_zero(void **state)
{
  static const double v[] = { 50, 3 };
  static char *lt[] = { "A:Ctr: < 5" }; /* an empty instance */
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = lt;
  o.stop_on_perf_counter_count = 1;
  o.min_sec_for_trigger = 0;
  script(&one, "A", 1000, v, 2);
  e = run(&o, 10 * SEC);
  expect_one_fire_at_poll(e, 1, 1000);
  trigger_engine_free(e);
}

static void poll_interval_sets_the_sample_count(void **state)
{
  /* 250 ms polls and MinSecForTrigger 1: 1000/250 + 1 = 5 samples. */
  double v[10] = { 10, 10, 10, 10, 10, 95, 95, 95, 95, 95 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  assert_int_equal(trigger_counter_samples_needed(1, 250), 5);
  assert_int_equal(trigger_counter_samples_needed(3, 1000), 4);
  assert_int_equal(trigger_counter_samples_needed(1, 300), 5); /* 1000/300 rounds up */
  options(&o);
  o.min_sec_for_trigger = 1;
  o.trigger_poll_msec = 250;
  script(&one, "A", 250, v, 10);
  e = run(&o, 10 * SEC);
  expect_one_fire_at_poll(e, 9, 250);
  assert_int_equal(one.reads, 10);
  trigger_engine_free(e);
}

static void the_threshold_decays_to_zero(void **state)
{
  /* 61 against "> 100" decaying to zero over one hour: past once
   * 100 * (3600 - k) / 3600 < 61, i.e. k > 1404; then three more polls. */
  static char *gt100[] = { "A:Ctr:Inst > 100" };
  struct trigger_options o;
  struct trigger_engine *e;
  double v[2000];
  size_t k;
  int64_t first_past = -1;
  (void)state;
  for (k = 0; k < 2000; k++)
    v[k] = 61;
  for (k = 0; k < 2000 && first_past < 0; k++)
    if (61 * 3600 > 100 * (3600 - (int64_t)k))
      first_past = (int64_t)k;
  assert_int_equal(first_past, 1405);
  trigger_options_init(&o);
  o.stop_on_perf_counter = gt100;
  o.stop_on_perf_counter_count = 1;
  o.decay_to_zero_hours = 1;
  script(&one, "A", 1000, v, 2000);
  e = run(&o, 2000 * SEC);
  expect_one_fire_at_poll(e, first_past + 3, 1000);
  assert_non_null(strstr(trigger_engine_fire_at(e, 0)->detail, "decayed from 100"));
  trigger_engine_free(e);
}

static void start_counter_gates_the_stop_counter(void **state)
{
  /* B (start) arms on polls 0-3 and fires on poll 7; A (stop) is polled
   * only from then on: its high samples before do not count, it arms on
   * polls 7-10 and fires on poll 14. */
  static const double b[] = { 1, 1, 1, 1, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60 };
  static const double a[] = { 95, 95, 95, 95, 95, 95, 95, 10, 10, 10, 10, 95, 95, 95, 95, 95 };
  static char *start[] = { "B:Ctr: > 50" };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  o.start_on_perf_counter = start;
  o.start_on_perf_counter_count = 1;
  script(&one, "A", 1000, a, 16);
  script(&two, "B", 1000, b, 16);
  e = run(&o, 30 * SEC);
  assert_int_equal(trigger_engine_fire_count(e), 2);
  assert_string_equal(trigger_engine_fire_at(e, 0)->trigger, "StartOnPerfCounter");
  assert_int_equal(trigger_engine_fire_at(e, 0)->role, TRIGGER_ROLE_START);
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, T0 + 7 * SEC);
  assert_string_equal(trigger_engine_fire_at(e, 1)->trigger, "StopOnPerfCounter");
  assert_int_equal(trigger_engine_fire_at(e, 1)->filetime, T0 + 14 * SEC);
  assert_int_equal(trigger_engine_collection_start(e), T0 + 7 * SEC);
  trigger_engine_free(e);
  memset(&two, 0, sizeof(two));
}

static void missing_instance_reads_zero_and_no_sample_is_skipped(void **state)
{
  /* "< 5": a missing instance reads 0, which is past the threshold, so it
   * cannot arm until the instance appears; polls without a sample do not
   * count at all. */
  static const double v[] = { 0, 0, 0, 0, 0, 10, 10, 10, 10, 1, 1, 1, 1 };
  static char *lt[] = { "A:Ctr:Inst < 5" };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = lt;
  o.stop_on_perf_counter_count = 1;
  script(&one, "A", 1000, v, 13);
  one.exists[0] = one.exists[1] = 2; /* no sample yet */
  one.exists[2] = one.exists[3] = one.exists[4] = 0; /* instance missing */
  e = run(&o, 20 * SEC);
  expect_one_fire_at_poll(e, 12, 1000);
  trigger_engine_free(e);
}

static void delay_after_trigger_and_collect_multiple(void **state)
{
  /* Fires at poll 7; the collection stops 5 s later (poll 12), the second
   * collection starts there and must arm again: polls 12-15 low, 16-19 high. */
  double v[30];
  size_t k;
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  for (k = 0; k < 30; k++)
    v[k] = (k < 4 || (k >= 12 && k < 16)) ? 10 : 95;
  options(&o);
  o.collect_multiple = 2;
  script(&one, "A", 1000, v, 30);
  e = run(&o, 40 * SEC);
  assert_int_equal(trigger_engine_fire_count(e), 2);
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, T0 + 7 * SEC);
  assert_int_equal(trigger_engine_fire_at(e, 0)->stop_at, T0 + 12 * SEC);
  assert_int_equal(trigger_engine_fire_at(e, 1)->collection, 2);
  assert_int_equal(trigger_engine_fire_at(e, 1)->filetime, T0 + 19 * SEC);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  assert_int_equal(trigger_engine_next_deadline(e), INT64_MAX);
  trigger_engine_free(e);
}

static void max_collect_sec_fires_at_its_deadline(void **state)
{
  static const double v[] = { 10 };
  struct trigger_options o;
  struct trigger_engine *e;
  (void)state;
  options(&o);
  o.max_collect_sec = 30;
  script(&one, "A", 1000, v, 1);
  e = run(&o, 100 * SEC);
  assert_int_equal(trigger_engine_fire_count(e), 1);
  assert_string_equal(trigger_engine_fire_at(e, 0)->trigger, "MaxCollectSec");
  assert_int_equal(trigger_engine_fire_at(e, 0)->filetime, T0 + 30 * SEC);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  trigger_engine_free(e);
}

static void a_counter_the_source_lacks_is_an_error(void **state)
{
  static char *bad[] = { "Nope:Ctr:Inst > 1" };
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  struct scripts ss = { { &one, NULL } };
  struct trigger_counter_source src = { &ss, s_open, s_read, s_close };
  char err[512];
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = bad;
  o.stop_on_perf_counter_count = 1;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), 0);
  assert_int_equal(trigger_engine_start(e, T0, err, sizeof(err)), ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(err, "StopOnPerfCounter"));
  trigger_engine_set_counter_source(e, &src);
  assert_int_equal(trigger_engine_start(e, T0, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnPerfCounter: no counter Nope"));
  trigger_engine_free(e);
}

/* --- the typeperf CSV source ------------------------------------------------------- */

static const char typeperf[] =
  "\"(PDH-CSV 4.0) (Pacific Daylight Time)(420)\",\"\\\\WEB01\\Processor(_Total)\\% Processor "
  "Time\",\"\\\\WEB01\\Memory\\Available MBytes\",\"\\\\WEB01\\Process(w3wp#1)\\Private "
  "Bytes\"\r\n"
  "\"04/15/2024 10:00:01.123\",\"12.5\",\"2048\",\" \"\r\n"
  "\"04/15/2024 10:00:02.123\",\"97.25\",\"2040\",\"1000000\"\r\n"
  "\"04/15/2024 10:00:03.123\",\"99\",\"2030\",\" \"\r\n";

static void csv_reads_typeperf_output(void **state)
{
  struct trigger_csv *c = NULL;
  struct trigger_counter_source src;
  struct trigger_counter_spec cpu, mem, w3wp, none;
  void *h;
  double v = -1;
  char err[512];
  /* 2024-04-15T10:00:01.123 at UTC-7 (bias 420 minutes) is 17:00:01.123Z,
   * Unix time 1713200401. */
  int64_t t1 = INT64_C(1713200401) * SEC + INT64_C(116444736000000000) + 1230000;
  (void)state;
  assert_int_equal(trigger_csv_parse(&c, typeperf, sizeof(typeperf) - 1, "log.csv", err,
                                     sizeof(err)),
                   0);
  assert_int_equal(trigger_csv_rows(c), 3);
  assert_int_equal(trigger_csv_columns(c), 3);
  assert_int_equal(trigger_csv_first_time(c), t1);
  assert_int_equal(trigger_csv_last_time(c), t1 + 2 * SEC);
  src = trigger_csv_source(c);
  assert_int_equal(trigger_parse_counter_spec("Processor:% Processor Time:_Total > 90", &cpu, err,
                                              sizeof(err)),
                   0);
  assert_int_equal(trigger_parse_counter_spec("memory:available mbytes: < 100", &mem, err,
                                              sizeof(err)),
                   0);
  assert_int_equal(trigger_parse_counter_spec("Process:Private Bytes:w3wp#1 > 5", &w3wp, err,
                                              sizeof(err)),
                   0);
  assert_int_equal(trigger_parse_counter_spec("Processor:% Idle Time:_Total > 5", &none, err,
                                              sizeof(err)),
                   0);
  assert_int_equal(src.open(src.ctx, &cpu, &h, err, sizeof(err)), 0);
  assert_int_equal(src.read(src.ctx, h, t1 - 1, &v), TRIGGER_COUNTER_NO_SAMPLE);
  assert_int_equal(src.read(src.ctx, h, t1, &v), 1);
  assert_true(v == 12.5);
  assert_int_equal(src.read(src.ctx, h, t1 + SEC - 1, &v), 1); /* the last sample holds */
  assert_true(v == 12.5);
  assert_int_equal(src.read(src.ctx, h, t1 + 10 * SEC, &v), 1);
  assert_true(v == 99);
  assert_int_equal(src.open(src.ctx, &mem, &h, err, sizeof(err)), 0); /* any case */
  assert_int_equal(src.read(src.ctx, h, t1 + SEC, &v), 1);
  assert_true(v == 2040);
  assert_int_equal(src.open(src.ctx, &w3wp, &h, err, sizeof(err)), 0);
  assert_int_equal(src.read(src.ctx, h, t1, &v), 0); /* " ": the instance did not exist */
  assert_int_equal(src.read(src.ctx, h, t1 + SEC, &v), 1);
  assert_true(v == 1000000);
  assert_int_equal(src.open(src.ctx, &none, &h, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "no column for Processor:% Idle Time:_Total"));
  trigger_csv_free(c);
}

static void csv_errors_name_the_line(void **state)
{
  struct trigger_csv *c = NULL;
  char err[512];
  static const char bad_time[] = "\"(PDH-CSV 4.0)\",\"\\\\M\\A\\B\"\n\"yesterday\",\"1\"\n";
  static const char bad_count[] = "\"(PDH-CSV 4.0)\",\"\\\\M\\A\\B\"\n\"04/15/2024 10:00:01\"\n";
  static const char bad_path[] = "\"(PDH-CSV 4.0)\",\"no path\"\n";
  static const char backwards[] =
    "\"x\",\"\\A\\B\"\n\"2024-04-15T10:00:02Z\",\"1\"\n\"2024-04-15T10:00:01Z\",\"1\"\n";
  (void)state;
  assert_int_equal(trigger_csv_parse(&c, bad_time, strlen(bad_time), "f.csv", err, sizeof(err)),
                   ETWCAP_E_FORMAT);
  assert_non_null(strstr(err, "f.csv: line 2: 'yesterday' is not a time"));
  assert_int_equal(
    trigger_csv_parse(&c, bad_count, strlen(bad_count), "f.csv", err, sizeof(err)),
    ETWCAP_E_FORMAT);
  assert_non_null(strstr(err, "line 2: 1 fields where the header has 2"));
  assert_int_equal(trigger_csv_parse(&c, bad_path, strlen(bad_path), "f.csv", err, sizeof(err)),
                   ETWCAP_E_FORMAT);
  assert_non_null(strstr(err, "line 1, column 2"));
  assert_int_equal(
    trigger_csv_parse(&c, backwards, strlen(backwards), "f.csv", err, sizeof(err)),
    ETWCAP_E_FORMAT);
  assert_non_null(strstr(err, "line 3: the samples are not in time order"));
  assert_null(c);
}

/* An allocator that counts the bytes alive through etwcap's allocator and
 * their peak (each block carries its size in front). */
#define TRACK_HEAD 16
static size_t track_live, track_peak;

static void *track_malloc(size_t n)
{
  unsigned char *b = n <= SIZE_MAX - TRACK_HEAD ? malloc(n + TRACK_HEAD) : NULL;
  if (!b)
    return NULL;
  memcpy(b, &n, sizeof(n));
  track_live += n;
  if (track_live > track_peak)
    track_peak = track_live;
  return b + TRACK_HEAD;
}

static void *track_calloc(size_t count, size_t size)
{
  void *p = count && size > SIZE_MAX / count ? NULL : track_malloc(count * size);
  if (p)
    memset(p, 0, count * size);
  return p;
}

static void track_free(void *p)
{
  size_t n;
  if (!p)
    return;
  memcpy(&n, (unsigned char *)p - TRACK_HEAD, sizeof(n));
  track_live -= n;
  free((unsigned char *)p - TRACK_HEAD);
}

static void *track_realloc(void *p, size_t n)
{
  void *q = track_malloc(n);
  size_t old;
  if (!q || !p)
    return q;
  memcpy(&old, (unsigned char *)p - TRACK_HEAD, sizeof(old));
  memcpy(q, p, old < n ? old : n);
  track_free(p);
  return q;
}

static const struct etwcap_allocator tracking = { track_malloc, track_calloc, track_realloc,
                                                  track_free };

/* trigger_csv_parse through the tracking allocator, from a count of 0. */
static int parse_tracked(struct trigger_csv **c, const char *text, size_t len, const char *name,
                         char *err, size_t cap)
{
  int rc;
  track_live = track_peak = 0;
  etwcap_set_allocator(&tracking);
  rc = trigger_csv_parse(c, text, len, name, err, cap);
  etwcap_set_allocator(NULL);
  return rc;
}

/* A counter log of `cols` columns ("\\M\O(i)\C") and `rows` samples. */
static char *wide_csv(size_t cols, size_t rows, size_t *len)
{
  size_t cap = 64 + cols * 32 + rows * (32 + cols * 2), n, i, r;
  char *t = malloc(cap);
  assert_non_null(t);
  n = (size_t)snprintf(t, cap, "\"(PDH-CSV 4.0) (UTC)(0)\"");
  for (i = 0; i < cols; i++)
    n += (size_t)snprintf(t + n, cap - n, ",\"\\\\M\\O(%lu)\\C\"", (unsigned long)i);
  for (r = 0; r < rows; r++) {
    n += (size_t)snprintf(t + n, cap - n, "\n\"01/01/2024 00:00:%02lu.000\"", (unsigned long)r);
    for (i = 0; i < cols; i++)
      n += (size_t)snprintf(t + n, cap - n, ",%lu", (unsigned long)(i % 10));
  }
  *len = n;
  return t;
}

/* A wide log takes memory in proportion to its size: no fixed-size name
 * buffers per column, no rows reserved that the file cannot hold.  (Its
 * values are not quoted, as RFC 4180 allows and typeperf does not.) */
static void csv_memory_follows_the_file(void **state)
{
  struct trigger_csv *c = NULL;
  struct trigger_counter_source src;
  struct trigger_counter_spec spec;
  char err[512];
  size_t len;
  char *text = wide_csv(20000, 2, &len);
  void *h;
  double v = -1;
  int rc;
  (void)state;
  rc = parse_tracked(&c, text, len, "wide.csv", err, sizeof(err));
  if (rc)
    fail_msg("%s", err);
  /* The copy of the text, the names, 32 bytes of table and 16 of values a
   * column: about five times this file.  Before, the column table alone
   * took 1.5 KiB a column and 256 rows were reserved (over 150 times). */
  if (track_peak > 8 * len)
    fail_msg("parsing %lu bytes took %lu bytes at the peak", (unsigned long)len,
             (unsigned long)track_peak);
  assert_int_equal(trigger_csv_columns(c), 20000);
  assert_int_equal(trigger_csv_rows(c), 2);
  src = trigger_csv_source(c);
  assert_int_equal(trigger_parse_counter_spec("O:C:19997 > 5", &spec, err, sizeof(err)), 0);
  assert_int_equal(src.open(src.ctx, &spec, &h, err, sizeof(err)), 0);
  assert_int_equal(src.read(src.ctx, h, trigger_csv_last_time(c), &v), 1);
  assert_true(v == 7);
  etwcap_set_allocator(&tracking);
  trigger_csv_free(c);
  etwcap_set_allocator(NULL);
  assert_int_equal(track_live, 0);
  free(text);
}

/* A header of more columns than any counter log has is refused, naming the
 * line and the limit, before anything is sized by it. */
static void csv_too_many_columns_is_refused(void **state)
{
  struct trigger_csv *c = NULL;
  char err[512];
  size_t len;
  char *text = wide_csv(1000001, 0, &len);
  int rc;
  (void)state;
  rc = parse_tracked(&c, text, len, "huge.csv", err, sizeof(err));
  assert_int_equal(rc, ETWCAP_E_FORMAT);
  assert_null(c);
  if (!strstr(err, "huge.csv: line 1:") || !strstr(err, "1000001 counters") ||
      !strstr(err, "1000000"))
    fail_msg("%s", err);
  assert_true(track_peak <= len + 1024); /* the text's copy and the table itself */
  assert_int_equal(track_live, 0);
  free(text);
}

static void csv_times(void **state)
{
  int64_t t;
  int64_t unix_2020 = INT64_C(1595981223) * SEC + INT64_C(116444736000000000);
  (void)state;
  assert_int_equal(trigger_csv_parse_time("07/29/2020 00:07:03.000", 0, &t), 0);
  assert_int_equal(t, unix_2020);
  assert_int_equal(trigger_csv_parse_time("2020-07-29T00:07:03.0000001Z", 0, &t), 0);
  assert_int_equal(t, unix_2020 + 1);
  assert_int_equal(trigger_csv_parse_time("07/28/2020 17:07:03", 420, &t), 0);
  assert_int_equal(t, unix_2020);
  assert_int_equal(trigger_csv_parse_time("07/29/2020 01:07:03", -60, &t), 0);
  assert_int_equal(t, unix_2020);
  assert_int_equal(trigger_csv_parse_time("13/01/2020 00:00:00", 0, &t), -1);
  assert_int_equal(trigger_csv_parse_time("07/29/2020 00:07", 0, &t), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(arms_below_then_fires_after_min_sec),
    cmocka_unit_test(three_high_samples_are_not_enough),
    cmocka_unit_test(a_counter_already_past_waits_to_come_back),
    cmocka_unit_test(an_opposite_sample_while_armed_restarts_the_count),
    cmocka_unit_test(less_than_and_min_sec_zero),
    cmocka_unit_test(poll_interval_sets_the_sample_count),
    cmocka_unit_test(the_threshold_decays_to_zero),
    cmocka_unit_test(start_counter_gates_the_stop_counter),
    cmocka_unit_test(missing_instance_reads_zero_and_no_sample_is_skipped),
    cmocka_unit_test(delay_after_trigger_and_collect_multiple),
    cmocka_unit_test(max_collect_sec_fires_at_its_deadline),
    cmocka_unit_test(a_counter_the_source_lacks_is_an_error),
    cmocka_unit_test(csv_reads_typeperf_output),
    cmocka_unit_test(csv_errors_name_the_line),
    cmocka_unit_test(csv_memory_follows_the_file),
    cmocka_unit_test(csv_too_many_columns_is_refused),
    cmocka_unit_test(csv_times),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
