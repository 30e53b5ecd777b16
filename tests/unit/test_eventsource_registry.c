/* The EventSource provider-data hand-off (docs/win32-contract.md §6).
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
#include "tests/fakes/test_support.h"

#include "etw/session/eventsource_registry.h"
#include "src/base/error.h"
#include "tests/fakes/fake_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY \
  "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Winevt\\Publishers\\" \
  "{adb401e1-5296-51f8-c125-5fda75826144}"

static unsigned char data_etwcap[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\00044\0"
                                     "EventCounterIntervalSec\0001";
static unsigned char data_other[] = "EtwSessionName\0PerfViewSession\0EtwSessionKeyword\00045\0";

/* Microsoft-Diagnostics-DiagnosticSource (the check value
 * adb401e1-5296-51f8-c125-5fda75826144 of docs/perfview-collection.md §4.5)
 * with EventSource arguments. */
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

/* The stop removes all of a capture's sessions in one walk; a session that
 * is not named keeps its value (TraceEvent removes only its own session's,
 * TraceEventSession.cs; docs/win32-contract.md §6.5). */
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

/* An enable that failed after the hand-off takes its value back, and the
 * key when that left it empty (docs/win32-contract.md §6.4). */
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

/* --- a crowded registry, made up on each walk --------------------------- */

/* 70 provider keys (more than one walk ever kept before), each with 20
 * values of session 'etwcap' (more than 16) and one whose name has 83
 * characters (more than 63), beside a provider key of 300 characters: a
 * registry allows subkey names of 255 characters and value names of
 * 16,383 (Registry element size limits, learn.microsoft.com).  Every call
 * is checked against the names listed: a name cut to fit a buffer would
 * name another key or value. */
#define CROWD_KEYS 70
#define CROWD_VALUES 20
#define BASE "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Winevt\\Publishers"

struct crowd {
  size_t deleted, emptied, strangers;
};

static void crowd_key(char *out, size_t size, size_t k)
{
  snprintf(out, size, "{00000000-0000-0000-0000-%012lu}", (unsigned long)k);
}

static void crowd_long_value(char *out, size_t size)
{
  snprintf(out, size, "ControllerData_Session_%060d", 7);
}

/* 1 when `key` is BASE\{a listed provider key}. */
static int crowd_listed(const char *key)
{
  char name[64];
  size_t k;
  if (strncmp(key, BASE "\\", sizeof(BASE)) != 0)
    return 0;
  for (k = 0; k < CROWD_KEYS; k++) {
    crowd_key(name, sizeof(name), k);
    if (!strcmp(key + sizeof(BASE), name))
      return 1;
  }
  return 0;
}

static int crowd_subkeys(void *impl, const char *key, registry_key_fn fn, void *ctx)
{
  char name[400];
  size_t k;
  int rc = 0;
  (void)impl;
  assert_string_equal(key, BASE);
  memset(name, 'b', sizeof(name) - 1);
  name[0] = '{';
  name[299] = '}';
  name[300] = '\0';
  rc = fn(ctx, name);
  for (k = 0; k < CROWD_KEYS && !rc; k++) {
    crowd_key(name, sizeof(name), k);
    rc = fn(ctx, name);
  }
  return rc;
}

static int crowd_values(void *impl, const char *key, registry_value_fn fn, void *ctx)
{
  struct crowd *c = impl;
  char name[128];
  size_t v;
  int rc = 0;
  if (!crowd_listed(key)) {
    c->strangers++;
    return ETWCAP_E_NOENT;
  }
  for (v = 0; v <= CROWD_VALUES && !rc; v++) {
    if (v < CROWD_VALUES)
      snprintf(name, sizeof(name), "ControllerData_Session_%lu", (unsigned long)v);
    else
      crowd_long_value(name, sizeof(name));
    rc = fn(ctx, name, data_etwcap, sizeof(data_etwcap));
  }
  return rc;
}

static int crowd_delete_value(void *impl, const char *key, const char *value)
{
  struct crowd *c = impl;
  char longest[128];
  const char *digits = value + strlen("ControllerData_Session_");
  crowd_long_value(longest, sizeof(longest));
  if (crowd_listed(key) && (!strcmp(value, longest) ||
                            (strlen(digits) <= 2 && strtoul(digits, NULL, 10) < CROWD_VALUES)))
    c->deleted++;
  else
    c->strangers++;
  return 0;
}

static int crowd_delete_key(void *impl, const char *key)
{
  struct crowd *c = impl;
  if (crowd_listed(key))
    c->emptied++;
  else
    c->strangers++;
  return 0;
}

static void remove_takes_every_value_and_key_whole(void **state)
{
  static const struct registry_ops ops = { NULL, crowd_subkeys, crowd_values, crowd_delete_value,
                                           crowd_delete_key, NULL, NULL };
  struct crowd c;
  struct registry r;
  size_t removed = 0;
  (void)state;
  memset(&c, 0, sizeof(c));
  r.ops = &ops;
  r.impl = &c;
  assert_int_equal(eventsource_registry_remove(&r, ETWCAP, 1, 0, &removed), 0);
  assert_int_equal(c.strangers, 0);
  assert_int_equal(removed, CROWD_KEYS * (CROWD_VALUES + 1));
  assert_int_equal(c.deleted, CROWD_KEYS * (CROWD_VALUES + 1));
  assert_int_equal(c.emptied, CROWD_KEYS);
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
    cmocka_unit_test(remove_takes_every_value_and_key_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
