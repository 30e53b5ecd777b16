/* The triggers as `plan` shows them: each kind's parsed fields, the global
 * qualifiers applied as the engine applies them, a malformed spec failing
 * with the engine's message, and the table and the JSON carrying the same
 * fields. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "triggers/trigger_describe.h"

#include <stdio.h>
#include <string.h>

static char err[1024];

static const struct trigger_field *field(const struct trigger_descs *d, size_t i,
                                         const char *key)
{
  const struct trigger_field *f;
  assert_true(i < d->count);
  f = trigger_desc_field(&d->items[i], key);
  if (!f)
    fail_msg("trigger %u has no field '%s'", (unsigned)i, key);
  return f;
}

static void expect_text(const struct trigger_descs *d, size_t i, const char *key,
                        const char *want)
{
  const struct trigger_field *f = field(d, i, key);
  assert_true(f->type == TRIGGER_FIELD_STRING || f->type == TRIGGER_FIELD_STRINGS);
  assert_string_equal(f->text, want);
}

static void expect_number(const struct trigger_descs *d, size_t i, const char *key, double want)
{
  const struct trigger_field *f = field(d, i, key);
  assert_int_equal(f->type, TRIGGER_FIELD_NUMBER);
  if (f->number != want)
    fail_msg("%s: got %.17g, want %.17g", key, f->number, want);
}

/* The engine collect and plan build, then its description. */
static int describe(const struct trigger_options *o, struct trigger_descs *d)
{
  struct trigger_engine *e = NULL;
  int rc = trigger_engine_create(&e, o, err, sizeof(err));
  memset(d, 0, sizeof(*d));
  if (!rc)
    rc = trigger_describe(o, e, d);
  trigger_engine_free(e);
  return rc;
}

static void counter_and_exception(void **state)
{
  char *counters[] = { "Processor:% Processor Time:_Total > 90" };
  struct trigger_options o;
  struct trigger_descs d;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = counters;
  o.stop_on_perf_counter_count = 1;
  o.stop_on_exception = "Timeout";
  o.min_sec_for_trigger = 5;
  o.decay_to_zero_hours = 2.5;
  o.delay_after_trigger_sec = 10;
  o.collect_multiple = 3;
  assert_int_equal(describe(&o, &d), 0);
  assert_int_equal(d.count, 2);
  expect_text(&d, 0, "qualifier", "StopOnPerfCounter");
  expect_text(&d, 0, "role", "stop");
  expect_text(&d, 0, "spec", counters[0]);
  expect_text(&d, 0, "kind", "perfCounter");
  expect_text(&d, 0, "category", "Processor");
  expect_text(&d, 0, "counter", "% Processor Time");
  expect_text(&d, 0, "instance", "_Total");
  expect_text(&d, 0, "operator", ">");
  expect_number(&d, 0, "threshold", 90);
  expect_number(&d, 0, "minSecForTrigger", 5);
  expect_number(&d, 0, "samplesNeeded", 6);
  expect_number(&d, 0, "decayToZeroHours", 2.5);
  expect_number(&d, 0, "delayAfterTriggerSec", 10);
  expect_number(&d, 0, "collectMultiple", 3);

  expect_text(&d, 1, "qualifier", "StopOnException");
  expect_text(&d, 1, "kind", "etwEvent");
  expect_text(&d, 1, "provider", "Microsoft-Windows-DotNETRuntime");
  expect_text(&d, 1, "event", "Exception/Start");
  expect_number(&d, 1, "eventId", 80);
  expect_text(&d, 1, "keywords", "0x8000");
  expect_text(&d, 1, "regex", "Timeout");
  assert_false(field(&d, 1, "regexIgnoresCase")->flag);
  expect_text(&d, 1, "process", "");
  expect_number(&d, 1, "triggerMSec", 0);
  /* A single-event trigger has no duration to decay. */
  assert_null(trigger_desc_field(&d.items[1], "decayToZeroHours"));
  expect_number(&d, 1, "delayAfterTriggerSec", 10);
  trigger_descs_release(&d);
}

/* The built-in triggers are shown as the engine expands them, with the
 * global /Process and /DecayToZeroHours where the engine applies them. */
