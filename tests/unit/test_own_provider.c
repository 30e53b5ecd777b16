/* etwcap's own provider (src/os/own_provider.h): its GUID is the EventSource
 * hash of "etwcap" (computed independently with Python's hashlib by
 * TraceEvent's algorithm: SHA-1 of the namespace bytes and the upper-cased
 * name in UTF-16BE, version nibble 5), and its events decode with the
 * fields they promise. */
#include "tests/fakes/test_support.h"

#include "etw/event/guid.h"
#include "etw/event/tracelogging.h"
#include "src/os/own_provider.h"

#include <string.h>

static void the_guid_is_the_eventsource_hash_of_the_name(void **state)
{
  struct etw_guid g;
  char text[40];
  (void)state;
  assert_int_equal(own_provider_guid(&g), 0);
  guid_format(&g, text);
  assert_string_equal(text, "e45c2f6f-cd71-5917-d0b1-1a492ba0ca1c");
}

static void a_mark_carries_its_message(void **state)
{
  struct tl_encoded e;
  struct tl_meta m;
  struct tv_value v;
  (void)state;
  assert_int_equal(own_event_mark(&e, "before the deploy"), 0);
  assert_int_equal(tl_parse_bytes(e.meta, e.meta_len, &m), 1);
  assert_string_equal(m.name, "Mark");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Message", &v), 1);
  assert_string_equal(v.text, "before the deploy");
}

static void a_counter_update_carries_category_counter_instance_and_value(void **state)
{
  struct tl_encoded e;
  struct tl_meta m;
  struct tv_value v;
  double d;
  (void)state;
  assert_int_equal(own_event_counter(&e, "LogicalDisk", "% Free Space", "C:", 12.5), 0);
  assert_int_equal(tl_parse_bytes(e.meta, e.meta_len, &m), 1);
  assert_string_equal(m.name, "PerformanceCounterUpdate");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Category", &v), 1);
  assert_string_equal(v.text, "LogicalDisk");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Counter", &v), 1);
  assert_string_equal(v.text, "% Free Space");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Instance", &v), 1);
  assert_string_equal(v.text, "C:");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Value", &v), 1);
  assert_int_equal(tv_as_double(&v, &d), 1);
  assert_true(d == 12.5);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_guid_is_the_eventsource_hash_of_the_name),
    cmocka_unit_test(a_mark_carries_its_message),
    cmocka_unit_test(a_counter_update_carries_category_counter_instance_and_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
