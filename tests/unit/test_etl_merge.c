/* Merging session files: every input event exactly once, per-CPU time
 * order, one consistent header; refusals for files that do not share a clock
 * and for broken inputs, with nothing left under the output name. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "etw/merge/etl_merge.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "tests/fakes/event_fingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fps {
  struct fingerprint_list ev;
  struct etl_logfile header;
  int per_cpu_order_ok;
  uint64_t last_ts[4096];
  uint32_t buffers;
};

static int collect(void *ctx, const char *display, struct etl_reader *r)
{
  struct fps *s = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  s->header = *etl_reader_logfile(r);
  s->per_cpu_order_ok = 1;
  memset(s->last_ts, 0, sizeof(s->last_ts));
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    if (ev.buffer_index == 0)
      continue;
    if (ev.timestamp < s->last_ts[ev.cpu])
      s->per_cpu_order_ok = 0;
    s->last_ts[ev.cpu] = ev.timestamp;
    fingerprint_add(&s->ev, &ev);
  }
  s->buffers = etl_reader_buffers_seen(r);
  return rc;
}

static void read_fps(const char *path, struct fps *s)
{
  char err[512];
  memset(s, 0, sizeof(*s));
  assert_int_equal(etl_source_foreach(path, collect, s, err, sizeof(err)), 0);
}

static char diaghub[3][512];
static const char *const diaghub_members[3] = { "diaghub.kernel.1.etl",
                                                "diaghub.user_paged.1.etl",
                                                "diaghub.user_injected.1.etl" };

static int setup(void **state)
{
  char zip[512];
  const char *dir = test_samples_dir();
  int i;
  (void)state;
  if (!dir)
    return 0;
  snprintf(zip, sizeof(zip), "%s/ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
           dir);
  for (i = 0; i < 3; i++) {
    test_tmp_path(diaghub_members[i], diaghub[i], sizeof(diaghub[i]));
    test_extract_member(zip, diaghub_members[i], diaghub[i]);
  }
  return 0;
}

static int teardown(void **state)
{
  int i;
  (void)state;
  for (i = 0; i < 3; i++)
    if (diaghub[i][0])
      remove(diaghub[i]);
  return 0;
}

static int merge_paths(const char *const *paths, size_t n, const char *out, char *why,
                       size_t why_size, struct etl_merge_stats *st)
{
  struct etl_merge_input in[8];
  size_t i;
  int rc = 0;
  memset(in, 0, sizeof(in));
  for (i = 0; i < n && !rc; i++) {
    in[i].name = paths[i];
    rc = byte_source_open_file(&in[i].io, paths[i]);
  }
  if (!rc)
    rc = etl_merge(in, n, out, NULL, st, why, why_size);
  for (i = 0; i < n; i++)
    if (in[i].io.close)
      byte_source_close(&in[i].io);
  return rc;
}

static int exists(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

/* Inputs' events (multiset) against the output's, plus order and header. */
static void check_merge(const char *const *paths, size_t n, const char *out)
{
  struct fps all, one, merged;
  struct etl_merge_stats st;
  char why[512];
  int64_t start = INT64_MAX, end = 0;
  uint32_t lost = 0;
  size_t i;

  memset(&all, 0, sizeof(all));
  for (i = 0; i < n; i++) {
    size_t k;
    read_fps(paths[i], &one);
    for (k = 0; k < one.ev.count; k++) {
      struct event_fingerprint f = one.ev.items[k];
      if (all.ev.count == all.ev.cap) {
        all.ev.cap = all.ev.cap ? 2 * all.ev.cap : 4096;
        all.ev.items = realloc(all.ev.items, all.ev.cap * sizeof(f));
        assert_non_null(all.ev.items);
      }
      f.order = 0;
      all.ev.items[all.ev.count++] = f;
    }
    if (one.header.start_time < start)
      start = one.header.start_time;
    if (one.header.end_time > end)
      end = one.header.end_time;
    lost += one.header.events_lost;
    fingerprint_release(&one.ev);
  }
  assert_int_equal(merge_paths(paths, n, out, why, sizeof(why), &st), 0);
  assert_int_equal(st.events_in, all.ev.count);
  read_fps(out, &merged);
  print_message("merged %lu inputs: %lu events\n", (unsigned long)n,
                (unsigned long)merged.ev.count);
  assert_int_equal(merged.ev.count, all.ev.count);
  /* Every input event exactly once: equal multisets. */
  fingerprint_sort_all(&all.ev);
  fingerprint_sort_all(&merged.ev);
  for (i = 0; i < all.ev.count; i++)
    assert_int_equal(fingerprint_compare(&all.ev.items[i], &merged.ev.items[i]), 0);
  assert_true(merged.per_cpu_order_ok);
  assert_int_equal(merged.header.start_time, start);
  assert_int_equal(merged.header.end_time, end);
  assert_int_equal(merged.header.events_lost, lost);
  assert_int_equal(merged.header.buffers_written, merged.buffers);
  assert_true(merged.header.log_file_mode & ETL_MODE_RELOG);
  fingerprint_release(&all.ev);
  fingerprint_release(&merged.ev);
}

