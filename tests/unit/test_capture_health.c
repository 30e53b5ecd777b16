/* The capture's self-check (capture_health.h): each session kind judged by
 * what its queries show, on a virtual clock, first on its own, then driven
 * by collection_wait against the fake controller (whose query answers the
 * tests script), and the manifest's `health` section read back with a JSON
 * parser.  Runs natively and under Wine. */
#include "tests/fakes/test_support.h"

#include "etw/event/keywords.h"
#include "etw/plan/plan.h"
#include "src/base/alloc.h"
#include "src/base/json_tree.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/capture/capture_health.h"
#include "src/capture/collection.h"
#include "src/finish/capture_manifest.h"
#include "tests/fakes/fake_controller.h"
#include "tests/fakes/log_capture.h"

#include <stdio.h>
#include <string.h>

/* Every line logged, for checking what a user would see. */
static struct log_capture logged;

static int setup(void **state)
{
  (void)state;
  memset(&logged, 0, sizeof(logged));
  log_add_sink(log_capture_sink, &logged, LOG_DEBUG);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  log_remove_sink(log_capture_sink, &logged);
  return 0;
}

static void add(struct capture_health *h, const char *name, enum capture_health_kind kind,
                int busy, uint32_t flush_sec)
{
  struct capture_health_spec spec;
  memset(&spec, 0, sizeof(spec));
  spec.name = name;
  spec.kind = kind;
  spec.busy = busy;
  spec.flush_timer_sec = flush_sec;
  assert_int_equal(capture_health_add(h, &spec), 0);
}

static void answer(struct capture_health *h, const char *name, uint64_t now, uint32_t written,
                   uint32_t events_lost, uint32_t buffers_lost)
{
  struct controller_status st;
  memset(&st, 0, sizeof(st));
  st.buffers_written = written;
  st.events_lost = events_lost;
  st.log_buffers_lost = buffers_lost;
  capture_health_observe(h, name, now, 1000 + (int64_t)now * 10000, &st);
}

/* Queries once a second from `from` to `to` ms, as collection_wait does. */
static void run(struct capture_health *h, const char *name, uint64_t from, uint64_t to,
                uint32_t written)
{
  uint64_t t;
  for (t = from; t <= to; t += 1000) {
    answer(h, name, t, written, 0, 0);
    capture_health_tick(h, t);
  }
}

/* --- on its own --------------------------------------------------------- */

static void a_busy_kernel_session_without_buffers_is_flagged_after_its_deadline(void **state)
{
  struct capture_health h;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 5000);
  add(&h, "etwcapKernel", CAPTURE_HEALTH_KERNEL, 1, 0);
  run(&h, "etwcapKernel", 5000, 5000 + CAPTURE_HEALTH_BUSY_MS - 1000, 0);
  s = capture_health_find(&h, "etwcapKernel");
  assert_int_equal(s->warning_count, 0); /* not yet: the deadline has not passed */
  run(&h, "etwcapKernel", 5000 + CAPTURE_HEALTH_BUSY_MS, 5000 + 10000, 0);
  assert_int_equal(s->warning_count, 1); /* once, however long it stays silent */
  assert_non_null(strstr(s->warnings[0], "wrote no buffer"));
  assert_non_null(strstr(logged.text, "WARN 'etwcapKernel' wrote no buffer in 3 s"));
  assert_int_equal(s->first_event_filetime, 0);
}

static void a_busy_kernel_session_that_writes_is_healthy_and_dated(void **state)
{
  struct capture_health h;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "etwcapKernel", CAPTURE_HEALTH_KERNEL, 1, 0);
  run(&h, "etwcapKernel", 0, 1000, 0);
  run(&h, "etwcapKernel", 2000, 10000, 12);
  s = capture_health_find(&h, "etwcapKernel");
  assert_int_equal(s->warning_count, 0);
  assert_int_equal(s->note_count, 0);
  assert_int_equal(s->buffers_written, 12);
  assert_int_equal(s->first_event_filetime, 1000 + 2000 * 10000); /* the first query that saw it */
}

