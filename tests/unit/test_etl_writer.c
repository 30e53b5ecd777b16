/* The ETL writer: buffers laid out as Windows lays them out, and a read ->
 * write -> read round trip of every real sample keeps every event (all but
 * the header-buffer events, which the writer regenerates) and the header's
 * clock. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "tests/fakes/event_fingerprint.h"
#include "tests/fakes/fault_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct collected {
  struct fingerprint_list events;
  struct etl_logfile header;
  uint32_t header_pid, header_tid;
  uint8_t tz[172];
};

#define MAX_MEMBERS 8

struct copy_job {
  char out_path[MAX_MEMBERS][512];
  struct collected original[MAX_MEMBERS];
  int members;
};

/* Reads one ETL, fingerprints its events and writes them to out_path. */
static int copy_one(void *ctx, const char *display, struct etl_reader *r)
{
  struct copy_job *job = ctx;
  struct collected *original;
  struct etl_writer_config cfg;
  struct etl_writer *w;
  struct etw_event ev;
  char name[64];
  int rc;
  (void)display;
  assert_true(job->members < MAX_MEMBERS);
  original = &job->original[job->members];
  snprintf(name, sizeof(name), "roundtrip-%d.etl", job->members);
  test_tmp_path(name, job->out_path[job->members], sizeof(job->out_path[0]));
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = *etl_reader_logfile(r);
  original->header = cfg.header;
  /* Keep the input's buffer size when its events need it (BondEtwSample: 1 MiB). */
  cfg.buffer_size = cfg.header.buffer_size > 65536 ? cfg.header.buffer_size : 65536;
  assert_int_equal(etl_writer_open(&w, job->out_path[job->members], &cfg), 0);
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    if (ev.buffer_index == 0)
      continue; /* the writer makes its own header buffer */
    fingerprint_add(&original->events, &ev);
    assert_int_equal(etl_writer_write(w, ev.cpu, ev.timestamp, ev.raw, ev.raw_size), 0);
  }
  assert_int_equal(rc, 0);
  assert_int_equal(etl_writer_finish(w), 0);
  job->members++;
  return 0;
}

static int collect_one(void *ctx, const char *display, struct etl_reader *r)
{
  struct collected *c = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  c->header = *etl_reader_logfile(r);
  while ((rc = etl_reader_next(r, &ev)) > 0)
    if (ev.buffer_index != 0)
      fingerprint_add(&c->events, &ev);
  return rc;
}

struct buffer_check {
  uint32_t buffers;
  uint32_t buffer_size;
  int bad;
};

static int check_buffer(void *ctx, const struct etl_buffer_header *h, uint64_t offset,
                        uint32_t index)
{
  struct buffer_check *b = ctx;
  (void)offset;
  b->buffers++;
  if (h->buffer_size != b->buffer_size || h->sequence != index ||
      !(h->flags & ETL_BUFFER_FLAG_PROC_INDEX) || h->filled % 8 != 0 ||
      h->type != (index == 0 ? ETL_BUFFER_TYPE_HEADER : ETL_BUFFER_TYPE_GENERIC))
    b->bad++;
  return 0;
}

static int scan_one(void *ctx, const char *display, struct etl_reader *r)
{
  (void)display;
  return etl_reader_scan_buffers(r, check_buffer, ctx);
}

static void compare_member(const char *out_path, struct collected *original, const char *label)
{
  struct collected copy;
  struct buffer_check bc;
  char err[512];
  size_t i;

  memset(&copy, 0, sizeof(copy));
  assert_int_equal(etl_source_foreach(out_path, collect_one, &copy, err, sizeof(err)), 0);
  print_message("%s: %lu events\n", label, (unsigned long)original->events.count);
  assert_int_equal(copy.events.count, original->events.count);
  /* Per-CPU order survives the round trip, so compare per-CPU sequences. */
  fingerprint_sort_by_cpu(&original->events);
  fingerprint_sort_by_cpu(&copy.events);
  for (i = 0; i < copy.events.count; i++)
    if (fingerprint_compare(&original->events.items[i], &copy.events.items[i]) != 0)
      fail_msg("%s: event %lu differs after the round trip (cpu %u ts %llu)", label,
               (unsigned long)i, (unsigned)copy.events.items[i].cpu,
               (unsigned long long)copy.events.items[i].timestamp);
  assert_int_equal(copy.header.start_time, original->header.start_time);
  assert_int_equal(copy.header.perf_freq, original->header.perf_freq);
  assert_int_equal(copy.header.clock_type, original->header.clock_type);
  assert_int_equal(copy.header.header_timestamp, original->header.header_timestamp);
  assert_int_equal(copy.header.end_time, original->header.end_time);
  assert_string_equal(copy.header.logger_name, original->header.logger_name);

  memset(&bc, 0, sizeof(bc));
  bc.buffer_size = copy.header.buffer_size;
  assert_int_equal(etl_source_foreach(out_path, scan_one, &bc, err, sizeof(err)), 0);
  assert_int_equal(bc.bad, 0);
  assert_int_equal(bc.buffers, copy.header.buffers_written);
  fingerprint_release(&original->events);
  fingerprint_release(&copy.events);
  remove(out_path);
}

