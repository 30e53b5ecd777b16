/* The qualifier parser: every form PerfView's parser accepts
 * (docs/perfview-collection.md §2), the command table, and bad input. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/cli/cli.h"

#include <stdio.h>
#include <string.h>

/* Parses a NULL-terminated list of arguments (argv[0] is added). */
static int parse(struct cli *cli, const char *first, ...)
{
  char *argv[64];
  int argc = 0;
  const char *a;
  va_list ap;
  argv[argc++] = (char *)"etwcap";
  va_start(ap, first);
  for (a = first; a; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  return cli_parse(cli, argc, argv);
}

static void qualifier_forms_are_equivalent(void **state)
{
  const char *forms[][2] = {
    { "/BufferSizeMB:1024", NULL }, { "-BufferSizeMB:1024", NULL },
    { "/BufferSizeMB=1024", NULL }, { "/buffersizemb:1024", NULL },
    { "/BufferSize:1024", NULL },   { "/BufferSizeMB", "1024" },
    { "/BUFFERSIZEMB:0x400", NULL },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    struct cli cli;
    int rc = forms[i][1] ? parse(&cli, "collect", forms[i][0], forms[i][1], NULL)
                         : parse(&cli, "collect", forms[i][0], NULL);
    assert_int_equal(rc, 0);
    assert_ptr_equal(cli.cmd, command_find("collect"));
    assert_int_equal(cli.q.plan.buffer_size_mb, 1024);
    assert_int_equal(cli.arg_count, 0);
    cli_release(&cli);
  }
}

static void qualifiers_before_and_after_the_command(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "/ThreadTime", "collect", "/BufferSizeMB:1024",
                         "/CircularMB:2048", NULL),
                   0);
  assert_string_equal(cli.cmd->name, "collect");
  assert_true(cli.q.plan.thread_time);
  assert_int_equal(cli.q.plan.circular_mb, 2048);
  cli_release(&cli);
}

static void command_names_are_case_insensitive(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "COLLECT", NULL), 0);
  assert_string_equal(cli.cmd->name, "collect");
  cli_release(&cli);
  assert_int_equal(parse(&cli, "listsessions", NULL), 0);
  assert_string_equal(cli.cmd->name, "listSessions");
  cli_release(&cli);
}

static void booleans_take_every_perfview_form(void **state)
{
  struct {
    const char *arg;
    int expected;
  } cases[] = {
    { "/StackCompression", 1 },       { "/StackCompression:true", 1 },
    { "/StackCompression:TRUE", 1 },  { "/StackCompression:false", 0 },
    { "/StackCompression:", 0 },      { "-StackCompression=False", 0 },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct cli cli;
    assert_int_equal(parse(&cli, "collect", cases[i].arg, NULL), 0);
    assert_int_equal(cli.q.plan.stack_compression, cases[i].expected);
    cli_release(&cli);
  }
}

static void a_boolean_never_takes_the_next_token(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/ThreadTime", "trace.etl", NULL), 0);
  assert_int_equal(cli.arg_count, 1);
  assert_string_equal(cli.args[0], "trace.etl");
  cli_release(&cli);
}

static void tristate_distinguishes_unset_from_false(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", NULL), 0);
  assert_int_equal(cli.q.plan.zip, -1);
  cli_release(&cli);
  assert_int_equal(parse(&cli, "collect", "/Zip:false", NULL), 0);
  assert_int_equal(cli.q.plan.zip, 0);
  cli_release(&cli);
}

static void lists_split_on_commas_and_concatenate(void **state)
{
  struct cli cli;
  char *const *items;
  (void)state;
  assert_int_equal(parse(&cli, "collect",
                         "/Providers:*System.Net.Http,*System.Net.NameResolution",
                         "/Providers=*System.Net.Sockets", NULL),
                   0);
  items = cli.q.plan.providers;
  assert_int_equal(cli.q.plan.provider_count, 3);
  assert_string_equal(items[0], "*System.Net.Http");
  assert_string_equal(items[1], "*System.Net.NameResolution");
  assert_string_equal(items[2], "*System.Net.Sockets");
  cli_release(&cli);
}

static void strings_keep_colons_and_empty_values(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/StopOnException:", "/DataFile:C:\\traces\\a.etl",
                         NULL),
                   0);
  assert_string_equal(cli.q.triggers.stop_on_exception, "");
  assert_string_equal(cli.q.plan.data_file, "C:\\traces\\a.etl");
  cli_release(&cli);
}

