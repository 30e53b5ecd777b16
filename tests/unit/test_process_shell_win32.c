/* The command runners (process_shell_win32.c) under Wine, with Wine's own
 * cmd.exe: /StopCommand's line runs through cmd.exe /c (System32 here, a
 * 64-bit process has no SysNative), its exit code comes back, redirections
 * work; run's command starts as a program or through cmd /c call, and its
 * exit is seen while the capture polls; schedule's tool of the system
 * folder runs directly. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/os/process_shell.h"

#include <stdio.h>
#include <windows.h>
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

/* Polls as the capture's wait does, for up to 20 s. */
static int wait_child(struct process_child *c, int *code)
{
  int i, rc = 0;
  for (i = 0; i < 2000 && (rc = process_child_exited(c, code)) == 0; i++)
    Sleep(10);
  return rc;
}

static void run_sees_a_program_exit(void **state)
{
  struct process_child *c = NULL;
  char why[256] = "";
  int code = -1;
  (void)state;
  assert_int_equal(process_child_start("cmd.exe /c exit 5", &c, why, sizeof(why)), 0);
  assert_int_equal(wait_child(c, &code), 1);
  assert_int_equal(code, 5);
  process_child_close(c, 1);
}

static void run_wraps_a_redirection_in_cmd(void **state)
{
  struct process_child *c = NULL;
  char path[512], line[700], why[256] = "";
  int64_t size = 0;
  int code = -1;
  (void)state;
  test_tmp_path("runcommand.txt", path, sizeof(path));
  os_remove(path);
  snprintf(line, sizeof(line), "echo etwcap>\"%s\"", path);
  assert_int_equal(process_child_start(line, &c, why, sizeof(why)), 0);
  assert_int_equal(wait_child(c, &code), 1);
  assert_int_equal(code, 0);
  process_child_close(c, 0);
  assert_int_equal(os_file_size(path, &size), 0);
  assert_true(size >= 6);
  os_remove(path);
}

static void run_names_a_program_that_is_not_there(void **state)
{
  struct process_child *c = NULL;
  char why[256] = "";
  (void)state;
  assert_int_equal(process_child_start("no-such-program.exe /x", &c, why, sizeof(why)),
                   ETWCAP_E_NOENT);
  assert_null(c);
  assert_non_null(strstr(why, "CreateProcessW: ERROR_FILE_NOT_FOUND"));
}

/* schedule's schtasks: a tool of the system folder run directly (here
 * cmd.exe itself, with its own /c). */
static void a_system_tool_runs_from_the_system_folder(void **state)
{
  char why[256] = "";
  int code = -1;
  (void)state;
  assert_int_equal(process_run_system_tool("cmd", "/c exit 4", 60000, &code, why, sizeof(why)),
                   0);
  assert_int_equal(code, 4);
  assert_int_not_equal(
      process_run_system_tool("etwcap-no-such-tool", "", 60000, &code, why, sizeof(why)), 0);
  assert_non_null(strstr(why, "CreateProcessW: ERROR_FILE_NOT_FOUND"));
}

/* ngen's runner: a program by its full path, with a quoted argument
 * holding spaces; a path with nothing there is ETWCAP_E_NOENT. */
static void a_program_runs_from_its_full_path(void **state)
{
  char app[MAX_PATH + 16], why[256] = "";
  wchar_t dir[MAX_PATH];
  int code = -1;
  (void)state;
  assert_true(GetSystemDirectoryW(dir, MAX_PATH) > 0);
  snprintf(app, sizeof(app), "%ls\\cmd.exe", dir);
  assert_int_equal(process_run_program(app, "/c \"exit 5\"", 60000, &code, why, sizeof(why)), 0);
  assert_int_equal(code, 5);
  assert_int_equal(process_run_program("C:\\etwcap-no-such-dir\\ngen.exe", "createPDB x y", 60000,
                                       &code, why, sizeof(why)),
                   ETWCAP_E_NOENT);
  assert_int_equal(code, -1);
  assert_non_null(strstr(why, "C:\\etwcap-no-such-dir\\ngen.exe does not exist"));
}

/* /NetworkCapture's netsh: the tool's output and errors are caught, not
 * shown (here cmd.exe of the system folder writes to both). */
static void a_system_tools_output_is_caught(void **state)
{
  char why[256] = "", output[256];
  int code = -1;
  (void)state;
  assert_int_equal(process_run_system_tool_output(
                       "cmd", "/c echo netsh-said-this& echo on-stderr 1>&2& exit 3", 60000,
                       &code, output, sizeof(output), why, sizeof(why)),
                   0);
  assert_int_equal(code, 3);
  assert_non_null(strstr(output, "netsh-said-this"));
  assert_non_null(strstr(output, "on-stderr"));
  /* A small buffer keeps the first bytes, NUL-terminated. */
  assert_int_equal(process_run_system_tool_output("cmd", "/c echo abcdefghij", 60000, &code, output,
                                                  5, why, sizeof(why)),
                   0);
  assert_string_equal(output, "abcd");
  assert_int_not_equal(process_run_system_tool_output("etwcap-no-such-tool", "", 60000, &code,
                                                      output, sizeof(output), why, sizeof(why)),
                       0);
  assert_non_null(strstr(why, "CreateProcessW: ERROR_FILE_NOT_FOUND"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(exit_code_comes_back),
    cmocka_unit_test(the_line_runs_in_cmd),
    cmocka_unit_test(run_sees_a_program_exit),
    cmocka_unit_test(a_system_tools_output_is_caught),
    cmocka_unit_test(run_wraps_a_redirection_in_cmd),
    cmocka_unit_test(run_names_a_program_that_is_not_there),
    cmocka_unit_test(a_system_tool_runs_from_the_system_folder),
    cmocka_unit_test(a_program_runs_from_its_full_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