static void round_trip(const char *sample_path, const char *label)
{
  struct copy_job *job = calloc(1, sizeof(*job));
  char err[512];
  int m;
  assert_non_null(job);
  assert_int_equal(etl_source_foreach(sample_path, copy_one, job, err, sizeof(err)), 0);
  assert_true(job->members > 0);
  for (m = 0; m < job->members; m++)
    compare_member(job->out_path[m], &job->original[m], label);
  free(job);
}

static const char *const samples[] = {
  "airbus-etl-parser__AMSITrace.etl", "airbus-etl-parser__ShutdownPerfDiagLogger.etl",
  "airbus-etl-parser__lxcore_kernel.etl", "ms-Tx__BondEtwSample.etl",
  "ms-Tx__CrossMachineHTTP.etl", "ms-Tx__KernelNetwork.etl", "ms-Tx__Process.etl",
  "ms-krabsetw__powershell.etl", "ms-perfview__SelfDescribingSingleEvent.etl",
  "ms-perfview__gcevents.etl.zip", "ms-perfview__gcrundownevents.etl.zip",
  "ms-perfview__net.4.5.2.x64.etl.zip", "ms-perfview__primitive-types.etl.zip",
  "rbeesley+hw3d__trace.etl", "ms-perfview__diaghub-dotnetcore3.1-win-x64-diagsession.zip",
};

static void every_sample_round_trips(void **state)
{
  char path[512];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
    round_trip(test_sample_path(samples[i], path, sizeof(path)),
               samples[i]);
}

static struct etl_logfile small_header(void)
{
  struct etl_logfile lf;
  memset(&lf, 0, sizeof(lf));
  lf.os_major = 10;
  lf.build = 20348;
  lf.cpus = 2;
  lf.pointer_size = 8;
  lf.perf_freq = 10000000;
  lf.start_time = INT64_C(133232283966946549);
  lf.clock_type = ETL_CLOCK_QPC;
  lf.header_timestamp = 1000;
  snprintf(lf.logger_name, sizeof(lf.logger_name), "etwcap");
  snprintf(lf.log_file_name, sizeof(lf.log_file_name), "C:\\t\\x.etl");
  return lf;
}

/* A FULL_HEADER64 classic event of `size` bytes at `ts` (docs/etl.md §4.2). */
static void classic_event(uint8_t *e, uint16_t size, uint64_t ts)
{
  memset(e, 0xAB, size);
  e[0] = (uint8_t)size;
  e[1] = (uint8_t)(size >> 8);
  e[2] = 0x14;
  e[3] = 0xC0;
  memset(e + 4, 0, 0x2C);
  e[0x10] = (uint8_t)ts;
  e[0x11] = (uint8_t)(ts >> 8);
}

/* Buffer fields checked byte by byte against the layout of docs/etl.md §2
 * (and what the writer puts there, §8 rules 2-4). */
