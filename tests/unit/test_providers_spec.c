/* The /Providers item grammar (docs/perfview-collection.md §4.5), and bad specs
 * whose error names the token. */
#include "tests/fakes/test_support.h"

#include "etw/event/providers_spec.h"
#include "src/base/error.h"

#include <string.h>

static void parse_ok(const char *text, struct provider_spec *s)
{
  char err[512] = "";
  int rc = provider_spec_parse(text, s, err, sizeof(err));
  if (rc)
    fail_msg("'%s': %s", text, err);
}

static void name_only_takes_all_keywords_at_verbose(void **state)
{
  struct provider_spec s;
  char g[GUID_STRING_SIZE];
  (void)state;
  parse_ok("*System.Net.Http", &s);
  assert_int_equal(s.keywords, ~0ull);
  assert_int_equal(s.level, 5);
  assert_false(s.stacks);
  assert_false(provider_spec_is_disable(&s));
  guid_format(&s.provider.guid, g);
  assert_int_equal(g[14], '5'); /* a name-based GUID */
  provider_spec_release(&s);
}

static void runbook_assembly_loading_spec(void **state)
{
  struct provider_spec s;
  char g[GUID_STRING_SIZE];
  (void)state;
  parse_ok("Microsoft-Windows-DotNETRuntime:0x4:4", &s);
  guid_format(&s.provider.guid, g);
  assert_string_equal(g, "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
  assert_int_equal(s.keywords, 0x4);
  assert_int_equal(s.level, 4);
  provider_spec_release(&s);
}

static void keywords_are_hex_with_or_without_0x(void **state)
{
  struct provider_spec s;
  (void)state;
  parse_ok("Clr:10:5", &s);
  assert_int_equal(s.keywords, 0x10);
  provider_spec_release(&s);
  parse_ok("Clr:0x10|8", &s);
  assert_int_equal(s.keywords, 0x18);
  provider_spec_release(&s);
  parse_ok("Clr:*:*", &s);
  assert_int_equal(s.keywords, ~0ull);
  assert_int_equal(s.level, 5);
  provider_spec_release(&s);
  /* Manifest names where etwcap knows them. */
  parse_ok("Clr:GC|Loader:Informational", &s);
  assert_int_equal(s.keywords, 0x9);
  assert_int_equal(s.level, 4);
  provider_spec_release(&s);
}

static void stacks_and_filters(void **state)
{
  struct provider_spec s;
  (void)state;
  parse_ok("*MyCompany-MyApp:0x3:Verbose:stack", &s);
  assert_true(s.stacks);
  provider_spec_release(&s);
  parse_ok("Clr:1:4:@ProcessIDFilter=12 34;@EventIDsToEnable=1 2 3;@EventIDStacksToEnable=1",
           &s);
  assert_int_equal(s.pid_count, 2);
  assert_int_equal(s.pids[0], 12);
  assert_int_equal(s.pids[1], 34);
  assert_true(s.events.present);
  assert_true(s.events.filter_in);
  assert_int_equal(s.events.count, 3);
  assert_int_equal(s.events.ids[2], 3);
  assert_true(s.stack_events.present);
  provider_spec_release(&s);
  parse_ok("Clr:@ProcessNameFilter=a.exe b.exe;@EventIDsToDisable=7", &s);
  assert_string_equal(s.exe_names, "a.exe;b.exe");
  assert_false(s.events.filter_in);
  provider_spec_release(&s);
  parse_ok("Clr:@StacksEnabled=true", &s);
  assert_true(s.stacks);
  provider_spec_release(&s);
}

static void key_value_part_keeps_colons(void **state)
{
  struct provider_spec s;
  (void)state;
  parse_ok("*Microsoft-Diagnostics-DiagnosticSource:0x3:5:FilterAndPayloadSpecs=A/B:C;"
           "EventCounterIntervalSec=1",
           &s);
  assert_int_equal(s.arg_count, 2);
  assert_string_equal(s.args[0].key, "FilterAndPayloadSpecs");
  assert_string_equal(s.args[0].value, "A/B:C");
  assert_string_equal(s.args[1].key, "EventCounterIntervalSec");
  assert_string_equal(s.args[1].value, "1");
  provider_spec_release(&s);
  /* key=value may start right after the name. */
  parse_ok("*System.Runtime:EventCounterIntervalSec=1", &s);
  assert_int_equal(s.keywords, ~0ull);
  assert_int_equal(s.arg_count, 1);
  provider_spec_release(&s);
}

static void level_zero_keywords_zero_disables(void **state)
{
  struct provider_spec s;
  (void)state;
  parse_ok("Microsoft-Windows-IIS:0:0", &s);
  assert_true(provider_spec_is_disable(&s));
  provider_spec_release(&s);
  parse_ok("Microsoft-Windows-IIS:0", &s); /* keywords 0 at Verbose is not a disable */
  assert_false(provider_spec_is_disable(&s));
  provider_spec_release(&s);
}

static void bad_specs_name_the_token(void **state)
{
  static const struct {
    const char *spec, *token;
  } bad[] = {
    { "NoSuchProvider", "'NoSuchProvider'" },
    { "Clr:0xZZ", "'0xZZ'" },
    { "Clr:Bogus", "'Bogus'" },
    { "*Acme:Bogus", "'Bogus'" },
    { "Clr:1:Loud", "'Loud'" },
    { "Clr:1:300", "'300'" },
    { "Clr:1:5:stak", "'stak'" },
    { "Clr:1:5:stack:extra", "'extra'" },
    { "Clr:@Bogus=1", "'@Bogus'" },
    { "Clr:@StacksEnabled=maybe", "'maybe'" },
    { "Clr:@ProcessIDFilter=12 x", "'x'" },
    { "Clr:@ProcessIDFilter=1 2 3 4 5 6 7 8 9", "more than 8" },
    { "Clr:@EventIDsToEnable=70000", "'70000'" },
    { "Clr:@EventIDsToEnable=1;@EventIDsToDisable=2", "only one" },
    { "Clr:a=1;novalue", "'novalue'" },
    { "Clr:=1", "empty key" },
    { ":1:2", "empty provider name" },
    { "*", "EventSource name" },
    { "Clr:1||2", "empty" },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct provider_spec s;
    char err[512] = "";
    assert_int_equal(provider_spec_parse(bad[i].spec, &s, err, sizeof(err)), ETWCAP_E_USAGE);
    if (!strstr(err, bad[i].token))
      fail_msg("'%s': message '%s' does not contain %s", bad[i].spec, err, bad[i].token);
  }
}

static void allocation_failures_are_clean(void **state)
{
  static const char spec[] = "Clr:1:4:a=1;b=2;@ProcessNameFilter=x.exe";
  struct provider_spec s;
  char err[256];
  unsigned n, total;
  (void)state;
  test_fail_alloc_after(0);
  assert_int_equal(provider_spec_parse(spec, &s, err, sizeof(err)), 0);
  provider_spec_release(&s);
  total = test_alloc_count();
  assert_true(total > 1);
  for (n = 1; n <= total; n++) {
    int rc;
    test_fail_alloc_after(n);
    rc = provider_spec_parse(spec, &s, err, sizeof(err));
    test_fail_alloc_after(0);
    assert_int_equal(rc, ETWCAP_E_NOMEM);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(name_only_takes_all_keywords_at_verbose),
    cmocka_unit_test(runbook_assembly_loading_spec),
    cmocka_unit_test(keywords_are_hex_with_or_without_0x),
    cmocka_unit_test(stacks_and_filters),
    cmocka_unit_test(key_value_part_keeps_colons),
    cmocka_unit_test(level_zero_keywords_zero_disables),
    cmocka_unit_test(bad_specs_name_the_token),
    cmocka_unit_test(allocation_failures_are_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