static void an_idle_user_session_is_a_note_at_the_end_of_its_first_flush(void **state)
{
  struct capture_health h;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "etwcap", CAPTURE_HEALTH_USER, 0, 5);
  run(&h, "etwcap", 0, 5000, 0);
  s = capture_health_find(&h, "etwcap");
  assert_int_equal(s->note_count, 0);
  run(&h, "etwcap", 6000, 60000, 0);
  assert_int_equal(s->warning_count, 0);
  assert_int_equal(s->note_count, 1);
  assert_non_null(strstr(logged.text, "INFO 'etwcap' wrote nothing in the first 6 s"));
  assert_null(strstr(logged.text, "WARN"));
}

static void a_quiet_kernel_session_without_thread_time_is_only_a_note(void **state)
{
  struct capture_health h;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "etwcapKernel", CAPTURE_HEALTH_KERNEL, 0, 0);
  run(&h, "etwcapKernel", 0, CAPTURE_HEALTH_NO_FLUSH_SEC * 1000u + 2000u, 0);
  s = capture_health_find(&h, "etwcapKernel");
  assert_int_equal(s->warning_count, 0);
  assert_int_equal(s->note_count, 1);
}

static void an_in_memory_session_is_not_judged_while_it_runs(void **state)
{
  struct capture_health h;
  struct capture_health_spec spec;
  (void)state;
  capture_health_init(&h, 0);
  memset(&spec, 0, sizeof(spec));
  spec.name = "etwcapKernel";
  spec.kind = CAPTURE_HEALTH_KERNEL;
  spec.busy = 1;
  spec.in_memory = 1;
  assert_int_equal(capture_health_add(&h, &spec), 0);
  run(&h, "etwcapKernel", 0, 120000, 0);
  assert_int_equal(capture_health_find(&h, "etwcapKernel")->warning_count, 0);
  assert_int_equal(capture_health_find(&h, "etwcapKernel")->note_count, 0);
}

static void losses_are_counted_and_warned_once_each(void **state)
{
  struct capture_health h;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "etwcap", CAPTURE_HEALTH_USER, 0, 1);
  answer(&h, "etwcap", 1000, 4, 7, 0);
  answer(&h, "etwcap", 2000, 9, 19, 2);
  answer(&h, "etwcap", 3000, 11, 25, 3);
  s = capture_health_find(&h, "etwcap");
  assert_int_equal(s->events_lost, 25);
  assert_int_equal(s->buffers_lost, 3);
  assert_int_equal(s->warning_count, 2);
  assert_non_null(strstr(logged.text, "'etwcap' is losing events (7 so far)"));
  assert_non_null(strstr(logged.text, "'etwcap' has lost 2 buffers so far"));
  assert_int_equal(capture_health_warnings(&h), 2);
}

static void a_kernel_mask_without_asked_groups_is_flagged_at_once(void **state)
{
  struct capture_health h;
  struct capture_health_spec spec;
  const struct capture_health_session *s;
  (void)state;
  capture_health_init(&h, 0);
  memset(&spec, 0, sizeof(spec));
  spec.name = "etwcapKernel";
  spec.kind = CAPTURE_HEALTH_KERNEL;
  /* PERFINFO_GROUPMASK: Process|Thread|ImageLoad (0x1|0x2|0x4) in Masks[0],
   * Profile 0x2, CSwitch 0x4 and Dispatcher 0x200 in Masks[1] (krabsetw
   * krabs/perfinfo_groupmask.hpp, PERF_PROFILE, PERF_CONTEXT_SWITCH,
   * PERF_DISPATCHER). */
  spec.mask.words = 8;
  spec.mask.asked[0] = 0x7;
  spec.mask.asked[1] = 0x2 | 0x4 | 0x200;
  spec.mask.applied[0] = 0x7;
  spec.mask.applied[1] = 0x2;
  spec.mask.applied_known = 1;
  assert_int_equal(capture_health_add(&h, &spec), 0);
  s = capture_health_find(&h, "etwcapKernel");
  assert_int_equal(s->warning_count, 1);
  assert_non_null(strstr(s->warnings[0], "word 1: 0x00000204"));
}

