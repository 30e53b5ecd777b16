/* The Windows console handler (console_win32.c): every event etwcap knows
 * is answered TRUE, so Windows' default handler (ExitProcess) never ends a
 * capture.  Source: Microsoft, HandlerRoutine callback: "If the function
 * handles the control signal, it should return TRUE. If it returns FALSE,
 * the next handler function in the list of handlers for this process is
 * used" (the last one calls ExitProcess); "CTRL_LOGOFF_EVENT ... Note that
 * this signal is received only by services" — a SYSTEM task or service
 * must return TRUE for it (docs/win32-contract.md §11.2). */
#include "tests/fakes/test_support.h"

#include <windows.h>

#include "src/os/console.h"
#include "src/os/console_win32.h"

static int setup(void **state)
{
  (void)state;
  console_open();
  console_stop_done(); /* the stop path is done: the handler does not wait */
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  console_close();
  return 0;
}

static void logoff_is_answered_true(void **state)
{
  (void)state;
  /* Whether it counts (an interactive user's console) or not (session 0),
   * the default handler must never see it. */
  assert_int_not_equal(console_win32_handler(CTRL_LOGOFF_EVENT), 0);
}

static void close_and_shutdown_are_answered_true_and_recorded(void **state)
{
  (void)state;
  assert_int_not_equal(console_win32_handler(CTRL_CLOSE_EVENT), 0);
  assert_int_equal(console_signal_pending(), CONSOLE_CLOSE);
  assert_true(console_signal_ends_process(CONSOLE_CLOSE));
  assert_int_not_equal(console_win32_handler(CTRL_SHUTDOWN_EVENT), 0);
  assert_true(console_signal_ends_process(CONSOLE_SHUTDOWN));
  assert_false(console_signal_ends_process(CONSOLE_CTRL_C));
}

static void ctrl_c_is_recorded(void **state)
{
  (void)state;
  assert_int_not_equal(console_win32_handler(CTRL_C_EVENT), 0);
  assert_int_equal(console_signal_pending(), CONSOLE_CTRL_C);
}

static void unknown_events_go_to_the_next_handler(void **state)
{
  (void)state;
  assert_int_equal(console_win32_handler(99), 0);
  assert_int_equal(console_signal_pending(), CONSOLE_SIGNAL_NONE);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
  const struct CMUnitTest tests[] = {
    T(logoff_is_answered_true),
    T(close_and_shutdown_are_answered_true_and_recorded),
    T(ctrl_c_is_recorded),
    T(unknown_events_go_to_the_next_handler),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