static void buffer_layout(void **state)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  char path[512];
  uint8_t ev[0x3C], *file;
  FILE *f;
  long size;
  int i;
  (void)state;
  test_tmp_path("layout.etl", path, sizeof(path));
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = small_header();
  cfg.buffer_size = 8192;
  cfg.header_pid = 4;
  cfg.header_tid = 8;
  assert_int_equal(etl_writer_open(&w, path, &cfg), 0);
  for (i = 0; i < 300; i++) { /* 300 x 64 bytes: CPU 1 needs three buffers */
    classic_event(ev, sizeof(ev), 2000 + (uint64_t)i);
    assert_int_equal(etl_writer_write(w, 1, 2000 + (uint64_t)i, ev, sizeof(ev)), 0);
  }
  assert_int_equal(etl_writer_finish(w), 0);

  f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  assert_int_equal(size, 4 * 8192); /* header + 3 data buffers */
  file = malloc((size_t)size);
  rewind(f);
  assert_int_equal(fread(file, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  /* Buffer 0: HEADER, FLUSH_MARKER|PROC_INDEX, the logfile-header event first. */
  assert_int_equal(etl_le32(file + 0x00), 8192);
  assert_int_equal(etl_le16(file + 0x36), ETL_BUFFER_TYPE_HEADER);
  assert_int_equal(etl_le16(file + 0x34), 0x21);
  assert_int_equal(etl_le32(file + 72), 0xC0020002u); /* SYSTEM64 marker */
  assert_int_equal(etl_le16(file + 72 + 6), 0x0000);   /* hook: logfile header */
  assert_int_equal(etl_le32(file + 72 + 8), 8);        /* tid */
  assert_int_equal(etl_le32(file + 72 + 12), 4);       /* pid */
  assert_int_equal(etl_le64(file + 72 + 0x10), 1000);  /* header timestamp */
  assert_int_equal(etl_le32(file + 72 + 0x20 + 0x24), 4); /* BuffersWritten */
  assert_int_equal(etl_le64(file + 72 + 0x20 + 0x100), 10000000); /* PerfFreq */
  /* Buffer 1: CPU 1, sequence 1, 127 events of 64 bytes (72 + 127*64 = 8200 > 8192 => 126). */
  assert_int_equal(etl_le16(file + 8192 + 0x28), 1);
  assert_int_equal(etl_le64(file + 8192 + 0x18), 1);
  assert_int_equal(etl_le16(file + 8192 + 0x34), ETL_BUFFER_FLAG_PROC_INDEX);
  assert_int_equal(etl_le32(file + 8192 + 0x30), 72 + 126 * 64);
  assert_int_equal(etl_le32(file + 8192 + 0x04), 72 + 126 * 64);
  assert_int_equal(etl_le64(file + 8192 + 0x10), 2000 + 125); /* flush time: last event */
  assert_int_equal(file[8192 + 72 + 0x3C], 0); /* alignment padding after a 60-byte event */
  for (i = 72 + 126 * 64; i < 8192; i++)
    assert_int_equal(file[8192 + i], 0xFF);
  assert_int_equal(etl_le64(file + 3 * 8192 + 0x18), 3);
  free(file);
  remove(path);
}

static void bad_records_and_sizes_are_refused(void **state)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  char path[512];
  uint8_t big[8192];
  (void)state;
  test_tmp_path("refused.etl", path, sizeof(path));
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = small_header();
  cfg.buffer_size = 1000; /* not allowed: too small */
  assert_int_equal(etl_writer_open(&w, path, &cfg), ETWCAP_E_RANGE);
  cfg.buffer_size = 8192;
  assert_int_equal(etl_writer_open(&w, path, &cfg), 0);
  classic_event(big, 0x30, 1);
  assert_int_equal(etl_writer_write(w, 0, 1, big, 8192 - 72 + 1), ETWCAP_E_RANGE);
  /* the error is sticky, and finish removes the partial file */
  assert_int_equal(etl_writer_write(w, 0, 1, big, 0x30), ETWCAP_E_RANGE);
  assert_int_equal(etl_writer_finish(w), ETWCAP_E_RANGE);
  {
    int64_t size;
    assert_int_equal(os_file_size(path, &size), ETWCAP_E_NOENT);
  }
}

static void disk_full_removes_the_partial_file(void **state)
{
  unsigned n;
  char path[512];
  uint8_t ev[0x40];
  (void)state;
  test_tmp_path("diskfull.etl", path, sizeof(path));
  for (n = 1; n <= 4; n++) {
    struct fault_io f;
    struct etl_writer_config cfg;
    struct etl_writer *w;
    int64_t size;
    int i, rc;
    fault_io_init(&f);
    f.fail_write_at = n;
    memset(&cfg, 0, sizeof(cfg));
    cfg.header = small_header();
    cfg.buffer_size = 4096;
    cfg.io = &f.io;
    rc = etl_writer_open(&w, path, &cfg);
    if (rc == 0) {
      int finish_rc;
      for (i = 0; i < 200 && !rc; i++) {
        classic_event(ev, sizeof(ev), (uint64_t)i);
        rc = etl_writer_write(w, (uint16_t)(i % 2), (uint64_t)i, ev, sizeof(ev));
      }
      finish_rc = etl_writer_finish(w);
      if (!rc)
        rc = finish_rc;
    }
    assert_int_equal(rc, ETWCAP_E_NOSPC);
    assert_int_equal(os_file_size(path, &size), ETWCAP_E_NOENT);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(buffer_layout),
    cmocka_unit_test(bad_records_and_sizes_are_refused),
    cmocka_unit_test(disk_full_removes_the_partial_file),
    cmocka_unit_test(every_sample_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