static void a_kernel_mask_applied_as_asked_or_not_read_back_is_no_warning(void **state)
{
  struct capture_health h;
  struct capture_health_spec spec;
  (void)state;
  capture_health_init(&h, 0);
  memset(&spec, 0, sizeof(spec));
  spec.name = "applied";
  spec.kind = CAPTURE_HEALTH_KERNEL;
  spec.mask.words = 1;
  spec.mask.asked[0] = (uint32_t)KW_KERNEL_THREADTIME;
  spec.mask.applied[0] = (uint32_t)KW_KERNEL_THREADTIME;
  spec.mask.applied_known = 1;
  assert_int_equal(capture_health_add(&h, &spec), 0);
  spec.name = "unknown";
  spec.mask.applied[0] = 0;
  spec.mask.applied_known = 0; /* Windows offered no read-back */
  assert_int_equal(capture_health_add(&h, &spec), 0);
  assert_int_equal(capture_health_warnings(&h), 0);
}

static void a_trigger_session_is_judged_by_what_reaches_its_reader(void **state)
{
  struct capture_health h;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "reaches-nobody", CAPTURE_HEALTH_TRIGGER, 0, 1);
  add(&h, "quiet", CAPTURE_HEALTH_TRIGGER, 0, 1);
  add(&h, "delivers", CAPTURE_HEALTH_TRIGGER, 0, 1);
  answer(&h, "reaches-nobody", 1000, 2, 0, 0);
  answer(&h, "quiet", 1000, 0, 0, 0);
  answer(&h, "delivers", 1000, 0, 0, 0); /* its events came before a buffer was counted */
  capture_health_delivered(&h, "delivers", 99, 40);
  capture_health_tick(&h, 2000);
  assert_int_equal(capture_health_find(&h, "reaches-nobody")->warning_count, 1);
  assert_int_equal(capture_health_find(&h, "quiet")->warning_count, 0);
  assert_int_equal(capture_health_find(&h, "quiet")->note_count, 1);
  assert_int_equal(capture_health_find(&h, "delivers")->warning_count, 0);
  assert_int_equal(capture_health_find(&h, "delivers")->note_count, 0);
  assert_int_equal(capture_health_find(&h, "delivers")->first_event_filetime, 99);
}

static void a_session_whose_queries_fail_is_flagged(void **state)
{
  struct capture_health h;
  (void)state;
  capture_health_init(&h, 0);
  add(&h, "etwcapKernel", CAPTURE_HEALTH_KERNEL, 1, 0);
  capture_health_tick(&h, 10000); /* no answer ever came */
  assert_int_equal(capture_health_warnings(&h), 1);
  assert_non_null(strstr(logged.text, "answered no query"));
}

/* --- driven by collection_wait against the fake controller -------------- */

struct world {
  struct fake_controller fake;
  struct fake_clock clock;
  struct collection_env env;
  struct collection c;
  struct plan plan;
  char data[512];
};

/* A /ThreadTime capture on `os` by `route` (a /KernelRoute value, NULL:
 * the default), Windows dropping `drop` from the mask it applies (the fake
 * controller's model of a group Windows does not take). */
static void start_thread_time_on(struct world *w, struct os_version os, const char *route,
                                 const uint32_t drop[PLAN_GROUP_MASK_WORDS])
{
  struct plan_options o;
  char path[600];
  static const char *const files[] = { "", ".zip" };
  size_t i;
  memset(w, 0, sizeof(*w));
  fake_controller_init(&w->fake);
  fake_env_init(&w->env, &w->fake.ctl, &w->clock);
  test_tmp_path("health.etl", w->data, sizeof(w->data));
  for (i = 0; i < 2; i++) {
    snprintf(path, sizeof(path), "%s%s", w->data, files[i]);
    os_remove(path);
  }
  memcpy(w->fake.drop_groups, drop, sizeof(w->fake.drop_groups));
  plan_options_init(&o);
  o.os = os;
  o.os_assumed = 1;
  o.data_file = w->data;
  o.thread_time = 1;
  o.kernel_route = route;
  assert_int_equal(plan_build(&o, &w->plan), 0);
  collection_init(&w->c, &w->env);
  assert_int_equal(collection_start(&w->c, &w->plan), 0);
}