static void diaghub_sessions_merge(void **state)
{
  char out[512], path[512];
  const char *paths[3] = { diaghub[0], diaghub[1], diaghub[2] };
  (void)state;
  test_sample_path("", path, sizeof(path)); /* skips without samples */
  test_tmp_path("merged-diaghub.etl", out, sizeof(out));
  check_merge(paths, 3, out);
  remove(out);
}

static void a_file_merged_with_itself_has_every_event_twice(void **state)
{
  char out[512], gc[512];
  const char *paths[2];
  (void)state;
  test_sample_path("ms-Tx__Process.etl", gc, sizeof(gc));
  paths[0] = paths[1] = gc;
  test_tmp_path("merged-self.etl", out, sizeof(out));
  check_merge(paths, 2, out);
  remove(out);
}

/* The first 72 + 32 + 0x48 + 172 bytes of an ETL: the header buffer's
 * header, the logfile-header event's SYSTEM64 header (ThreadId at +8,
 * ProcessId at +12) and TRACE_LOGFILE_HEADER up to the end of its
 * TIME_ZONE_INFORMATION (at 0x48 in the x64 layout; docs/etl.md §3,
 * MS-DTYP 2.3.13 TIME_ZONE_INFORMATION: 172 bytes). */
#define HEADER_EVENT 72
#define TZ_AT (HEADER_EVENT + 32 + 0x48)
static void read_head(const char *path, uint8_t *out, size_t len)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(out, 1, len, f), len);
  fclose(f);
}

/* The merged header keeps the input's whole time zone block (StandardDate,
 * DaylightName, DaylightDate and DaylightBias, not only Bias and
 * StandardName) and the header event's process and thread ids, byte for
 * byte as the sample has them. */
static void the_header_keeps_time_zone_and_header_event_ids(void **state)
{
  uint8_t in[TZ_AT + 172], out_bytes[TZ_AT + 172], zero[88];
  char out[512], sample[512], why[512];
  const char *paths[2];
  struct etl_merge_stats st;
  (void)state;
  test_sample_path("ms-Tx__Process.etl", sample, sizeof(sample));
  test_tmp_path("merged-header.etl", out, sizeof(out));
  paths[0] = paths[1] = sample;
  assert_int_equal(merge_paths(paths, 2, out, why, sizeof(why), &st), 0);
  read_head(sample, in, sizeof(in));
  read_head(out, out_bytes, sizeof(out_bytes));
  /* The sample's DST half is not empty, so losing it would show. */
  memset(zero, 0, sizeof(zero));
  assert_memory_not_equal(in + TZ_AT + 68, zero, sizeof(zero));
  assert_memory_equal(out_bytes + TZ_AT, in + TZ_AT, 172);
  assert_memory_equal(out_bytes + HEADER_EVENT + 8, in + HEADER_EVENT + 8, 8);
  remove(out);
}

static struct etl_logfile header_like(const struct etl_logfile *model, int pointer_size)
{
  struct etl_logfile lf = *model;
  lf.pointer_size = (uint32_t)pointer_size;
  return lf;
}

/* A session that logged nothing (header buffer only) adds nothing. */
static void an_empty_session_adds_nothing(void **state)
{
  char out[512], empty[512], process[512];
  struct fps model;
  struct etl_writer_config cfg;
  struct etl_writer *w;
  const char *paths[2];
  (void)state;
  test_sample_path("ms-Tx__Process.etl", process, sizeof(process));
  read_fps(process, &model);
  fingerprint_release(&model.ev);
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = header_like(&model.header, 8);
  test_tmp_path("empty-session.etl", empty, sizeof(empty));
  assert_int_equal(etl_writer_open(&w, empty, &cfg), 0);
  assert_int_equal(etl_writer_finish(w), 0);
  paths[0] = empty;
  paths[1] = process;
  test_tmp_path("merged-empty.etl", out, sizeof(out));
  check_merge(paths, 2, out);
  remove(out);
  remove(empty);
}

/* Two 32-bit (x86 layout) session files with classic events merge into a
 * 32-bit file whose header the reader decodes. */
