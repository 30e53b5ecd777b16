/* /EventLog's writer (operator_log_win32.c) under Wine: RegisterEventSourceW
 * and ReportEventW take the entry.  Wine keeps no Application log to read
 * back (its ReportEventW only traces the strings), so this checks the calls
 * succeed with what etwcap passes, not what Event Viewer would show. */
#include "tests/fakes/test_support.h"

#include "src/os/operator_log.h"

static void every_id_is_written(void **state)
{
  static const enum operator_event ids[] = {
    OPERATOR_CAPTURE_STARTED, OPERATOR_TRIGGER_FIRED,   OPERATOR_SNAPSHOT_WRITTEN,
    OPERATOR_SEGMENT_WRITTEN, OPERATOR_SEGMENT_DELETED, OPERATOR_HEALTH_PROBLEM,
    OPERATOR_CAPTURE_ENDED
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
    assert_int_equal(operator_log_write(ids[i], "etwcap test entry: caf\xc3\xa9"), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_id_is_written),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
