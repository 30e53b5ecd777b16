/* @file response files and Windows command-line splitting. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/cli/cmdline_windows.h"
#include "src/cli/response_file.h"

#include <stdio.h>
#include <string.h>

static void split_handles_quotes_comments_and_blanks(void **state)
{
  struct token_list t = { NULL, 0 };
  const char text[] = "# a comment line\n  collect /CircularMB:2048\r\n"
                      "/DataFile:\"C:\\my traces\\a.etl\" \"\" last # not a comment\n";
  (void)state;
  assert_int_equal(response_split(&t, text, strlen(text)), 0);
  assert_int_equal(t.count, 9); /* "# not a comment" mid-line is four tokens */
  assert_string_equal(t.items[0], "collect");
  assert_string_equal(t.items[1], "/CircularMB:2048");
  assert_string_equal(t.items[2], "/DataFile:C:\\my traces\\a.etl");
  assert_string_equal(t.items[3], "");
  assert_string_equal(t.items[4], "last");
  assert_string_equal(t.items[5], "#");
  assert_string_equal(t.items[8], "comment");
  token_list_release(&t);
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void expand_replaces_at_files_in_place(void **state)
{
  char path[512], arg[520];
  struct token_list t;
  char why[256];
  char *argv[3];
  (void)state;
  test_tmp_path("args.rsp", path, sizeof(path));
  write_file(path, "\xEF\xBB\xBF/ThreadTime collect\n");
  snprintf(arg, sizeof(arg), "@%s", path);
  argv[0] = (char *)"/NoGui";
  argv[1] = arg;
  argv[2] = (char *)"/Zip:false";
  assert_int_equal(response_expand(&t, 3, argv, why, sizeof(why)), 0);
  assert_int_equal(t.count, 4);
  assert_string_equal(t.items[0], "/NoGui");
  assert_string_equal(t.items[1], "/ThreadTime"); /* the BOM is skipped */
  assert_string_equal(t.items[2], "collect");
  assert_string_equal(t.items[3], "/Zip:false");
  token_list_release(&t);
  remove(path);
}

static void missing_and_recursive_files_are_errors(void **state)
{
  char path[512], arg[520], why[256];
  struct token_list t;
  char *argv[1];
  (void)state;
  test_tmp_path("no-such.rsp", path, sizeof(path));
  snprintf(arg, sizeof(arg), "@%s", path);
  argv[0] = arg;
  assert_int_equal(response_expand(&t, 1, argv, why, sizeof(why)), ETWCAP_E_NOENT);
  assert_non_null(strstr(why, "no-such.rsp"));

  test_tmp_path("self.rsp", path, sizeof(path));
  snprintf(arg, sizeof(arg), "@%s", path);
  write_file(path, arg); /* a file that names itself */
  assert_int_equal(response_expand(&t, 1, argv, why, sizeof(why)), ETWCAP_E_USAGE);
  assert_non_null(strstr(why, "nested"));
  remove(path);
}

/* An unclosed quote is reported on the line where it was opened, however
 * many lines it swallowed after that. */
static void unclosed_quote_names_the_line_it_opens_on(void **state)
{
  static const struct {
    const char *text;
    const char *line;
  } cases[] = {
    { "collect /DataFile:\"C:\\my traces\\a.etl\n", "line 1:" },
    { "collect \"a\nb\nc\n", "line 1:" },
    { "# comment\ncollect\n  /Zip:\"x\n\n\n", "line 3:" },
    { "\"closed\nover two lines\" then \"open\n", "line 2:" },
  };
  char path[512], arg[520], why[256];
  struct token_list t;
  char *argv[1];
  size_t i;
  (void)state;
  test_tmp_path("quote.rsp", path, sizeof(path));
  snprintf(arg, sizeof(arg), "@%s", path);
  argv[0] = arg;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    write_file(path, cases[i].text);
    assert_int_equal(response_expand(&t, 1, argv, why, sizeof(why)), ETWCAP_E_USAGE);
    if (!strstr(why, cases[i].line) || !strstr(why, "not closed"))
      fail_msg("case %lu: '%s' does not say %s", (unsigned long)i, why, cases[i].line);
  }
  remove(path);
}

/* The examples of Microsoft's "Parsing C command-line arguments" table. */
static void windows_command_line_rules(void **state)
{
  static const struct {
    const char *line;
    const char *expected[4];
  } cases[] = {
    { "etwcap \"a b c\" d e", { "a b c", "d", "e" } },
    { "etwcap \"ab\\\"c\" \"\\\\\" d", { "ab\"c", "\\", "d" } },
    { "etwcap a\\\\\\b d\"e f\"g h", { "a\\\\\\b", "de fg", "h" } },
    { "etwcap a\\\\\\\"b c d", { "a\\\"b", "c", "d" } },
    { "etwcap a\\\\\\\\\"b c\" d e", { "a\\\\b c", "d", "e" } },
    { "etwcap a\"b\"\" c d", { "ab\" c d" } },
    { "\"C:\\Program Files\\etwcap\\etwcap.exe\"   /DataFile:C:\\t\\ \t x", { "/DataFile:C:\\t\\", "x" } },
  };
  size_t i, j;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct token_list t = { NULL, 0 };
    assert_int_equal(cmdline_split_windows(&t, cases[i].line), 0);
    for (j = 0; cases[i].expected[j]; j++) {
      assert_true(j + 1 < t.count);
      assert_string_equal(t.items[j + 1], cases[i].expected[j]);
    }
    assert_int_equal(t.count, j + 1);
    token_list_release(&t);
  }
}

static void program_name_keeps_backslashes(void **state)
{
  struct token_list t = { NULL, 0 };
  (void)state;
  assert_int_equal(cmdline_split_windows(&t, "\"C:\\a b\\etwcap.exe\" version"), 0);
  assert_int_equal(t.count, 2);
  assert_string_equal(t.items[0], "C:\\a b\\etwcap.exe");
  assert_string_equal(t.items[1], "version");
  token_list_release(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(split_handles_quotes_comments_and_blanks),
    cmocka_unit_test(expand_replaces_at_files_in_place),
    cmocka_unit_test(missing_and_recursive_files_are_errors),
    cmocka_unit_test(unclosed_quote_names_the_line_it_opens_on),
    cmocka_unit_test(windows_command_line_rules),
    cmocka_unit_test(program_name_keeps_backslashes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
