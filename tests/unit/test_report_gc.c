/* GC statistics of `etwcap report` (src/report/report_gc.c), as PerfView's GCStats
 * computes them.  Expected values come from TraceEvent's regression baseline
 * of the same trace, microsoft/perfview
 * src/TraceEvent/TraceEvent.Tests/inputs/gcevents.baseline.txt (every event
 * with its time in ms from the session start, to 0.001 ms), and from the
 * golden listing of net.4.5.2.x64 (samples/golden, an independent parser):
 * 264 GCStart v1, 264 GCStart v2 and 264 GCStop events, 526 GCStarts in pid
 * 3676 and 2 in pid 3988.  Hand-made events test the state machine's rules. */
#include "tests/fakes/test_support.h"

#include "etw/event/builtin_events.h"
#include "src/base/error.h"
#include "src/report/report_gc.h"
#include "src/report/report_model.h"
#include "tests/unit/test_report_collect.h"

#include <string.h>

#define GC_SAMPLE "ms-perfview__gcevents.etl.zip"
#define NET_SAMPLE "ms-perfview__net.4.5.2.x64.etl.zip"

/* The baseline prints times to 0.001 ms; differences of two of them are
 * good to 0.002 ms. */
#define TOL 0.002

static void gcevents_has_two_gcs_with_perfview_pauses(void **state)
{
  struct report r;
  (void)state;
  collect(GC_SAMPLE, &r);
  assert_int_equal(r.gcs.count, 2);
  /* SuspendEEStart 11,607.358 -> RestartEEStop 11,608.145; 11,608.167 -> 11,608.709. */
  assert_true(r.gcs.gcs[0].pause_ms > 0.787 - TOL && r.gcs.gcs[0].pause_ms < 0.787 + TOL);
  assert_true(r.gcs.gcs[1].pause_ms > 0.542 - TOL && r.gcs.gcs[1].pause_ms < 0.542 + TOL);
  report_release(&r);
}

static void gcevents_gc_fields_match_the_baseline(void **state)
{
  struct report r;
  const struct report_gc *a, *b;
  (void)state;
  collect(GC_SAMPLE, &r);
  assert_int_equal(r.gcs.count, 2);
  a = &r.gcs.gcs[0];
  b = &r.gcs.gcs[1];
  assert_int_equal(a->pid, 179596);
  assert_int_equal(a->number, 1);
  assert_int_equal(b->number, 2);
  /* GC/Start Depth=1, Depth=2; Reason=Induced (1); Type=NonConcurrentGC (0). */
  assert_int_equal(a->generation, 1);
  assert_int_equal(b->generation, 2);
  assert_int_equal(a->reason, 1);
  assert_int_equal(a->type, 0);
  /* GC/Start at 11,607.432 and 11,608.181 ms. */
  assert_true(report_ms(&r, a->start_filetime) > 11607.432 - TOL / 2 &&
              report_ms(&r, a->start_filetime) < 11607.432 + TOL / 2);
  assert_true(report_ms(&r, b->start_filetime) > 11608.181 - TOL / 2 &&
              report_ms(&r, b->start_filetime) < 11608.181 + TOL / 2);
  /* GC/Stop at 11,608.135 and 11,608.693. */
  assert_true(a->duration_ms > 0.703 - TOL && a->duration_ms < 0.703 + TOL);
  assert_true(b->duration_ms > 0.512 - TOL && b->duration_ms < 0.512 + TOL);
  /* GC/HeapStats TotalHeapSize and TotalPromoted. */
  assert_true(a->has_heap && b->has_heap);
  assert_int_equal(a->heap_after, 657192);
  assert_int_equal(a->promoted, 310952);
  assert_int_equal(b->heap_after, 436504);
  assert_int_equal(b->promoted, 419624);
  report_release(&r);
}

static void net452_double_gcstart_is_one_gc(void **state)
{
  struct report r;
  size_t i, in_3676 = 0, in_3988 = 0, with_pause = 0;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_int_equal(r.gcs.count, 264);
  for (i = 0; i < r.gcs.count; i++) {
    in_3676 += r.gcs.gcs[i].pid == 3676;
    in_3988 += r.gcs.gcs[i].pid == 3988;
    with_pause += r.gcs.gcs[i].pause_ms >= 0;
  }
  assert_int_equal(in_3676, 263);
  assert_int_equal(in_3988, 1);
  /* Every GC has its suspension: 265 SuspendEEStart/RestartEEStop pairs. */
  assert_int_equal(with_pause, 264);
  report_release(&r);
}

/* --- the state machine on hand-made events ---------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

/* A CLR event; payloads per ClrEtwAll.man (GCStart_V1: Count, Depth,
 * Reason, Type, ClrInstanceID; GCEnd_V1: Count, Depth, ClrInstanceID;
 * GCSuspendEE_V1: Reason, Count, ClrInstanceID; RestartEE: ClrInstanceID). */
