/* The CPU stacks of `etwcap report` (src/report/report_cpu.c, fed by
 * stack_join.c and stack_frames.c) on the real sample
 * ms-perfview__net.4.5.2.x64.etl.zip, whose stacks are stack keys
 * (StackKeyKernel/StackKeyUser, resolved by KeyDelete/KeyRundown).  The
 * expected figures are the issue's acceptance ("Where the CPU went"),
 * which follow TraceLog's join rules; their sample total under PerfView's
 * idle rule equals TraceEvent's own baseline.  Exact where the issue says
 * so, else within 1%. */
#include "tests/fakes/test_support.h"

#include "src/report/report_model.h"
#include "tests/unit/test_report_collect.h"

#include <string.h>

#define NET_SAMPLE "ms-perfview__net.4.5.2.x64.etl.zip"

static const struct report_cpu_process *process_named(const struct report *r, const char *name)
{
  size_t i;
  for (i = 0; i < r->cpu.count; i++)
    if (!strcmp(r->cpu.list[i].name, name))
      return &r->cpu.list[i];
  fail_msg("no CPU stacks for %s", name);
  return NULL;
}

static const struct report_cpu_frame *frame_named(const struct report *r,
                                                  const struct report_cpu_process *p,
                                                  const char *name)
{
  size_t i;
  for (i = 0; i < p->top_count; i++)
    if (!strcmp(stack_frames_name(&r->frames, p->top[i].frame), name))
      return &p->top[i];
  fail_msg("%s is not among the top frames of %s", name, p->name);
  return NULL;
}

static void assert_near(uint64_t got, uint64_t want)
{
  uint64_t slack = want / 100;
  if (got + slack < want || got > want + slack)
    fail_msg("%llu is not within 1%% of %llu", (unsigned long long)got,
             (unsigned long long)want);
}

static void net452_test_x64_frames_match_the_issue(void **state)
{
  struct report r;
  const struct report_cpu_process *p;
  (void)state;
  collect(NET_SAMPLE, &r);
  p = process_named(&r, "Test.x64.exe");
  assert_int_equal(p->samples, 5129);
  assert_int_equal(p->with_stack, 5129);
  assert_string_equal(stack_frames_name(&r.frames, p->top[0].frame),
                      "System.DateTime.GetDatePart");
  assert_near(p->top[0].self, 1856);
  assert_string_equal(stack_frames_name(&r.frames, p->top[1].frame),
                      "System.TimeZoneInfo.TransitionTimeToDateTime");
  assert_near(p->top[1].self, 566);
  assert_string_equal(stack_frames_name(&r.frames, p->top[2].frame),
                      "System.DateTime.get_DayOfWeek");
  assert_near(p->top[2].self, 470);
  assert_near(frame_named(&r, p, "Test.Program.Main")->total, 4935);
  assert_near(frame_named(&r, p, "clr.dll!?")->self, 315);
  report_release(&r);
}

/* The processes detailed are the busiest, each with the samples the
 * processes table charges it (the issue's exact figures). */
static void net452_cpu_lists_the_busiest_processes(void **state)
{
  struct report r;
  size_t i;
  (void)state;
  collect(NET_SAMPLE, &r);
  assert_true(r.cpu.count >= 5);
  assert_string_equal(r.cpu.list[0].name, "Idle");
  assert_int_equal(r.cpu.list[0].samples, 73313);
  assert_string_equal(r.cpu.list[1].name, "Test.x64.exe");
  assert_string_equal(r.cpu.list[2].name, "PerfView.exe");
  assert_int_equal(r.cpu.list[2].samples, 356);
  assert_string_equal(r.cpu.list[3].name, "MsMpEng.exe");
  assert_int_equal(r.cpu.list[3].samples, 283);
  assert_string_equal(r.cpu.list[4].name, "dwm.exe");
  assert_int_equal(r.cpu.list[4].samples, 132);
  for (i = 0; i < r.cpu.count; i++) {
    const struct report_cpu_process *p = &r.cpu.list[i];
    size_t j;
    uint64_t weights = 0;
    for (j = 1; j < p->top_count; j++)
      assert_true(p->top[j].self <= p->top[j - 1].self);
    /* Every sample ends at exactly one node of the call tree. */
    for (j = 0; j < p->node_count; j++)
      weights += p->nodes[j].weight;
    assert_int_equal(weights, p->samples);
  }
  report_release(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(net452_test_x64_frames_match_the_issue),
    cmocka_unit_test(net452_cpu_lists_the_busiest_processes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