static void start_thread_time(struct world *w)
{
  static const uint32_t none[PLAN_GROUP_MASK_WORDS];
  struct os_version server2022 = { 10, 0, 20348 };
  start_thread_time_on(w, server2022, NULL, none);
}

static size_t session_index(const struct world *w, enum plan_role role)
{
  size_t i;
  for (i = 0; i < w->c.count; i++)
    if (w->c.sessions[i].role == role)
      return i;
  fail_msg("no session of role %d", (int)role);
  return 0;
}

static void wait_seconds(struct world *w, int64_t sec)
{
  struct collection_wait_options o;
  struct collection_wait_result r;
  uint64_t ms = (uint64_t)sec * 1000u;
  memset(&o, 0, sizeof(o));
  o.should_stop = test_stop_after_ms;
  o.should_stop_ctx = &ms;
  collection_wait(&w->c, &o, &r);
  assert_int_equal(r.end, COLLECTION_END_TRIGGER);
}

static void finish(struct world *w)
{
  char path[600];
  assert_int_equal(collection_stop(&w->c), 0);
  plan_release(&w->plan);
  os_remove(w->data);
  snprintf(path, sizeof(path), "%.500s", w->data);
  path[strlen(path) - 4] = '\0';
  strcat(path, ".kernel.etl");
  os_remove(path);
}

static void the_wait_flags_a_thread_time_kernel_session_that_writes_nothing(void **state)
{
  static struct world w;
  size_t k;
  (void)state;
  start_thread_time(&w);
  k = session_index(&w, PLAN_ROLE_KERNEL);
  w.fake.sessions[0].buffers_written = 0; /* the kernel session is started first */
  assert_string_equal(w.fake.sessions[0].name, w.c.sessions[k].name);
  wait_seconds(&w, 10);
  assert_int_equal(capture_health_find(&w.c.health, w.c.sessions[k].name)->warning_count, 1);
  assert_non_null(strstr(logged.text, "wrote no buffer in 3 s"));
  /* The user session wrote its 3 buffers: healthy. */
  assert_int_equal(capture_health_warnings(&w.c.health), 1);
  finish(&w);
}

static void the_wait_counts_losses_from_the_query(void **state)
{
  static struct world w;
  const struct capture_health_session *s;
  size_t u;
  (void)state;
  start_thread_time(&w);
  u = session_index(&w, PLAN_ROLE_USER);
  w.fake.sessions[1].events_lost = 5;
  w.fake.sessions[1].realtime_buffers_lost = 1;
  assert_string_equal(w.fake.sessions[1].name, w.c.sessions[u].name);
  wait_seconds(&w, 4);
  s = capture_health_find(&w.c.health, w.c.sessions[u].name);
  assert_int_equal(s->events_lost, 5);
  assert_int_equal(s->buffers_lost, 1);
  assert_int_equal(s->warning_count, 2);
  assert_int_equal(s->buffers_written, 3);
  assert_true(s->first_event_filetime != 0);
  finish(&w);
}

/* Windows 10 takes the kernel flags as a PERFINFO_GROUPMASK (group-mask
 * route); when the mask it applies lacks context switches (Masks[1] bit 0x4,
 * krabsetw perfinfo_groupmask.hpp), the collection's read-back reaches the
 * health check as asked vs applied, and that is a warning at once. */
static void the_read_back_mask_reaches_the_health_check(void **state)
{
  static struct world w;
  static const uint32_t no_cswitch[PLAN_GROUP_MASK_WORDS] = { 0, 0x4 };
  struct os_version win10 = { 10, 0, 19045 };
  const struct capture_health_session *s;
  size_t k;
  (void)state;
  start_thread_time_on(&w, win10, NULL, no_cswitch);
  wait_seconds(&w, 1);
  k = session_index(&w, PLAN_ROLE_KERNEL);
  s = capture_health_find(&w.c.health, w.c.sessions[k].name);
  assert_non_null(s);
  assert_int_equal(s->mask.words, PLAN_GROUP_MASK_WORDS);
  assert_true(s->mask.applied_known);
  assert_int_equal(s->mask.asked[1] & 0x4, 0x4);
  assert_int_equal(s->mask.applied[1] & 0x4, 0);
  assert_int_equal(s->warning_count, 1);
  assert_non_null(strstr(s->warnings[0], "word 1: 0x00000004"));
  finish(&w);
}

