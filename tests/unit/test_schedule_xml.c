/* The task of `etwcap schedule` (schedule_xml.c): its arguments quoted so
 * that the Microsoft C runtime's documented rules ("Parsing C command-line
 * arguments", which cmdline_split_windows follows and which etwcap.exe uses
 * to read the command line Task Scheduler starts it with) give them back
 * whole; XML text that a parser reads back unchanged; the settings the issue
 * asks for, by the element names of Microsoft's Task Scheduler schema
 * reference.  e2e.test_schedule parses the whole document with Python. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strbuf.h"
#include "src/cli/cmdline_windows.h"
#include "src/cli/response_file.h"
#include "src/os/schedule_xml.h"

#include <string.h>

static char *quoted(const char *arg)
{
  struct strbuf b = { NULL, 0, 0, 0 };
  char *out = NULL;
  schedule_append_arg(&b, arg);
  assert_int_equal(strbuf_finish(&b, &out), 0);
  return out;
}

/* Expected strings from the documented rules: backslashes are literal
 * unless a quote follows; 2n backslashes before a quote give n and the
 * quote delimits; 2n+1 give n and a literal quote; a quoted part keeps
 * spaces. */
static void arguments_quoted_by_the_documented_rules(void **state)
{
  static const char *const cases[][2] = {
    { "/CircularMB:4096", "/CircularMB:4096" }, /* nothing to quote */
    { "a b c", "\"a b c\"" },                   /* the doc's "a b c" */
    { "ab\"c", "\"ab\\\"c\"" },                 /* the doc's "ab\"c" */
    { "a\\\\\\b", "a\\\\\\b" },                 /* the doc's a\\\b: literal */
    { "a\\\"b", "\"a\\\\\\\"b\"" },             /* a\"b: 1 -> 2 backslashes, then \" */
    { "C:\\a b\\", "\"C:\\a b\\\\\"" },         /* a trailing \ doubled before the quote */
    { "C:\\a b\\c", "\"C:\\a b\\c\"" },         /* a \ inside stays single */
    { "", "\"\"" },                             /* an empty argument survives */
    { "tab\there", "\"tab\there\"" },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *q = quoted(cases[i][0]);
    assert_string_equal(q, cases[i][1]);
    etwcap_free(q);
  }
}

/* The line etwcap.exe will read, split back by the documented rules. */
static void arguments_come_back_whole(void **state)
{
  static const char *const args[] = {
    "collect", "C:\\traces\\a&b \"x\".etl", "\\\\server\\share dir\\", "\"", "\\",
    "a\\\\\"b", "", "/StopOnException:Timeout Exception", "caf\xc3\xa9 \xe2\x82\xac",
  };
  struct strbuf b = { NULL, 0, 0, 0 };
  struct token_list back = { NULL, 0, 0 };
  char *line = NULL;
  size_t i, n = sizeof(args) / sizeof(args[0]);
  (void)state;
  strbuf_puts(&b, "\"C:\\Program Files\\etwcap\\etwcap.exe\"");
  for (i = 0; i < n; i++) {
    strbuf_puts(&b, " ");
    schedule_append_arg(&b, args[i]);
  }
  assert_int_equal(strbuf_finish(&b, &line), 0);
  assert_int_equal(cmdline_split_windows(&back, line), 0);
  assert_int_equal(back.count, n + 1);
  assert_string_equal(back.items[0], "C:\\Program Files\\etwcap\\etwcap.exe");
  for (i = 0; i < n; i++)
    assert_string_equal(back.items[i + 1], args[i]);
  token_list_release(&back);
  etwcap_free(line);
}

/* Into the caller's *xml (a pointer returned from here trips gcc's
 * dangling-pointer analysis once inlined). */
static void task_xml(const char *data_file, const char *work_dir, char **xml)
{
  char *abort_args[] = { (char *)"abort", (char *)"/SessionName:night" };
  char *capture_args[] = { (char *)"collect", (char *)data_file, (char *)"/SessionName:night" };
  struct schedule_task t;
  memset(&t, 0, sizeof(t));
  t.name = "nightly";
  t.exe = "C:\\Tools & Co\\etwcap.exe";
  t.encoding = "UTF-8";
  t.work_dir = work_dir;
  t.abort_args = abort_args;
  t.abort_arg_count = 2;
  t.capture_args = capture_args;
  t.capture_arg_count = 3;
  assert_int_equal(schedule_task_xml(&t, xml), 0);
}

