/* etwcap's own provider on Windows (src/os/own_provider_win32.c), under Wine,
 * against the model of advapi32's event-provider calls
 * (tests/fakes/fake_eventwrite_win32.c): the GUID it registers, what a
 * listening session records (decoded by etwcap's own TraceLogging reader),
 * that nothing is recorded without a session, and a failed registration.
 * Checked only against that model, never against a real Windows. */
#include "tests/fakes/test_support.h"

#include "etw/event/tracelogging.h"
#include "src/base/error.h"
#include "tests/fakes/fake_eventwrite_win32.h"

#include <string.h>

static int setup(void **state)
{
  (void)state;
  fake_ew_reset();
  own_provider_win32_set_api(&fake_ew_api);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  own_provider_win32_set_api(NULL);
  return 0;
}

static void a_listening_session_records_the_mark_as_tracelogging(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct own_provider *p;
  struct tl_encoded e;
  struct tl_meta m;
  struct tv_value v;
  struct etw_guid g;
  char why[256];
  (void)state;
  ew->session_level = 5; /* the plan enables it at Verbose */
  assert_int_equal(own_provider_open(&p, why, sizeof(why)), 0);
  assert_int_equal(own_provider_guid(&g), 0);
  assert_int_equal(ew->provider.Data1, g.data1);
  assert_int_equal(ew->provider.Data2, g.data2);
  assert_int_equal(ew->provider.Data3, g.data3);
  assert_memory_equal(ew->provider.Data4, g.data4, 8);
  assert_int_equal(own_provider_listened(p), 1);
  assert_int_equal(own_event_mark(&e, "step 2"), 0);
  assert_int_equal(own_provider_write(p, &e, why, sizeof(why)), 0);
  own_provider_close(p);
  assert_int_equal(ew->violations, 0);
  assert_int_equal(ew->traits_set, 1);
  assert_int_equal(ew->unregistered, 1);
  assert_int_equal(ew->event_count, 1);
  assert_int_equal(ew->events[0].desc.Channel, 11);
  assert_int_equal(ew->events[0].desc.Level, 4);
  assert_string_equal((const char *)ew->events[0].traits + 2, "etwcap");
  assert_int_equal(tl_parse_bytes(ew->events[0].meta, ew->events[0].meta_len, &m), 1);
  assert_string_equal(m.name, "Mark");
  assert_int_equal(tl_find(&m, ew->events[0].data, ew->events[0].data_len, 8, "Message", &v), 1);
  assert_string_equal(v.text, "step 2");
}

static void without_a_session_nothing_listens_and_nothing_is_recorded(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct own_provider *p;
  struct tl_encoded e;
  char why[256];
  (void)state;
  assert_int_equal(own_provider_open(&p, why, sizeof(why)), 0);
  assert_int_equal(own_provider_listened(p), 0);
  assert_int_equal(own_event_mark(&e, ""), 0);
  assert_int_equal(own_provider_write(p, &e, why, sizeof(why)), 0);
  own_provider_close(p);
  assert_int_equal(ew->violations, 0);
  assert_int_equal(ew->event_count, 0);
}

static void a_session_at_a_lower_level_does_not_take_informational_events(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct own_provider *p;
  char why[256];
  (void)state;
  ew->session_level = 3; /* Warning: the Informational marks are filtered out */
  assert_int_equal(own_provider_open(&p, why, sizeof(why)), 0);
  assert_int_equal(own_provider_listened(p), 0);
  own_provider_close(p);
}

static void a_failed_registration_names_the_call_and_code(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct own_provider *p = (struct own_provider *)&p;
  char why[256];
  (void)state;
  ew->register_error = ERROR_ACCESS_DENIED;
  assert_int_equal(own_provider_open(&p, why, sizeof(why)), ETWCAP_E_ACCES);
  assert_null(p);
  assert_non_null(strstr(why, "EventRegister"));
  assert_non_null(strstr(why, "5"));
  assert_int_equal(ew->violations, 0);
}

/* A Windows that does not take the traits would record the metadata as
 * payload: the provider is not opened, and the message says why. */
static void traits_windows_does_not_take_leave_no_provider(void **state)
{
  struct fake_ew *ew = fake_ew_reset();
  struct own_provider *p = (struct own_provider *)&p;
  char why[512];
  (void)state;
  ew->set_information_error = ERROR_NOT_SUPPORTED;
  assert_int_equal(own_provider_open(&p, why, sizeof(why)), ETWCAP_E_UNSUPPORTED);
  assert_null(p);
  assert_non_null(strstr(why, "EventProviderSetTraits"));
  assert_int_equal(ew->unregistered, 1);
  assert_int_equal(ew->violations, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T(a_listening_session_records_the_mark_as_tracelogging),
    T(without_a_session_nothing_listens_and_nothing_is_recorded),
    T(a_session_at_a_lower_level_does_not_take_informational_events),
    T(a_failed_registration_names_the_call_and_code),
    T(traits_windows_does_not_take_leave_no_provider),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