/* A group Windows does not give back after a segment's file switch (the
 * fake drops context switches, Masks[1] 0x4 in krabsetw
 * perfinfo_groupmask.hpp, from then on): the put-back reads the mask back
 * and the health check warns at once, naming the group and the new file
 * (docs/win32-contract.md §4.5). */
static void a_group_lost_at_a_switch_is_a_health_warning(void **state)
{
  static const uint32_t none[PLAN_GROUP_MASK_WORDS];
  static struct world w;
  struct os_version server2022 = { 10, 0, 20348 };
  struct collection_session *cs;
  const struct capture_health_session *s;
  char next[600];
  (void)state;
  start_thread_time_on(&w, server2022, NULL, none);
  wait_seconds(&w, 1);
  cs = &w.c.sessions[session_index(&w, PLAN_ROLE_KERNEL)];
  s = capture_health_find(&w.c.health, cs->name);
  assert_int_equal(s->warning_count, 0);
  w.fake.drop_groups[1] = 0x4;
  snprintf(next, sizeof(next), "%.500s.next.etl", w.data);
  assert_int_equal(w.fake.ctl.ops->switch_file(&w.fake.ctl, cs->plan, cs->name, next), 0);
  snprintf(cs->file, sizeof(cs->file), "%s", next);
  assert_int_equal(collection_kernel_put_back(&w.c, cs), 0);
  assert_int_equal(cs->kernel_mask.lost[1], 0x4);
  assert_int_equal(s->warning_count, 1);
  assert_non_null(strstr(s->warnings[0], "lost PERF_CONTEXT_SWITCH at its switch to"));
  assert_non_null(strstr(s->warnings[0], ".next.etl"));
  assert_int_equal(s->mask.applied[1] & 0x4, 0);
  finish(&w);
  os_remove(next);
}

/* On the System Providers route (/KernelRoute:systemProviders, EnableFlags 0
 * at start) no source says the group-mask query shows the keyword enables;
 * the query answers the EnableFlags setting (TRACE_QUERY_INFO_CLASS page),
 * here empty.  That read-back is informational: no "missing groups" warning,
 * applied unknown (docs/win32-contract.md §3.3 rule 6). */
static void a_system_providers_read_back_is_no_warning(void **state)
{
  static const uint32_t none[PLAN_GROUP_MASK_WORDS];
  static struct world w;
  struct os_version server2022 = { 10, 0, 20348 };
  const struct capture_health_session *s;
  size_t k;
  (void)state;
  start_thread_time_on(&w, server2022, "systemProviders", none);
  wait_seconds(&w, 1);
  k = session_index(&w, PLAN_ROLE_KERNEL);
  assert_int_equal(w.c.sessions[k].kernel_mask.readback, COLLECTION_MASK_INFORMATIONAL);
  assert_int_equal(w.c.dropped & COLLECTION_DROPPED_KERNEL_GROUPS, 0);
  s = capture_health_find(&w.c.health, w.c.sessions[k].name);
  assert_non_null(s);
  assert_false(s->mask.applied_known);
  assert_int_equal(s->warning_count, 0);
  assert_non_null(strstr(logged.text, "for information only"));
  finish(&w);
}

/* --- the manifest's health section --------------------------------------- */

static const struct json_node *item(const struct json_node *arr, size_t i)
{
  assert_non_null(arr);
  assert_int_equal(arr->type, JSON_ARRAY);
  assert_true(i < arr->count);
  return &arr->items[i];
}

