/* The EventSource provider-data hand-off (contract-review.md finding 2).
 * Expected names and bytes from TraceEvent's TraceEventSession.cs:
 * GetEventSourceRegistryBaseLocation() returns
 * "Software\Wow6432Node\Microsoft\Windows\CurrentVersion\Winevt\Publishers"
 * for a 64-bit process; SetFilterDataForEtwSession writes
 * "{" + providerGuid + "}" / "ControllerData_Session_" + m_SessionId as
 * RegistryValueKind.Binary, m_SessionId = (int)Wnode.HistoricalContext;
 * the data is EnableProvider's "EtwSessionName\0<session>\0
 * EtwSessionKeyword\0<n>\0" then the arguments; nothing is stored for
 * SendManifest; the value is deleted at stop and an emptied provider key
 * with it ("Hygiene").  The EventSource side (TryReadRegistryFilterData in
 * dotnet/runtime) reads the same key and value name. */
#include "test_support.h"

#include "eventsource_registry.h"
#include "fake_registry.h"

#include <stdio.h>
#include <string.h>

#define KEY \
  "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Winevt\\Publishers\\" \
  "{adb401e1-5296-51f8-c125-5fda75826144}"

static unsigned char data_etwcap[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\00044\0"
                                     "EventCounterIntervalSec\0001";
static unsigned char data_other[] = "EtwSessionName\0PerfViewSession\0EtwSessionKeyword\00045\0";

/* Microsoft-Diagnostics-DiagnosticSource (perfview-collect.md's check
 * value adb401e1-5296-51f8-c125-5fda75826144) with EventSource arguments. */
static void provider(struct plan_provider *p, unsigned char *data, size_t size, uint32_t type)
{
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "Microsoft-Diagnostics-DiagnosticSource");
  assert_int_equal(guid_parse("adb401e1-5296-51f8-c125-5fda75826144", &p->guid), 0);
  p->filters[0].type = type;
  p->filters[0].data = data;
  p->filters[0].size = (uint32_t)size;
  p->filter_count = 1;
}

static void put_stores_traceevents_value(void **state)
{
  static struct fake_registry f;
  struct plan_provider p;
  const struct fake_registry_value *v;
  (void)state;
  fake_registry_init(&f);
  provider(&p, data_etwcap, sizeof(data_etwcap), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 0x2A), 0);
  v = fake_registry_find(&f, KEY, "ControllerData_Session_42");
  assert_non_null(v);
  assert_int_equal(v->size, sizeof(data_etwcap));
  assert_memory_equal(v->data, data_etwcap, sizeof(data_etwcap));
}

static void send_manifest_and_no_arguments_store_nothing(void **state)
{
  static struct fake_registry f;
  struct plan_provider p;
  (void)state;
  fake_registry_init(&f);
  provider(&p, data_etwcap, sizeof(data_etwcap), PLAN_FILTER_SEND_MANIFEST);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 7), 0);
  p.filter_count = 0;
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 7), 0);
  assert_int_equal(f.count, 0);
}

/* The one name most tests remove by. */
static const char *const ETWCAP[] = { "etwcap" };

static void remove_takes_only_the_named_sessions(void **state)
{
  static struct fake_registry f;
  struct plan_provider p;
  size_t removed = 0;
  (void)state;
  fake_registry_init(&f);
  provider(&p, data_etwcap, sizeof(data_etwcap), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 3), 0);
  provider(&p, data_other, sizeof(data_other), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 4), 0);
  assert_int_equal(eventsource_registry_remove(&f.reg, ETWCAP, 1, 0, &removed), 0);
  assert_int_equal(removed, 1);
  assert_null(fake_registry_find(&f, KEY, "ControllerData_Session_3"));
  /* Another tool's session keeps its value, and the key with it. */
  assert_non_null(fake_registry_find(&f, KEY, "ControllerData_Session_4"));
  assert_true(fake_registry_has_key(&f, KEY));
}

/* Values of sessions 'etwcap' (id 3) and 'etwcapTrigger_77' (id 9) in a
 * fresh registry. */
static void put_etwcap_and_trigger(struct fake_registry *f)
{
  static unsigned char trig[] = "EtwSessionName\0etwcapTrigger_77\0EtwSessionKeyword\00044\0";
  struct plan_provider p;
  fake_registry_init(f);
  provider(&p, data_etwcap, sizeof(data_etwcap), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f->reg, &p, 3), 0);
  provider(&p, trig, sizeof(trig), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f->reg, &p, 9), 0);
}

static void abort_by_prefix_cleans_a_killed_capture_and_the_empty_key(void **state)
{
  static struct fake_registry f;
  size_t removed = 0;
  (void)state;
  put_etwcap_and_trigger(&f);
  assert_int_equal(eventsource_registry_remove(&f.reg, ETWCAP, 1, 1, &removed), 0);
  assert_int_equal(removed, 2);
  assert_int_equal(f.count, 0);
  assert_false(fake_registry_has_key(&f, KEY));
}

static void no_publishers_key_is_nothing_to_remove(void **state)
{
  static struct fake_registry f;
  size_t removed = 5;
  (void)state;
  fake_registry_init(&f);
  assert_int_equal(eventsource_registry_remove(&f.reg, ETWCAP, 1, 1, &removed), 0);
  assert_int_equal(removed, 0);
}

/* live13 review, finding 6: the stop removes all of a capture's sessions in
 * one walk; a session that is not named keeps its value (TraceEvent removes
 * only its own session's, TraceEventSession.cs). */
static void one_walk_removes_every_named_session(void **state)
{
  static struct fake_registry f;
  struct plan_provider p;
  static const char *const names[] = { "etwcapKernel", "etwcap", "etwcapTrigger_77" };
  size_t removed = 0;
  (void)state;
  put_etwcap_and_trigger(&f);
  provider(&p, data_other, sizeof(data_other), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 4), 0);
  assert_int_equal(eventsource_registry_remove(&f.reg, names, 3, 0, &removed), 0);
  assert_int_equal(removed, 2);
  assert_int_equal(f.subkey_walks, 1);
  assert_non_null(fake_registry_find(&f, KEY, "ControllerData_Session_4"));
}

/* live13 review, finding 8: an enable that failed after the hand-off takes
 * its value back, and the key when that left it empty. */
static void drop_takes_back_one_hand_off(void **state)
{
  static struct fake_registry f;
  struct plan_provider p;
  (void)state;
  fake_registry_init(&f);
  provider(&p, data_etwcap, sizeof(data_etwcap), PLAN_FILTER_PROVIDER_DATA);
  assert_int_equal(eventsource_registry_put(&f.reg, &p, 3), 0);
  assert_int_equal(eventsource_registry_drop(&f.reg, &p, 3), 0);
  assert_int_equal(f.count, 0);
  assert_false(fake_registry_has_key(&f, KEY));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(put_stores_traceevents_value),
    cmocka_unit_test(one_walk_removes_every_named_session),
    cmocka_unit_test(drop_takes_back_one_hand_off),
    cmocka_unit_test(send_manifest_and_no_arguments_store_nothing),
    cmocka_unit_test(remove_takes_only_the_named_sessions),
    cmocka_unit_test(abort_by_prefix_cleans_a_killed_capture_and_the_empty_key),
    cmocka_unit_test(no_publishers_key_is_nothing_to_remove),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