static void thirty_two_bit_sessions(void **state)
{
  char a[512], b[512], out[512];
  const char *paths[2] = { a, b };
  struct etl_writer_config cfg;
  struct etl_writer *w;
  uint8_t ev[0x38];
  int i, f;
  (void)state;
  test_tmp_path("x86-a.etl", a, sizeof(a));
  test_tmp_path("x86-b.etl", b, sizeof(b));
  for (f = 0; f < 2; f++) {
    memset(&cfg, 0, sizeof(cfg));
    cfg.header.pointer_size = 4;
    cfg.header.os_major = 6;
    cfg.header.os_minor = 1;
    cfg.header.build = 7601;
    cfg.header.perf_freq = 2000000;
    cfg.header.clock_type = ETL_CLOCK_QPC;
    cfg.header.start_time = INT64_C(129328528696596362) + f;
    cfg.header.end_time = INT64_C(129328528696596362) + 1000000 + f;
    cfg.header.header_timestamp = 100 + (uint64_t)f;
    cfg.header.cpus = 2;
    snprintf(cfg.header.logger_name, sizeof(cfg.header.logger_name), "x86-%d", f);
    assert_int_equal(etl_writer_open(&w, f ? b : a, &cfg), 0);
    for (i = 0; i < 50; i++) {
      uint64_t ts = 1000 + (uint64_t)i * 2 + (uint64_t)f;
      memset(ev, 0, sizeof(ev));
      ev[0] = sizeof(ev);
      ev[2] = 0x0A; /* FULL_HEADER32 */
      ev[3] = 0xC0;
      ev[4] = (uint8_t)i; /* Class.Type */
      memcpy(ev + 0x10, &ts, 8);
      ev[0x30] = (uint8_t)(f * 100 + i);
      assert_int_equal(etl_writer_write(w, (uint16_t)(i % 2), ts, ev, sizeof(ev)), 0);
    }
    assert_int_equal(etl_writer_finish(w), 0);
  }
  test_tmp_path("merged-x86.etl", out, sizeof(out));
  check_merge(paths, 2, out);
  {
    struct fps m;
    read_fps(out, &m);
    assert_int_equal(m.header.pointer_size, 4);
    assert_int_equal(m.header.start_time, INT64_C(129328528696596362));
    assert_int_equal(m.header.header_timestamp, 100);
    fingerprint_release(&m.ev);
  }
  remove(a);
  remove(b);
  remove(out);
}

static void different_clocks_are_refused(void **state)
{
  char out[512], win7[512], win10[512], why[512];
  const char *paths[2];
  struct etl_merge_stats st;
  (void)state;
  test_sample_path("ms-Tx__Process.etl", win7, sizeof(win7));
  test_sample_path("airbus-etl-parser__AMSITrace.etl", win10, sizeof(win10));
  paths[0] = win7;
  paths[1] = win10;
  test_tmp_path("merged-refused.etl", out, sizeof(out));
  assert_int_equal(merge_paths(paths, 2, out, why, sizeof(why), &st), ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(why, "PerfFreq"));
  assert_non_null(strstr(why, "AMSITrace"));
  assert_false(exists(out));
}

static void broken_inputs_are_named(void **state)
{
  char out[512], bad[512], process[512], why[512], trunc[512];
  const char *paths[2];
  struct etl_merge_stats st;
  FILE *f, *src;
  char buf[100000];
  size_t n;
  (void)state;
  test_sample_path("ms-Tx__Process.etl", process, sizeof(process));
  test_tmp_path("not-an-etl.etl", bad, sizeof(bad));
  f = fopen(bad, "wb");
  assert_non_null(f);
  fputs("this is not a trace\n", f);
  fclose(f);
  test_tmp_path("merged-bad.etl", out, sizeof(out));
  paths[0] = process;
  paths[1] = bad;
  assert_true(merge_paths(paths, 2, out, why, sizeof(why), &st) < 0);
  assert_non_null(strstr(why, "not-an-etl.etl"));
  assert_false(exists(out));

  /* A file cut in the middle of a buffer. */
  test_tmp_path("truncated.etl", trunc, sizeof(trunc));
  src = fopen(process, "rb");
  f = fopen(trunc, "wb");
  assert_non_null(src);
  assert_non_null(f);
  n = fread(buf, 1, sizeof(buf), src);
  fwrite(buf, 1, n - 5000, f);
  fclose(src);
  fclose(f);
  paths[1] = trunc;
  assert_true(merge_paths(paths, 2, out, why, sizeof(why), &st) < 0);
  assert_non_null(strstr(why, "truncated.etl"));
  assert_false(exists(out));
  remove(bad);
  remove(trunc);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(diaghub_sessions_merge),
    cmocka_unit_test(a_file_merged_with_itself_has_every_event_twice),
    cmocka_unit_test(the_header_keeps_time_zone_and_header_event_ids),
    cmocka_unit_test(an_empty_session_adds_nothing),
    cmocka_unit_test(thirty_two_bit_sessions),
    cmocka_unit_test(different_clocks_are_refused),
    cmocka_unit_test(broken_inputs_are_named),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
