/* The model of `etwcap report` (src/report/report_model.c and its parts:
 * exceptions, processes, CPU samples, images, timeline) on the real
 * samples.  Expected counts come from the golden listing of
 * ms-perfview__net.4.5.2.x64.etl.zip (samples/golden, fox-it/dissect.etl,
 * an independent parser): 179474 events; one CLR event id 80 (Exception/
 * Start, v1); 32 kernel Process/DCStart (hook 0x0303) and one Process/Start
 * (0x0301); 79528 PerfInfo SampleProf (0x0F2E); 3596 kernel image events
 * (0x030A, 0x1402-0x1404) and 3590 KernelTraceControl ImageID Info events
 * (b3e675d7-..., opcode 0).  The exception's type is the one the issue names
 * and PerfView shows for this trace: System.IO.FileNotFoundException. */
#include "tests/fakes/test_support.h"

#include "src/report/report_model.h"
#include "tests/unit/test_report_collect.h"

#include <string.h>

#define NET_SAMPLE "ms-perfview__net.4.5.2.x64.etl.zip"
#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"


static void net452_has_one_file_not_found_exception(void **state)
{
  struct report r;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_int_equal(r.exceptions.total, 1);
  assert_int_equal(r.exceptions.count, 1);
  assert_string_equal(r.exceptions.items[0].type, "System.IO.FileNotFoundException");
  assert_int_equal(r.exceptions.items[0].count, 1);
  assert_true(r.exceptions.items[0].first_filetime == r.exceptions.items[0].last_filetime);
  assert_int_equal(report_timeline_total(&r.timeline, REPORT_SERIES_EXCEPTIONS), 1);
  report_release(&r);
}

static void net452_processes_come_from_kernel_rundown_and_start(void **state)
{
  struct report r;
  size_t i, started = 0;
  uint64_t samples = 0;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_int_equal(r.kernel.process_count, 33);
  for (i = 0; i < r.kernel.process_count; i++) {
    samples += r.kernel.processes[i].cpu_samples;
    if (r.kernel.processes[i].start_filetime) {
      started++;
      /* The one Process/Start is followed by its Process/Stop (0x0302). */
      assert_true(r.kernel.processes[i].end_filetime > r.kernel.processes[i].start_filetime);
    }
  }
  assert_int_equal(started, 1);
  assert_int_equal(r.kernel.cpu_samples, 79528);
  /* Every sample is attributed or counted as not attributable. */
  assert_int_equal(samples + r.kernel.samples_unattributed, 79528);
  assert_int_equal(report_timeline_total(&r.timeline, REPORT_SERIES_CPU_SAMPLES), 79528);
  report_release(&r);
}

/* The samples of a process named `name` (0 when there is none). */
static uint64_t samples_of(const struct report *r, const char *name)
{
  size_t i;
  uint64_t n = 0;
  for (i = 0; i < r->kernel.process_count; i++)
    if (!strcmp(r->kernel.processes[i].name, name))
      n += r->kernel.processes[i].cpu_samples;
  return n;
}

/* CPU samples per process as TraceLog attributes them (microsoft/perfview
 * src/TraceEvent/TraceLog.cs): threads by their Start/DCStart/End times,
 * not by the order of the file, whose buffers are stored per CPU.
 * Charged by file order, PerfView.exe had 349 and MsMpEng.exe 282, and 8
 * samples were not charged at all. */
static void net452_cpu_samples_follow_thread_times(void **state)
{
  struct report r;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_int_equal(samples_of(&r, "Idle"), 73313);
  assert_int_equal(samples_of(&r, "Test.x64.exe"), 5129);
  assert_int_equal(samples_of(&r, "PerfView.exe"), 356);
  assert_int_equal(samples_of(&r, "MsMpEng.exe"), 283);
  assert_int_equal(samples_of(&r, "dwm.exe"), 132);
  assert_int_equal(r.kernel.samples_unattributed, 0);
  report_release(&r);
}

static void net452_images_carry_identity_events(void **state)
{
  struct report r;
  size_t i;
  uint64_t events = 0, with_id = 0;
  (void)state;
  collect(NET_SAMPLE, &r);
  for (i = 0; i < r.kernel.images.count; i++) {
    events += r.kernel.images.list[i].events;
    with_id += r.kernel.images.list[i].with_id;
    assert_true(r.kernel.images.list[i].with_pdb <= r.kernel.images.list[i].events);
  }
  assert_int_equal(events, 3596);
  assert_int_equal(with_id, 3590);
  report_release(&r);
}

static void the_timeline_counts_every_event_once(void **state)
{
  struct report r;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_int_equal(r.summary.events, 179474);
  assert_int_equal(report_timeline_total(&r.timeline, REPORT_SERIES_ALL), 179474);
  assert_int_equal(report_timeline_total(&r.timeline, REPORT_SERIES_GCS), 264);
  report_release(&r);
}

static void a_perfview_zip_has_no_manifest(void **state)
{
  struct report r;
  (void)state;
  collect(GC_SAMPLE, &r);
  assert_false(r.manifest.present);
  assert_string_equal(r.manifest_problem, "");
  assert_int_equal(r.session_count, 1);
  report_release(&r);
}

static void a_manifest_gives_the_trigger_and_its_time(void **state)
{
  static const char text[] =
      "{\"schema\": \"etwcap-capture/1\", \"commandLine\": \"etwcap collect /StopOnGen2GC\", "
      "\"trigger\": {\"name\": \"StopOnGen2GC\", \"detail\": \"gen 2 </script>\", "
      "\"utc\": \"1970-01-01T00:00:01.5000000Z\"}}";
  struct report_manifest m;
  char why[256];
  (void)state;
  assert_int_equal(report_manifest_parse(text, strlen(text), &m, why, sizeof(why)), 0);
  assert_true(m.present && m.has_trigger);
  assert_string_equal(m.trigger_name, "StopOnGen2GC");
  assert_string_equal(m.trigger_detail, "gen 2 </script>");
  /* 1970-01-01 is 116444736000000000 ticks after 1601-01-01 (FILETIME_UNIX_EPOCH). */
  assert_int_equal(m.trigger_filetime, INT64_C(116444736000000000) + 15000000);
}

static void utc_times_parse_to_filetimes(void **state)
{
  int64_t ft;
  (void)state;
  assert_true(report_parse_utc("1601-01-01T00:00:00Z", &ft));
  assert_int_equal(ft, 0);
  /* 2000-03-01 is 145791 days after 1601-01-01: Python, (date(2000, 3, 1) -
   * date(1601, 1, 1)).days. */
  assert_true(report_parse_utc("2000-03-01T00:00:00.0000001Z", &ft));
  assert_int_equal(ft, INT64_C(145791) * 86400 * 10000000 + 1);
  assert_false(report_parse_utc("2000-03-01 00:00:00Z", &ft));
  assert_false(report_parse_utc("2000-13-01T00:00:00Z", &ft));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(net452_has_one_file_not_found_exception),
    cmocka_unit_test(net452_processes_come_from_kernel_rundown_and_start),
    cmocka_unit_test(net452_cpu_samples_follow_thread_times),
    cmocka_unit_test(net452_images_carry_identity_events),
    cmocka_unit_test(the_timeline_counts_every_event_once),
    cmocka_unit_test(a_perfview_zip_has_no_manifest),
    cmocka_unit_test(a_manifest_gives_the_trigger_and_its_time),
    cmocka_unit_test(utc_times_parse_to_filetimes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