static void clr_event(struct etw_event *ev, uint8_t *buf, uint16_t id, uint8_t version,
                      const uint32_t *fields, size_t n)
{
  size_t i;
  memset(ev, 0, sizeof(*ev));
  ev->has = ETW_HAS_PROVIDER | ETW_HAS_TIMESTAMP | ETW_HAS_PID_TID | ETW_HAS_DESCRIPTOR;
  ev->provider = bi_guid_clr;
  ev->id = id;
  ev->version = version;
  ev->pid = 42;
  ev->pointer_size = 8;
  for (i = 0; i < n; i++)
    put32(buf + 4 * i, fields[i]);
  buf[4 * n] = buf[4 * n + 1] = 0;
  ev->user_data = buf;
  ev->user_len = (uint32_t)(4 * n + 2);
}

static void feed(struct report_gcs *g, uint16_t id, uint8_t version, const uint32_t *fields,
                 size_t n, int64_t ft)
{
  struct etw_event ev;
  uint8_t buf[64];
  clr_event(&ev, buf, id, version, fields, n);
  assert_int_equal(report_gcs_event(g, &ev, ft), 0);
}

static void events_out_of_time_order_give_the_same_gc(void **state)
{
  static const uint32_t suspend[] = { 1, 7 }, start[] = { 7, 0, 0, 0 }, stop[] = { 7, 0 };
  struct report_gcs g;
  (void)state;
  memset(&g, 0, sizeof(g));
  /* File order: the restart's CPU buffer came first. */
  feed(&g, CLR_ID_GC_RESTART_EE_STOP, 1, NULL, 0, 5000);
  feed(&g, CLR_ID_GC_STOP, 1, stop, 2, 4000);
  feed(&g, CLR_ID_GC_SUSPEND_EE_START, 1, suspend, 2, 1000);
  feed(&g, CLR_ID_GC_START, 1, start, 4, 2000);
  assert_int_equal(report_gcs_finish(&g), 0);
  assert_int_equal(g.count, 1);
  assert_true(g.gcs[0].pause_ms > 0.4 - 1e-9 && g.gcs[0].pause_ms < 0.4 + 1e-9);
  assert_true(g.gcs[0].duration_ms > 0.2 - 1e-9 && g.gcs[0].duration_ms < 0.2 + 1e-9);
  report_gcs_release(&g);
}

static void a_gcstart_logged_in_two_versions_is_one_gc(void **state)
{
  static const uint32_t start[] = { 3, 2, 4, 0 }, stop[] = { 3, 2 };
  struct report_gcs g;
  (void)state;
  memset(&g, 0, sizeof(g));
  feed(&g, CLR_ID_GC_START, 1, start, 4, 100);
  feed(&g, CLR_ID_GC_START, 2, start, 4, 100);
  feed(&g, CLR_ID_GC_STOP, 1, stop, 2, 300);
  feed(&g, CLR_ID_GC_START, 1, (const uint32_t[]){ 4, 0, 0, 0 }, 4, 400);
  assert_int_equal(report_gcs_finish(&g), 0);
  assert_int_equal(g.count, 2);
  assert_int_equal(g.gcs[0].number, 3);
  assert_int_equal(g.gcs[0].generation, 2);
  assert_int_equal(g.gcs[0].reason, 4);
  assert_int_equal(g.gcs[1].number, 4);
  /* No suspension in the trace: the pause is unknown, not zero. */
  assert_true(g.gcs[0].pause_ms < 0);
  report_gcs_release(&g);
}

static void a_suspension_not_for_gc_is_not_a_pause(void **state)
{
  /* GCSuspendEEReasonMap: 2 = SuspendForAppDomainShutdown. */
  static const uint32_t suspend[] = { 2, 0 }, start[] = { 1, 0, 0, 0 };
  struct report_gcs g;
  (void)state;
  memset(&g, 0, sizeof(g));
  feed(&g, CLR_ID_GC_SUSPEND_EE_START, 1, suspend, 2, 10);
  feed(&g, CLR_ID_GC_START, 1, start, 4, 20);
  feed(&g, CLR_ID_GC_RESTART_EE_STOP, 1, NULL, 0, 30);
  assert_int_equal(report_gcs_finish(&g), 0);
  assert_int_equal(g.count, 1);
  assert_true(g.gcs[0].pause_ms < 0);
  report_gcs_release(&g);
}

static void reason_and_type_have_perfview_names(void **state)
{
  char buf[32];
  (void)state;
  /* ClrEtwAll.man GCReasonMap / GCTypeMap. */
  assert_string_equal(report_gc_reason_name(0, buf, sizeof(buf)), "AllocSmall");
  assert_string_equal(report_gc_reason_name(1, buf, sizeof(buf)), "Induced");
  assert_string_equal(report_gc_reason_name(99, buf, sizeof(buf)), "Reason 99");
  assert_string_equal(report_gc_type_name(1, buf, sizeof(buf)), "BackgroundGC");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(gcevents_has_two_gcs_with_perfview_pauses),
    cmocka_unit_test(gcevents_gc_fields_match_the_baseline),
    cmocka_unit_test(net452_double_gcstart_is_one_gc),
    cmocka_unit_test(events_out_of_time_order_give_the_same_gc),
    cmocka_unit_test(a_gcstart_logged_in_two_versions_is_one_gc),
    cmocka_unit_test(a_suspension_not_for_gc_is_not_a_pause),
    cmocka_unit_test(reason_and_type_have_perfview_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