static void floats_parse_in_any_locale(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/CpuSampleMSec:0.125", NULL), 0);
  assert_true(cli.q.plan.cpu_sample_msec == 0.125);
  cli_release(&cli);
}

/* PerfView's defaults (the qualifier tables of docs/perfview-collection.md
 * §3.1-§3.5), reached through the fields the parser writes: a qualifier not
 * given reads its default. */
static void qualifiers_not_given_read_perfviews_defaults(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/ThreadTime", NULL), 0);
  assert_int_equal(cli.q.plan.buffer_size_mb, 256);
  assert_int_equal(cli.q.plan.rundown_timeout_sec, 120);
  assert_int_equal(cli.q.triggers.min_sec_for_trigger, 3);
  assert_int_equal(cli.q.triggers.delay_after_trigger_sec, 5);
  assert_null(cli.q.triggers.stop_on_exception);
  assert_null(cli.q.plan.data_file);
  cli_release(&cli);
}

/* PerfView's run takes its qualifiers first; what follows is the command. */
static void run_takes_the_rest_of_the_line_as_its_command(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "/CircularMB:5", "run", "app.exe", "/x", "-y", "--", NULL), 0);
  assert_string_equal(cli.cmd->name, "run");
  assert_int_equal(cli.arg_count, 4);
  assert_string_equal(cli.args[1], "/x");
  assert_string_equal(cli.args[3], "--");
  assert_int_equal(cli.q.plan.circular_mb, 5);
  cli_release(&cli);
  assert_int_equal(parse(&cli, "run", "/?", NULL), 0);
  assert_true(cli.help);
  cli_release(&cli);
}

static void a_scalar_given_twice_is_an_error(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/BufferSizeMB:1", "/BufferSize:2", NULL),
                   ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "more than once"));
  assert_non_null(strstr(cli.error, "argument 3"));
  cli_release(&cli);
}

static void unknown_qualifier_suggests_the_nearest(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/CircularMBB:10", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "'/CircularMBB'"));
  assert_non_null(strstr(cli.error, "Did you mean '/CircularMB'"));
  cli_release(&cli);
  assert_int_equal(parse(&cli, "/Nonsense", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "unknown qualifier '/Nonsense'"));
  cli_release(&cli);
}

static void unknown_command_suggests_the_nearest(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "colect", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "Did you mean 'collect'"));
  cli_release(&cli);
}

static void bad_values_name_the_qualifier(void **state)
{
  const char *bad[] = { "/BufferSizeMB:lots", "/BufferSizeMB:0x", "/BufferSizeMB:12abc",
                        "/BufferSizeMB:99999999999999999999", "/StackCompression:yes",
                        "/CpuSampleMSec:1,5", "/BufferSizeMB:0", "/DataFile" };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct cli cli;
    char name[40];
    assert_int_equal(parse(&cli, "collect", bad[i], NULL), ETWCAP_E_USAGE);
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad[i], ":"), bad[i]);
    assert_non_null(strstr(cli.error, name));
    cli_release(&cli);
  }
}

static void rejected_perfview_switch_says_why(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "/DotNetAlloc", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "not supported"));
  assert_non_null(strstr(cli.error, "EtwClrProfiler"));
  cli_release(&cli);
}

static void qualifier_of_another_command_is_refused(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "version", "/CircularMB:5", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "does not apply to 'version'"));
  cli_release(&cli);
}

static void positional_argument_limits(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "collect", "a.etl", "b.etl", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "'b.etl'"));
  cli_release(&cli);
  assert_int_equal(parse(&cli, "merge", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "DataFile"));
  cli_release(&cli);
}

static void posix_paths_are_positionals(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "dump", "/tmp/x.etl", "./y.etl", NULL), 0);
  assert_int_equal(cli.arg_count, 2);
  assert_string_equal(cli.args[0], "/tmp/x.etl");
  cli_release(&cli);
  assert_int_equal(parse(&cli, "dump", "--", "/tmp", NULL), 0);
  assert_string_equal(cli.args[0], "/tmp");
  cli_release(&cli);
}

static void help_forms(void **state)
{
  const char *forms[] = { "/?", "-?", "-h", "--help", "/help" };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    struct cli cli;
    assert_int_equal(parse(&cli, forms[i], NULL), 0);
    assert_true(cli.help);
    assert_null(cli.cmd);
    cli_release(&cli);
    assert_int_equal(parse(&cli, "collect", forms[i], NULL), 0);
    assert_true(cli.help);
    assert_string_equal(cli.cmd->name, "collect");
    cli_release(&cli);
  }
}