static void builtins_as_the_engine_builds_them(void **state)
{
  char *etw[] = { "Clr/GC/Start;TriggerMSec=100;FieldFilter=Depth>=2;Process=42" };
  char *start[] = { "Memory:Available MBytes: < 100" };
  struct trigger_options o;
  struct trigger_descs d;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_gc_over_msec = 500;
  o.stop_on_request_over_msec = 2000;
  o.stop_on_etw_event = etw;
  o.stop_on_etw_event_count = 1;
  o.start_on_perf_counter = start;
  o.start_on_perf_counter_count = 1;
  o.process = "w3wp";
  o.decay_to_zero_hours = 4;
  assert_int_equal(describe(&o, &d), 0);
  assert_int_equal(d.count, 4);
  /* The start counter comes first, does not decay, and has no delay. */
  expect_text(&d, 0, "role", "start");
  expect_text(&d, 0, "instance", "");
  expect_text(&d, 0, "operator", "<");
  expect_number(&d, 0, "decayToZeroHours", 0);
  assert_null(trigger_desc_field(&d.items[0], "delayAfterTriggerSec"));

  expect_text(&d, 1, "qualifier", "StopOnGCOverMsec");
  expect_text(&d, 1, "spec", "500");
  expect_text(&d, 1, "event", "GC/Start");
  expect_text(&d, 1, "stopEvent", "GC/Stop");
  expect_number(&d, 1, "triggerMSec", 500);
  expect_text(&d, 1, "conditions", "Type != BackgroundGC\n");
  expect_text(&d, 1, "process", "w3wp");
  expect_number(&d, 1, "decayToZeroHours", 4);

  expect_text(&d, 2, "qualifier", "StopOnRequestOverMsec");
  expect_text(&d, 2, "provider", "Microsoft-Windows-IIS");
  expect_text(&d, 2, "event", "EventID(1)");
  expect_text(&d, 2, "stopEvent", "EventID(2)");
  expect_text(&d, 2, "levelName", "Critical");

  expect_text(&d, 3, "qualifier", "StopOnEtwEvent");
  expect_text(&d, 3, "process", "42"); /* the spec's own Process= wins */
  expect_text(&d, 3, "fieldFilters", "Depth>=2\n");
  expect_text(&d, 3, "startStopId", "default");
  trigger_descs_release(&d);
}

static void other_kinds_and_the_limit(void **state)
{
  char *evc[] = { "System.Runtime:gc-heap-size>500" };
  struct trigger_options o;
  struct trigger_descs d;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_event_counter = evc;
  o.stop_on_event_counter_count = 1;
  o.stop_on_http_status = "5xx;404";
  o.stop_on_event_log_message = "System@disk.*full";
  o.stop_on_gc_event = "Induced;Process=app";
  o.max_collect_sec = 60;
  assert_int_equal(describe(&o, &d), 0);
  assert_int_equal(d.count, 5);
  expect_text(&d, 0, "qualifier", "StopOnGCEvent");
  expect_text(&d, 0, "process", "app");
  expect_text(&d, 0, "conditions",
              "Reason is Induced, InducedNotForced, InducedCompacting or InducedLowMemory\n");
  expect_text(&d, 1, "kind", "eventCounter");
  expect_text(&d, 1, "source", "System.Runtime");
  expect_text(&d, 1, "counter", "gc-heap-size");
  expect_number(&d, 1, "threshold", 500);
  expect_text(&d, 2, "qualifier", "StopOnHttpStatus");
  expect_text(&d, 2, "statusCodes", "500-599\n404\n");
  expect_text(&d, 3, "kind", "eventLog");
  expect_text(&d, 3, "log", "System");
  expect_text(&d, 3, "regex", "disk.*full");
  assert_true(field(&d, 3, "regexIgnoresCase")->flag);
  expect_text(&d, 4, "qualifier", "MaxCollectSec");
  expect_text(&d, 4, "role", "limit");
  expect_number(&d, 4, "maxCollectSec", 60);
  expect_number(&d, 4, "delayAfterTriggerSec", 0);
  trigger_descs_release(&d);
}

static void malformed_spec_fails_with_the_engine_message(void **state)
{
  char *bad[] = { "Processor:% Processor Time:_Total >> 90" };
  struct trigger_options o;
  struct trigger_descs d;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = bad;
  o.stop_on_perf_counter_count = 1;
  assert_int_equal(describe(&o, &d), ETWCAP_E_USAGE);
  assert_int_equal(d.count, 0);
  assert_non_null(strstr(err, "/StopOnPerfCounter: 'Processor:% Processor Time:_Total >> 90': "
                              "position 35: '>>' is not an operator"));
}

