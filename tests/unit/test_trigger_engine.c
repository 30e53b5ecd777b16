/* The trigger engine's cycle through its own API, on a virtual clock: the
 * phases a collection goes through, when the engine wants to be woken,
 * collection numbers and starts, the fire records and the fire callback,
 * and the refusal of malformed options.  Event-log messages drive it here
 * (no counter or event decoding: test_trigger_counter.c and
 * test_trigger_samples.c cover those); every expected instant follows from
 * the options the test gives and PerfView's cycle
 * (docs/perfview-collection.md §6.4: DelayAfterTriggerSec after a stop
 * fire, MaxCollectSec and a manual stop with no delay, CollectMultiple
 * cycles). */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "triggers/trigger_engine.h"

#include <stdio.h>
#include <string.h>

#define T0 INT64_C(133000000000000000)
#define SEC TRIGGER_TICKS_PER_SEC

struct seen {
  struct trigger_fire fires[8];
  size_t count;
};

static void on_fire(void *ctx, const struct trigger_fire *f)
{
  struct seen *s = ctx;
  if (s->count < 8)
    s->fires[s->count++] = *f;
}

static struct trigger_engine *engine(const struct trigger_options *o, struct seen *seen)
{
  struct trigger_engine *e = NULL;
  char err[512];
  if (trigger_engine_create(&e, o, err, sizeof(err)) != 0)
    fail_msg("%s", err);
  memset(seen, 0, sizeof(*seen));
  trigger_engine_set_fire_callback(e, on_fire, seen);
  assert_int_equal(trigger_engine_start(e, T0, err, sizeof(err)), 0);
  return e;
}

/* An Application-log error at `ft` (advance first, as a capture does). */
static void message(struct trigger_engine *e, int64_t ft, const char *text)
{
  struct trigger_message m;
  memset(&m, 0, sizeof(m));
  m.ft = ft;
  m.log = "Application";
  m.type = "Error";
  m.event_id = 1000;
  m.message = text;
  assert_int_equal(trigger_engine_advance(e, ft), 0);
  assert_int_equal(trigger_engine_message(e, &m), 0);
}

static void a_stop_fire_runs_the_delay_then_the_next_collection(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct seen seen;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_event_log_message = "FAULTING";
  o.delay_after_trigger_sec = 2;
  o.collect_multiple = 2;
  e = engine(&o, &seen);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_COLLECTING);
  assert_int_equal(trigger_engine_collection(e), 1);
  assert_true(trigger_engine_collection_start(e) == T0);
  assert_true(trigger_engine_next_deadline(e) == INT64_MAX); /* nothing to poll, no limit */

  message(e, T0 + 5 * SEC, "all is well");
  assert_int_equal(seen.count, 0);
  message(e, T0 + 6 * SEC, "Faulting application w3wp.exe");
  assert_int_equal(seen.count, 1);
  assert_string_equal(seen.fires[0].trigger, "StopOnEventLogMessage");
  assert_int_equal(seen.fires[0].role, TRIGGER_ROLE_STOP);
  assert_true(seen.fires[0].filetime == T0 + 6 * SEC);
  assert_true(seen.fires[0].stop_at == T0 + 8 * SEC);
  assert_true(seen.fires[0].collection_start == T0);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_STOPPING);
  assert_true(trigger_engine_next_deadline(e) == T0 + 8 * SEC);

  /* One tick before the delay ends nothing moves; at its end collection 2
   * begins there. */
  assert_int_equal(trigger_engine_advance(e, T0 + 8 * SEC - 1), 0);
  assert_int_equal(trigger_engine_collection(e), 1);
  assert_int_equal(trigger_engine_advance(e, T0 + 8 * SEC), 0);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_COLLECTING);
  assert_int_equal(trigger_engine_collection(e), 2);
  assert_true(trigger_engine_collection_start(e) == T0 + 8 * SEC);

  message(e, T0 + 20 * SEC, "faulting again");
  assert_int_equal(seen.count, 2);
  assert_int_equal(seen.fires[1].collection, 2);
  assert_true(seen.fires[1].collection_start == T0 + 8 * SEC);
  assert_int_equal(trigger_engine_advance(e, T0 + 22 * SEC), 0);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  assert_true(trigger_engine_next_deadline(e) == INT64_MAX);

  /* The engine keeps every fire in order. */
  assert_int_equal(trigger_engine_fire_count(e), 2);
  assert_true(trigger_engine_fire_at(e, 1)->filetime == T0 + 20 * SEC);
  trigger_engine_free(e);
}