static void no_command_is_an_error(void **state)
{
  struct cli cli;
  (void)state;
  assert_int_equal(parse(&cli, "/ThreadTime", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(cli.error, "no command"));
  cli_release(&cli);
}

/* Every qualifier name means one type, whichever command declares it, so the
 * parser can decide "/Name value" before it knows the command. */
static void one_name_one_definition(void **state)
{
  const struct command *const *c;
  const struct opt_group *const *g;
  size_t i;
  (void)state;
  for (c = etwcap_commands; *c; c++)
    for (g = (*c)->groups; g && *g; g++)
      for (i = 0; i < (*g)->count; i++) {
        const struct opt_def *d = &(*g)->defs[i];
        const struct opt_def *found = cli_find_def(d->name);
        assert_non_null(found);
        assert_int_equal(found->type, d->type);
        /* ... and one field: every command's definition stores in it. */
        assert_true(found->field == d->field);
        assert_true(d->help || d->rejected);
      }
}

static void help_is_generated_from_the_tables(void **state)
{
  char path[512];
  FILE *f;
  char text[65536];
  size_t n;
  const struct command *collect = command_find("collect");
  const struct opt_group *const *g;
  size_t i;
  (void)state;
  test_tmp_path("help.txt", path, sizeof(path));
  f = fopen(path, "w+");
  assert_non_null(f);
  cli_print_command_help(f, collect);
  rewind(f);
  n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = '\0';
  fclose(f);
  remove(path);
  for (g = collect->groups; *g; g++)
    for (i = 0; i < (*g)->count; i++) {
      char needle[80];
      snprintf(needle, sizeof(needle), "/%s", (*g)->defs[i].name);
      assert_non_null(strstr(text, needle));
    }
  assert_non_null(strstr(text, "[default: 256]"));
}

static void every_allocation_failure_is_clean(void **state)
{
  unsigned n, total;
  struct cli cli;
  (void)state;
  test_fail_alloc_after(0);
  assert_int_equal(parse(&cli, "collect", "/Providers:a,b,c", "/DataFile:x.etl",
                         "/BufferSizeMB:1", NULL),
                   0);
  cli_release(&cli);
  total = test_alloc_count();
  assert_true(total > 3);
  for (n = 1; n <= total; n++) {
    int rc;
    test_fail_alloc_after(n);
    rc = parse(&cli, "collect", "/Providers:a,b,c", "/DataFile:x.etl", "/BufferSizeMB:1",
               NULL);
    assert_int_equal(rc, ETWCAP_E_NOMEM); /* every allocation it makes is needed */
    cli_release(&cli);
  }
  test_fail_alloc_after(0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(qualifier_forms_are_equivalent),
    cmocka_unit_test(qualifiers_before_and_after_the_command),
    cmocka_unit_test(command_names_are_case_insensitive),
    cmocka_unit_test(booleans_take_every_perfview_form),
    cmocka_unit_test(a_boolean_never_takes_the_next_token),
    cmocka_unit_test(tristate_distinguishes_unset_from_false),
    cmocka_unit_test(lists_split_on_commas_and_concatenate),
    cmocka_unit_test(strings_keep_colons_and_empty_values),
    cmocka_unit_test(floats_parse_in_any_locale),
    cmocka_unit_test(qualifiers_not_given_read_perfviews_defaults),
    cmocka_unit_test(run_takes_the_rest_of_the_line_as_its_command),
    cmocka_unit_test(a_scalar_given_twice_is_an_error),
    cmocka_unit_test(unknown_qualifier_suggests_the_nearest),
    cmocka_unit_test(unknown_command_suggests_the_nearest),
    cmocka_unit_test(bad_values_name_the_qualifier),
    cmocka_unit_test(rejected_perfview_switch_says_why),
    cmocka_unit_test(qualifier_of_another_command_is_refused),
    cmocka_unit_test(positional_argument_limits),
    cmocka_unit_test(posix_paths_are_positionals),
    cmocka_unit_test(help_forms),
    cmocka_unit_test(no_command_is_an_error),
    cmocka_unit_test(one_name_one_definition),
    cmocka_unit_test(help_is_generated_from_the_tables),
    cmocka_unit_test(every_allocation_failure_is_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