static void the_manifest_health_section_parses_with_each_session(void **state)
{
  static struct world w;
  struct capture_manifest m;
  struct json_node *doc = NULL;
  const struct json_node *health, *kernel, *user, *asked;
  char *json = NULL, why[200];
  size_t k, u;
  (void)state;
  start_thread_time(&w);
  k = session_index(&w, PLAN_ROLE_KERNEL);
  u = session_index(&w, PLAN_ROLE_USER);
  w.fake.sessions[0].buffers_written = 0;
  w.fake.sessions[1].events_lost = 2;
  wait_seconds(&w, 5);
  memset(&m, 0, sizeof(m));
  m.command_line = "etwcap collect";
  m.health = &w.c.health;
  assert_int_equal(capture_manifest_json(&m, &json), 0);
  assert_int_equal(json_parse(json, strlen(json), &doc, why, sizeof(why)), 0);
  health = json_get(doc, "health");
  assert_non_null(health);
  assert_int_equal(health->count, w.c.count);
  kernel = item(health, k);
  user = item(health, u);
  assert_string_equal(json_string(kernel, "session", ""), w.c.sessions[k].name);
  assert_string_equal(json_string(kernel, "role", ""), "kernel");
  asked = json_get(kernel, "asked");
  /* /ThreadTime's groups as a PERFINFO_GROUPMASK: Process, Thread, ImageLoad
   * and the rest in Masks[0], Profile|CSwitch|Dispatcher (0x2|0x4|0x200) in
   * Masks[1] (krabsetw perfinfo_groupmask.hpp; docs/plan-json.md). */
  assert_int_equal(asked->count, 8);
  assert_string_equal(item(asked, 0)->text, "0x0001270F");
  assert_string_equal(item(asked, 1)->text, "0x00000206");
  /* The group-mask route reads the mask back: all of it applied. */
  assert_string_equal(item(json_get(kernel, "applied"), 1)->text, "0x00000206");
  assert_int_equal(json_int(kernel, "buffersWritten", -1), 0);
  assert_int_equal(json_get(kernel, "firstEventUtc")->type, JSON_NULL);
  assert_int_equal(json_get(kernel, "warnings")->count, 1);
  assert_string_equal(json_string(user, "role", ""), "user");
  assert_int_equal(json_get(user, "asked")->type, JSON_NULL);
  assert_int_equal(json_int(user, "buffersWritten", -1), 3);
  assert_int_equal(json_int(user, "eventsLost", -1), 2);
  assert_int_equal(json_get(user, "firstEventUtc")->type, JSON_STRING);
  assert_int_equal(json_get(user, "warnings")->count, 1);
  json_free(doc);
  etwcap_free(json);
  finish(&w);
}

static void a_manifest_without_a_live_capture_has_null_health(void **state)
{
  struct capture_manifest m;
  struct json_node *doc = NULL;
  char *json = NULL, why[200];
  (void)state;
  memset(&m, 0, sizeof(m));
  assert_int_equal(capture_manifest_json(&m, &json), 0);
  assert_int_equal(json_parse(json, strlen(json), &doc, why, sizeof(why)), 0);
  assert_int_equal(json_get(doc, "health")->type, JSON_NULL);
  json_free(doc);
  etwcap_free(json);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T(a_busy_kernel_session_without_buffers_is_flagged_after_its_deadline),
    T(a_busy_kernel_session_that_writes_is_healthy_and_dated),
    T(an_idle_user_session_is_a_note_at_the_end_of_its_first_flush),
    T(a_quiet_kernel_session_without_thread_time_is_only_a_note),
    T(an_in_memory_session_is_not_judged_while_it_runs),
    T(losses_are_counted_and_warned_once_each),
    T(a_kernel_mask_without_asked_groups_is_flagged_at_once),
    T(a_kernel_mask_applied_as_asked_or_not_read_back_is_no_warning),
    T(a_trigger_session_is_judged_by_what_reaches_its_reader),
    T(a_session_whose_queries_fail_is_flagged),
    T(the_wait_flags_a_thread_time_kernel_session_that_writes_nothing),
    T(the_wait_counts_losses_from_the_query),
    T(the_read_back_mask_reaches_the_health_check),
    T(a_system_providers_read_back_is_no_warning),
    T(a_group_lost_at_a_switch_is_a_health_warning),
    T(the_manifest_health_section_parses_with_each_session),
    T(a_manifest_without_a_live_capture_has_null_health),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