static void nothing_fires_while_the_delay_runs(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct seen seen;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_event_log_message = "FAULTING";
  o.delay_after_trigger_sec = 10;
  e = engine(&o, &seen);
  message(e, T0 + 1 * SEC, "Faulting application");
  message(e, T0 + 2 * SEC, "Faulting application");
  message(e, T0 + 3 * SEC, "Faulting application");
  assert_int_equal(seen.count, 1);
  assert_int_equal(trigger_engine_advance(e, T0 + 11 * SEC), 0);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  trigger_engine_free(e);
}

static void max_collect_sec_is_a_limit_with_no_delay(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct seen seen;
  (void)state;
  trigger_options_init(&o);
  o.max_collect_sec = 30;
  o.delay_after_trigger_sec = 5; /* applies to stop triggers only */
  e = engine(&o, &seen);
  assert_true(trigger_engine_next_deadline(e) == T0 + 30 * SEC);
  assert_int_equal(trigger_engine_advance(e, T0 + 30 * SEC - 1), 0);
  assert_int_equal(seen.count, 0);
  assert_int_equal(trigger_engine_advance(e, T0 + 30 * SEC), 0);
  assert_int_equal(seen.count, 1);
  assert_string_equal(seen.fires[0].trigger, "MaxCollectSec");
  assert_int_equal(seen.fires[0].role, TRIGGER_ROLE_LIMIT);
  assert_true(seen.fires[0].stop_at == T0 + 30 * SEC);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  trigger_engine_free(e);
}

static void max_collect_sec_counts_each_collection(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct seen seen;
  (void)state;
  trigger_options_init(&o);
  o.stop_on_event_log_message = "FAULTING";
  o.delay_after_trigger_sec = 0;
  o.collect_multiple = 2;
  o.max_collect_sec = 30;
  e = engine(&o, &seen);
  message(e, T0 + 10 * SEC, "Faulting application");
  assert_int_equal(trigger_engine_advance(e, T0 + 10 * SEC), 0);
  assert_int_equal(trigger_engine_collection(e), 2);
  /* The second collection began at the fire: its limit is 30 s later. */
  assert_true(trigger_engine_next_deadline(e) == T0 + 40 * SEC);
  assert_int_equal(trigger_engine_advance(e, T0 + 40 * SEC), 0);
  assert_int_equal(seen.count, 2);
  assert_string_equal(seen.fires[1].trigger, "MaxCollectSec");
  assert_int_equal(trigger_engine_phase(e), TRIGGER_DONE);
  trigger_engine_free(e);
}

static void an_engine_without_triggers_never_fires(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e;
  struct seen seen;
  (void)state;
  trigger_options_init(&o);
  e = engine(&o, &seen);
  message(e, T0 + 100 * SEC, "Faulting application");
  assert_int_equal(trigger_engine_advance(e, T0 + 86400 * SEC), 0);
  assert_int_equal(seen.count, 0);
  assert_int_equal(trigger_engine_phase(e), TRIGGER_COLLECTING);
  assert_false(trigger_engine_has_counters(e));
  assert_false(trigger_engine_has_event_log(e));
  trigger_engine_free(e);
}

static void malformed_options_name_their_qualifier(void **state)
{
  static char *bad_counter[] = { "Processor:% Processor Time:_Total >> 90" };
  static char *bad_event[] = { "NoSuchProvider/Ev;x=" };
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  char err[512];
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = bad_counter;
  o.stop_on_perf_counter_count = 1;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_null(e);
  assert_non_null(strstr(err, "/StopOnPerfCounter"));
  trigger_options_init(&o);
  o.stop_on_etw_event = bad_event;
  o.stop_on_etw_event_count = 1;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnEtwEvent"));
  trigger_options_init(&o);
  o.stop_on_event_log_message = "(unclosed";
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnEventLogMessage"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_stop_fire_runs_the_delay_then_the_next_collection),
    cmocka_unit_test(nothing_fires_while_the_delay_runs),
    cmocka_unit_test(max_collect_sec_is_a_limit_with_no_delay),
    cmocka_unit_test(max_collect_sec_counts_each_collection),
    cmocka_unit_test(an_engine_without_triggers_never_fires),
    cmocka_unit_test(malformed_options_name_their_qualifier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
