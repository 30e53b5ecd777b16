/* os_process_setup on Windows: the process asks for no critical-error box
 * (SEM_FAILCRITICALERRORS, the "Error Mode" page), which GetErrorMode reads
 * back, under Wine as on Windows. */
#include "tests/fakes/test_support.h"

#include "src/os/os_proc.h"

#include <windows.h>

static void no_critical_error_box(void **state)
{
  (void)state;
  SetErrorMode(0);
  assert_int_equal(GetErrorMode() & SEM_FAILCRITICALERRORS, 0);
  os_process_setup();
  assert_int_equal(GetErrorMode() & SEM_FAILCRITICALERRORS, SEM_FAILCRITICALERRORS);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(no_critical_error_box),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