/* Every & < > of the outside strings is escaped; nothing raw is left. */
static void outside_text_is_escaped(void **state)
{
  char *xml = NULL;
  const char *p;
  (void)state;
  task_xml("D:\\t<1>&\"q\".etl", "D:\\a&b", &xml);
  assert_non_null(strstr(xml, "<Command>C:\\Tools &amp; Co\\etwcap.exe</Command>"));
  assert_non_null(
      strstr(xml, "<Arguments>collect \"D:\\t&lt;1&gt;&amp;\\\"q\\\".etl\" /SessionName:night"
                  "</Arguments>"));
  assert_non_null(strstr(xml, "<WorkingDirectory>D:\\a&amp;b</WorkingDirectory>"));
  for (p = strchr(xml, '&'); p; p = strchr(p + 1, '&'))
    assert_true(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4));
  etwcap_free(xml);
}

/* abort is the first Exec, the capture the second: Task Scheduler runs a
 * task's actions in sequence (Microsoft's "Task Actions" page). */
static void abort_runs_before_the_capture(void **state)
{
  char *xml = NULL;
  const char *a, *c;
  (void)state;
  task_xml("D:\\t.etl", NULL, &xml);
  a = strstr(xml, "<Exec>\n      <Command>C:\\Tools &amp; Co\\etwcap.exe</Command>\n"
                  "      <Arguments>abort /SessionName:night</Arguments>");
  c = strstr(xml, "<Arguments>collect ");
  assert_non_null(a);
  assert_non_null(c);
  assert_true(a < c);
  assert_null(strstr(c + 1, "<Arguments>abort"));
  assert_null(strstr(xml, "<WorkingDirectory>")); /* none given, none written */
  etwcap_free(xml);
}

/* The settings, by the schema reference's element names and values. */
static void the_settings_of_a_week_long_capture(void **state)
{
  static const char *const want[] = {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Task version=\"1.2\" "
    "xmlns=\"http://schemas.microsoft.com/windows/2004/02/mit/task\">",
    "<URI>\\etwcap\\nightly</URI>",
    "<BootTrigger>\n      <Enabled>true</Enabled>\n    </BootTrigger>",
    "<UserId>S-1-5-18</UserId>",
    "<RunLevel>HighestAvailable</RunLevel>",
    "<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>",
    "<StartWhenAvailable>true</StartWhenAvailable>",
    "<RestartOnFailure>\n      <Interval>PT1M</Interval>\n      <Count>3</Count>",
    "<MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>",
    "<DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>",
    "<StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>",
    "<Principal id=\"Author\">",
    "<Actions Context=\"Author\">",
  };
  char *xml = NULL;
  size_t i;
  (void)state;
  task_xml("x.etl", NULL, &xml);
  for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
    if (!strstr(xml, want[i]))
      fail_msg("missing %s in\n%s", want[i], xml);
  etwcap_free(xml);
}

/* XML 1.0's Char production (section 2.2), less CR and LF. */
static void text_a_task_can_hold(void **state)
{
  static const char *const good[] = { "abc", "tab\there", "caf\xc3\xa9", "\xe2\x82\xac",
                                      "\xef\xbf\xbd", "\xf0\x9f\x98\x80", "" };
  static const char *const bad[] = { "a\x01", "line\nbreak", "cr\r", "\x1f", "\xc3",
                                     "\xc0\xaf", "\xed\xa0\x80", "\xef\xbf\xbe",
                                     "\xef\xbf\xbf", "\xf4\x90\x80\x80" };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
    assert_int_equal(schedule_xml_text_ok(good[i]), 1);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    if (schedule_xml_text_ok(bad[i]))
      fail_msg("bad case %u accepted", (unsigned)i);
}

static void out_of_memory_is_reported(void **state)
{
  char *abort_args[] = { (char *)"abort" }, *capture_args[] = { (char *)"collect" };
  struct schedule_task t;
  char *xml = NULL;
  unsigned n;
  (void)state;
  memset(&t, 0, sizeof(t));
  t.name = "n";
  t.exe = "C:\\e.exe";
  t.encoding = "UTF-16";
  t.abort_args = abort_args;
  t.abort_arg_count = 1;
  t.capture_args = capture_args;
  t.capture_arg_count = 1;
  for (n = 1; n < 64; n++) {
    int rc;
    test_fail_alloc_after(n);
    rc = schedule_task_xml(&t, &xml);
    test_fail_alloc_after(0);
    if (rc == 0) {
      etwcap_free(xml);
      return;
    }
    assert_int_equal(rc, ETWCAP_E_NOMEM);
    assert_null(xml);
  }
  fail_msg("schedule_task_xml never succeeded");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(arguments_quoted_by_the_documented_rules),
    cmocka_unit_test(arguments_come_back_whole),
    cmocka_unit_test(outside_text_is_escaped),
    cmocka_unit_test(abort_runs_before_the_capture),
    cmocka_unit_test(the_settings_of_a_week_long_capture),
    cmocka_unit_test(text_a_task_can_hold),
    cmocka_unit_test(out_of_memory_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