static void none_is_an_empty_list(void **state)
{
  struct trigger_options o;
  struct trigger_descs d;
  char *text = NULL;
  (void)state;
  trigger_options_init(&o);
  assert_int_equal(describe(&o, &d), 0);
  assert_int_equal(d.count, 0);
  assert_int_equal(trigger_descs_to_json(&d, 4, &text), 0);
  assert_string_equal(text, "[]");
  etwcap_free(text);
  assert_int_equal(trigger_descs_to_text(&d, &text), 0);
  assert_string_equal(text, "");
  etwcap_free(text);
  trigger_descs_release(&d);
}

/* Every field is in both forms under its name; JSON strings are escaped. */
static void table_and_json_show_the_same_fields(void **state)
{
  char *counters[] = { "Processor:% Processor Time:_Total > 0.1" };
  struct trigger_options o;
  struct trigger_descs d;
  char *json = NULL, *text = NULL;
  size_t i, k;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = counters;
  o.stop_on_perf_counter_count = 1;
  o.stop_on_exception = "Bad \"quote\" \\d+";
  o.stop_on_gen2_gc = 1;
  assert_int_equal(describe(&o, &d), 0);
  assert_int_equal(trigger_descs_to_json(&d, 4, &json), 0);
  assert_int_equal(trigger_descs_to_text(&d, &text), 0);
  assert_true(json[0] == '[' && json[strlen(json) - 1] == ']');
  assert_non_null(strstr(json, "\"regex\": \"Bad \\\"quote\\\" \\\\d+\""));
  assert_non_null(strstr(json, "\"threshold\": 0.1,"));
  assert_non_null(strstr(json, "\"conditions\": [\"Depth >= 2\", \"Type != BackgroundGC\"]"));
  assert_non_null(strstr(json, "\"fieldFilters\": []"));
  assert_non_null(strstr(text, "Triggers (3):\n"));
  assert_non_null(strstr(text, "  /StopOnGen2GC (stop)\n"));
  assert_non_null(strstr(text, "    threshold              0.1\n"));
  assert_non_null(strstr(text, "    conditions             Depth >= 2; Type != BackgroundGC\n"));
  for (i = 0; i < d.count; i++)
    for (k = 0; k < d.items[i].count; k++) {
      char key[64];
      const char *name = d.items[i].fields[k].key;
      snprintf(key, sizeof(key), "\"%s\": ", name);
      if (!strstr(json, key))
        fail_msg("'%s' is not in the JSON", name);
      if (strcmp(name, "qualifier") && strcmp(name, "role") && strcmp(name, "spec")) {
        snprintf(key, sizeof(key), "    %s ", name);
        if (!strstr(text, key))
          fail_msg("'%s' is not in the table", name);
      }
    }
  etwcap_free(json);
  etwcap_free(text);
  trigger_descs_release(&d);
}

/* Every allocation failure is ETWCAP_E_NOMEM and leaks nothing. */
static void allocation_failures(void **state)
{
  char *counters[] = { "Processor:% Processor Time:_Total > 90" };
  struct trigger_options o;
  struct trigger_descs d;
  unsigned n, total;
  int rc;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = counters;
  o.stop_on_perf_counter_count = 1;
  o.stop_on_http_status = "5xx";
  o.max_collect_sec = 5;
  test_fail_alloc_after(0); /* counts from here */
  assert_int_equal(describe(&o, &d), 0);
  total = test_alloc_count();
  trigger_descs_release(&d);
  assert_true(total > 5);
  for (n = 1; n <= total; n++) {
    test_fail_alloc_after(n);
    rc = describe(&o, &d);
    test_fail_alloc_after(0);
    assert_int_equal(rc, ETWCAP_E_NOMEM);
    assert_int_equal(d.count, 0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(counter_and_exception),
    cmocka_unit_test(builtins_as_the_engine_builds_them),
    cmocka_unit_test(other_kinds_and_the_limit),
    cmocka_unit_test(malformed_spec_fails_with_the_engine_message),
    cmocka_unit_test(none_is_an_empty_list),
    cmocka_unit_test(table_and_json_show_the_same_fields),
    cmocka_unit_test(allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
