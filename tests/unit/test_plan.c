/* Golden plans for the command lines users type (docs/perfview-collection.md
 * §10).  Every expected number is typed from docs/perfview-collection.md (§3
 * defaults, §4 keywords, GUIDs, property rules; a bare § below is a section
 * of that page) or from the EventSource GUIDs dotnet/runtime's own tests
 * assert, never captured from etwcap's output.  /TargetOS pins the Windows
 * version so the same plan comes out natively and under Wine. */
#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "etw/plan/plan_describe.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/cli/cli.h"
#include "src/cli/plan_cli.h"
#include "triggers/trigger_engine.h"

#include <stdio.h>
#include <string.h>

/* Parses "etwcap plan ARGS..." and builds the plan.  Returns plan_build's
 * code (or the parser's); plan_release is always needed. */
static int build(struct plan *plan, const char *first, ...)
{
  char *argv[64];
  int argc = 0, rc;
  const char *a;
  va_list ap;
  struct cli cli;
  struct plan_options opt;
  struct trigger_engine *e = NULL;
  char err[512];
  argv[argc++] = (char *)"etwcap";
  argv[argc++] = (char *)"plan";
  va_start(ap, first);
  for (a = first; a; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  memset(plan, 0, sizeof(*plan));
  rc = cli_parse(&cli, argc, argv);
  if (rc) {
    snprintf(plan->error, sizeof(plan->error), "%s", cli.error ? cli.error : "parse error");
    cli_release(&cli);
    return rc;
  }
  /* The triggers' needs come from the engine, as collect and plan build it. */
  rc = trigger_engine_create(&e, &cli.q.triggers, err, sizeof(err));
  if (!rc)
    rc = plan_options_from_cli(&cli, e, NULL, &opt, err, sizeof(err));
  trigger_engine_free(e);
  if (rc) {
    snprintf(plan->error, sizeof(plan->error), "%s", err);
    cli_release(&cli);
    return rc;
  }
  rc = plan_build(&opt, plan);
  cli_release(&cli);
  return rc;
}

#define BUILD_OK(plan, ...)                                                                \
  do {                                                                                     \
    int rc_ = build(plan, __VA_ARGS__, NULL);                                              \
    if (rc_)                                                                               \
      fail_msg("plan failed (%d): %s", rc_, (plan)->error);                                \
  } while (0)

static const struct plan_session *session(const struct plan *plan, enum plan_role role)
{
  size_t i;
  for (i = 0; i < plan->session_count; i++)
    if (plan->sessions[i].role == role)
      return &plan->sessions[i];
  fail_msg("no %s session", plan_role_name(role));
  return NULL;
}

static const struct plan_provider *find(const struct plan_session *s, const char *guid,
                                        unsigned pass)
{
  struct etw_guid g;
  size_t i;
  assert_int_equal(guid_parse(guid, &g), 0);
  for (i = 0; i < s->provider_count; i++)
    if (guid_equal(&s->providers[i].guid, &g) && s->providers[i].pass == pass)
      return &s->providers[i];
  return NULL;
}

static const struct plan_provider *must_find(const struct plan_session *s, const char *guid)
{
  const struct plan_provider *p = find(s, guid, 0);
  if (!p)
    fail_msg("session %s has no provider %s", s->name, guid);
  return p;
}

static int has_note(const struct plan *plan, const char *text)
{
  size_t i;
  for (i = 0; i < plan->note_count; i++)
    if (strstr(plan->notes[i], text))
      return 1;
  return 0;
}

#define CLR "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
#define CLR_NATIVE "47c3ba0c-77f1-4eb0-8d4d-aef447f16a85"
#define CLR_RUNDOWN "a669021c-c450-4609-a035-5af59af4df18"
#define CLR_PRIVATE "763fd754-7086-4dfe-95eb-c01a46faf4ca"
#define PERFVIEW "a8a71ac1-040f-54a2-07ca-00a89b5ab761"
#define DIAGSOURCE "adb401e1-5296-51f8-c125-5fda75826144"
#define SERVER "/TargetOS:10.0.20348"

/* PerfView /ThreadTime collect /BufferSizeMB:1024 /CircularMB:2048 */
static void runbook_thread_time(void **state)
{
  struct plan plan;
  const struct plan_session *k, *u, *r;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "/ThreadTime", "collect", "/BufferSizeMB:1024", "/CircularMB:2048");
  assert_string_equal(plan.command, "collect");
  assert_int_equal(plan.session_count, 3);
  assert_string_equal(plan.data_file, "etwcapData.etl");
  assert_string_equal(plan.zip_file, "etwcapData.etl.zip");
  assert_true(plan.merge);
  assert_true(plan.zip);

  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_string_equal(k->name, "etwcapKernel");
  assert_string_equal(k->file, "etwcapData.kernel.etl");
  assert_int_equal(k->buffer_size_kb, 64);
  assert_int_equal(k->minimum_buffers, 1024 * 1024 / 64);
  assert_int_equal(k->maximum_buffers, (1024 * 1024 / 64) * 5 / 4 + 10);
  /* INDEPENDENT_SESSION | SYSTEM_LOGGER | FILE_MODE_CIRCULAR, MaximumFileSize = CircularMB */
  assert_int_equal(k->log_file_mode, 0x08000000 | 0x02000000 | 0x2);
  assert_int_equal(k->maximum_file_size_mb, 2048);
  assert_int_equal(k->wnode_flags, 0x20000);
  assert_int_equal(k->clock_type, 1);
  assert_int_equal(k->flush_timer_sec, 60);
  assert_int_equal(k->kernel_keywords, 0x01012F1F);
  assert_int_equal(k->enable_flags, 0x01012F1F);
  assert_int_equal(k->stack_keywords, 0x01012F1F);
  assert_true(k->stack_caching);
  assert_int_equal(k->profile_interval_100ns, 10000);
  assert_true(k->needs_profile_privilege);
  assert_int_equal(plan.enable_parameters_version, 2);
  {
    /* Stacks on samples (PerfInfo 0x2E), context switches (Thread 0x24),
     * ready thread (Thread 0x32), hard faults (PageFault 0x20). */
    static const struct {
      const char *task;
      unsigned type;
    } want[] = { { "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc", 0x2E },
                 { "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 0x24 },
                 { "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 0x32 },
                 { "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c", 0x01 },
                 { "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c", 0x0A },
                 { "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c", 0x0B },
                 { "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c", 0x0C },
                 { "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c", 0x0D },
                 { "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c", 0x0F },
                 { "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c", 0x20 } };
    size_t i, j;
    assert_int_equal(k->stack_id_count, sizeof(want) / sizeof(want[0]));
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
      struct etw_guid g;
      guid_parse(want[i].task, &g);
      for (j = 0; j < k->stack_id_count; j++)
        if (guid_equal(&k->stack_ids[j].task, &g) && k->stack_ids[j].type == want[i].type)
          break;
      if (j == k->stack_id_count)
        fail_msg("no stack id %s/0x%x", want[i].task, want[i].type);
    }
  }

  u = session(&plan, PLAN_ROLE_USER);
  assert_string_equal(u->name, "etwcap");
  assert_string_equal(u->file, "etwcapData.etl");
  assert_int_equal(u->minimum_buffers, 16384);
  assert_int_equal(u->log_file_mode, 0x08000000 | 0x2);
  assert_int_equal(u->maximum_file_size_mb, 2048 + 300);
  p = must_find(u, PERFVIEW);
  assert_int_equal(p->level, 5);
  assert_int_equal(p->match_any, ~0ull);
  p = must_find(u, CLR);
  assert_int_equal(p->level, 5);
  assert_int_equal(p->match_any, 0x14C14FCC9Dull); /* Default without NGen */
  assert_int_equal(p->enable_property, 0);
  p = must_find(u, CLR_NATIVE);
  assert_int_equal(p->match_any, 0x14C14FCC9Dull);
  assert_int_equal(p->enable_property, 0x4); /* GC at Verbose: stacks */
  p = must_find(u, CLR_PRIVATE);
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0x4002000B);
  p = must_find(u, "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716"); /* Kernel-Process */
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0x10);
  assert_int_equal(p->enable_property, 0x4);
  p = must_find(u, "de4649c9-15e8-4fea-9d85-1cdda520c334"); /* IIS: Critical, 0 */
  assert_int_equal(p->level, 1);
  assert_int_equal(p->match_any, 0);
  p = must_find(u, "aff081fe-0247-4275-9c4e-021f3dc1da35"); /* ASP.NET */
  assert_int_equal(p->match_any, 0xFFFFFFFFFFFFFFFDull);
  assert_int_equal(p->level, 5);
  p = must_find(u, "8e9f5090-2d75-4d03-8a81-e5afbf85daf1"); /* FrameworkEventSource */
  assert_int_equal(p->match_any, 0x16);
  assert_int_equal(p->enable_property, 0x4);
  /* ThreadTime extras. */
  p = must_find(u, "2f07e2ee-15db-40f1-90ef-9d7ba282188a"); /* TCPIP */
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, ~0ull);
  assert_int_equal(p->enable_property, 0x4);
  p = must_find(u, "dd5ef90a-6398-47a4-ad34-4dcecdef795f"); /* HttpService */
  assert_int_equal(p->level, 5);
  p = must_find(u, "6ad52b32-d609-4be9-ae07-ce8dae937e39"); /* RPC: Info, 0 */
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0);
  p = must_find(u, "43d1a55c-76d6-4f7e-995c-64c711e5cafe"); /* WinINet: 0x2, then all */
  assert_int_equal(p->match_any, ~0ull);
  must_find(u, "0a002690-3839-4e3a-b3b6-96d8df868d99"); /* Antimalware-Engine */
  /* No System.Net EventSources by default (§4.7). */
  assert_null(find(u, "d30b5633-7ef1-5485-b4e0-94979b102068", 0));

  r = session(&plan, PLAN_ROLE_RUNDOWN);
  assert_string_equal(r->name, "etwcapRundown");
  assert_string_equal(r->file, "etwcapData.clrRundown.etl");
  assert_int_equal(r->when, PLAN_AT_STOP);
  assert_int_equal(r->log_file_mode, 0x08000000 | 0x1);
  assert_int_equal(r->minimum_buffers, 16384); /* max(BufferSizeMB, 256) */
  assert_int_equal(r->rundown_timeout_sec, 120);
  p = find(r, CLR_RUNDOWN, 0);
  assert_non_null(p);
  assert_int_equal(p->match_any, 0x108);
  assert_int_equal(p->level, 5);
  p = find(r, CLR_RUNDOWN, 1);
  assert_non_null(p);
  assert_int_equal(p->match_any, 0x1080060111ull);
  assert_int_equal(p->delay_ms, 500);
  assert_true(has_note(&plan, "+ 300"));
  plan_release(&plan);
}

static void check_eventsources(const char *providers, const char *const *guids, size_t n)
{
  struct plan plan;
  const struct plan_session *u, *r;
  size_t i;
  BUILD_OK(&plan, SERVER, "/ThreadTime", "collect", "/BufferSizeMB:1024", "/CircularMB:2048",
           providers);
  u = session(&plan, PLAN_ROLE_USER);
  r = session(&plan, PLAN_ROLE_RUNDOWN);
  for (i = 0; i < n; i++) {
    const struct plan_provider *p = must_find(u, guids[i]);
    assert_int_equal(p->level, 5);
    assert_int_equal(p->match_any, ~0ull);
    assert_string_equal(p->origin, "/Providers");
    /* Manifest rundown at stop: Critical, keyword 0x80000000000. */
    p = must_find(r, guids[i]);
    assert_int_equal(p->level, 1);
    assert_int_equal(p->match_any, 0x80000000000ull);
  }
  /* The defaults are all still there. */
  assert_non_null(find(u, CLR, 0));
  assert_non_null(find(u, "2f07e2ee-15db-40f1-90ef-9d7ba282188a", 0));
  plan_release(&plan);
}

static void runbook_aspnetcore(void **state)
{
  static const char *const guids[] = { "9ded64a4-414c-5251-dcf7-1e4e20c15e70",
                                       "bdeb4676-a36e-5442-db99-4764e2326c7d" };
  (void)state;
  check_eventsources("/Providers:*Microsoft.AspNetCore.Hosting,*Microsoft-AspNetCore-Server-Kestrel",
                     guids, 2);
}

static void runbook_system_net(void **state)
{
  static const char *const guids[] = {
    "d30b5633-7ef1-5485-b4e0-94979b102068", "4b326142-bfb5-5ed3-8585-7714181d14b0",
    "7beee6b1-e3fa-5ddb-34be-1404ad0e2520", "d5b2e7d4-b6ec-50ae-7cde-af89427ad21f"
  };
  (void)state;
  check_eventsources("/Providers:*System.Net.Http,*System.Net.NameResolution,"
                     "*System.Net.Security,*System.Net.Sockets",
                     guids, 4);
}

/* PerfView collect /GCCollectOnly */
static void runbook_gc_collect_only(void **state)
{
  struct plan plan;
  const struct plan_session *k, *u, *r;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/GCCollectOnly");
  assert_string_equal(plan.data_file, "etwcapGCCollectOnly.etl");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->kernel_keywords, 0x1);
  assert_int_equal(k->enable_flags, 0x3); /* Thread added by EnableKernelProvider */
  assert_int_equal(k->stack_keywords, 0);
  assert_int_equal(k->stack_id_count, 0);
  assert_int_equal(k->profile_interval_100ns, 0);
  assert_int_equal(k->maximum_file_size_mb, 500); /* collect's CircularMB */
  u = session(&plan, PLAN_ROLE_USER);
  assert_int_equal(u->maximum_file_size_mb, 800);
  p = must_find(u, CLR);
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0x1);
  p = must_find(u, CLR_PRIVATE);
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0x1);
  assert_null(find(u, "143a31db-0372-40b6-b8f1-b4b16adb5f54", 0)); /* no MeasurementBlock */
  assert_null(find(u, "319dc449-ada5-50f7-428e-957db6791668", 0)); /* no DotNet */
  r = session(&plan, PLAN_ROLE_RUNDOWN);
  p = find(r, CLR_RUNDOWN, 0);
  assert_non_null(p);
  assert_int_equal(p->match_any, 0x1000000101ull); /* minimal: NoRundown is implied */
  assert_null(find(r, CLR_RUNDOWN, 1));
  plan_release(&plan);
}

/* PerfView collect /ClrEvents:Default-Profile */
static void runbook_default_minus_profile(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/ClrEvents:Default-Profile");
  assert_int_equal(must_find(session(&plan, PLAN_ROLE_USER), CLR)->match_any, 0x14C14FCC9Dull);
  assert_true(has_note(&plan, "Profile"));
  plan_release(&plan);
}

/* The assembly-loading line's provider spec (§10), over the default CLR
 * enable. */
static void runbook_assembly_loading_spec(void **state)
{
  struct plan plan;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/Providers:Microsoft-Windows-DotNETRuntime:0x4:4");
  p = must_find(session(&plan, PLAN_ROLE_USER), CLR);
  assert_int_equal(p->match_any, 0x14C14FCC9Dull); /* union: 0x4 is already in */
  assert_int_equal(p->level, 5);                   /* highest level */
  assert_true(has_note(&plan, "merges"));
  plan_release(&plan);
  /* Turning the default off first gives exactly the spec. */
  BUILD_OK(&plan, SERVER, "collect", "/Providers:Clr:0:0,Microsoft-Windows-DotNETRuntime:0x4:4");
  p = must_find(session(&plan, PLAN_ROLE_USER), CLR);
  assert_int_equal(p->match_any, 0x4);
  assert_int_equal(p->level, 4);
  plan_release(&plan);
}

static void level_zero_keywords_zero_turns_a_default_off(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/Providers:Microsoft-Windows-IIS:0:0");
  assert_null(find(session(&plan, PLAN_ROLE_USER), "de4649c9-15e8-4fea-9d85-1cdda520c334", 0));
  plan_release(&plan);
}

static void every_user_enable(const struct plan *plan, uint32_t property)
{
  size_t i, j;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    if (s->role != PLAN_ROLE_USER && s->role != PLAN_ROLE_RUNDOWN)
      continue;
    assert_true(s->provider_count > 0);
    for (j = 0; j < s->provider_count; j++)
      if ((s->providers[j].enable_property & property) != property)
        fail_msg("%s in %s lacks 0x%x", s->providers[j].name, s->name, (unsigned)property);
  }
}

/* PerfView /EnableEventsInContainers collect */
static void runbook_containers(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "/EnableEventsInContainers", "collect");
  every_user_enable(&plan, 0x400);
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/EnableEventsInContainers", "/EnableSourceContainerTracking",
           "collect");
  every_user_enable(&plan, 0x400 | 0x800);
  plan_release(&plan);
}

static void every_user_filter(const struct plan *plan, uint32_t type, const uint8_t *bytes,
                              size_t size)
{
  size_t i, j, f;
  for (i = 0; i < plan->session_count; i++) {
    const struct plan_session *s = &plan->sessions[i];
    if (s->role != PLAN_ROLE_USER && s->role != PLAN_ROLE_RUNDOWN)
      continue;
    for (j = 0; j < s->provider_count; j++) {
      const struct plan_provider *p = &s->providers[j];
      for (f = 0; f < p->filter_count && p->filters[f].type != type; f++) {
      }
      if (f == p->filter_count)
        fail_msg("%s in %s has no filter 0x%x", p->name, s->name, (unsigned)type);
      assert_int_equal(p->filters[f].size, size);
      assert_memory_equal(p->filters[f].data, bytes, size);
    }
  }
}

/* PerfView /FocusProcess:1234 */
static void runbook_focus_process(void **state)
{
  static const uint8_t pid[] = { 0xd2, 0x04, 0x00, 0x00 }; /* ULONG 1234 */
  static const uint8_t exe[] = { 'a', 0, 'p', 0, 'p', 0, '.', 0, 'e', 0, 'x', 0, 'e', 0, 0, 0 };
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/FocusProcess:1234");
  every_user_filter(&plan, 0x80000004, pid, sizeof(pid));
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->enable_flags, 0x0101270F);
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "collect", "/FocusProcess:app.exe");
  every_user_filter(&plan, 0x80000008, exe, sizeof(exe));
  plan_release(&plan);
  assert_int_equal(build(&plan, "/TargetOS:6.2", "/FocusProcess:1234", NULL),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(plan.error, "8.1"));
  plan_release(&plan);
}

/* TraceEvent's FindFreeSessionKeyword: the lowest of 44..47 not in any
 * enabling session's MatchAllKeyword; none when all four are. */
static void session_keyword_is_the_lowest_free_of_44_to_47(void **state)
{
  (void)state;
  assert_int_equal(plan_session_keyword_free(0), 44);
  assert_int_equal(plan_session_keyword_free(0xFFFFFFFFull), 44); /* other bits are not ours */
  assert_int_equal(plan_session_keyword_free(1ull << 44), 45);
  assert_int_equal(plan_session_keyword_free((1ull << 44) | (1ull << 46)), 45);
  assert_int_equal(plan_session_keyword_free(7ull << 44), 47);
  assert_int_equal(plan_session_keyword_free(0xFull << 44), -1);
}

/* The provider as enabled with another bit: MatchAllKeyword and the
 * EtwSessionKeyword of its data name that bit, the rest as planned. */
static void provider_with_session_keyword_names_the_bit(void **state)
{
  static const char head[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\0" "47\0"
                             "FilterAndPayloadSpecs\0HttpHandlerDiagnosticListener/";
  struct plan plan;
  struct plan_provider keyed;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect");
  p = must_find(session(&plan, PLAN_ROLE_USER), DIAGSOURCE);
  assert_int_equal(plan_provider_with_session_keyword(p, "etwcap", 47, &keyed), 0);
  assert_int_equal(keyed.match_all, 1ull << 47);
  assert_int_equal(keyed.match_any, p->match_any);
  assert_int_equal(keyed.filter_count, 1);
  assert_ptr_not_equal(keyed.filters[0].data, p->filters[0].data);
  assert_memory_equal(keyed.filters[0].data, head, sizeof(head) - 1);
  assert_int_equal(keyed.filters[0].size, p->filters[0].size);
  plan_provider_release_filters(&keyed);
  assert_int_equal(plan_provider_with_session_keyword(p, "etwcap", 48, &keyed), ETWCAP_E_RANGE);
  assert_int_equal(keyed.filter_count, 0);
  plan_release(&plan);
}

static void provider_data_wire_format(void **state)
{
  static const char head[] = "EtwSessionName\0etwcap\0EtwSessionKeyword\0" "44\0"
                             "FilterAndPayloadSpecs\0HttpHandlerDiagnosticListener/";
  struct plan plan;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect");
  p = must_find(session(&plan, PLAN_ROLE_USER), DIAGSOURCE);
  assert_int_equal(p->level, 4);
  assert_int_equal(p->match_any, 0xFFFFFFFFFFFFF7FFull);
  assert_int_equal(p->match_all, 1ull << 44);
  assert_int_equal(p->filter_count, 1);
  assert_int_equal(p->filters[0].type, 0);
  assert_memory_equal(p->filters[0].data, head, sizeof(head) - 1);
  assert_int_equal(p->filters[0].data[p->filters[0].size - 1], 0);
  plan_release(&plan);
}

static void event_id_filters_on_the_wire(void **state)
{
  /* EVENT_FILTER_EVENT_ID: FilterIn, Reserved, Count, Events[] (LE). */
  static const uint8_t ids[] = { 1, 0, 2, 0, 7, 0, 0x2c, 0x01 };
  static const uint8_t stacks[] = { 0, 0, 1, 0, 9, 0 };
  struct plan plan;
  const struct plan_session *u;
  const struct plan_provider *p = NULL;
  size_t i;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect",
           "/Providers:*Acme-App:1:4:@EventIDsToEnable=7 300;@EventIDStacksToDisable=9");
  u = session(&plan, PLAN_ROLE_USER);
  for (i = 0; i < u->provider_count; i++)
    if (!strcmp(u->providers[i].name, "Acme-App"))
      p = &u->providers[i];
  assert_non_null(p);
  assert_int_equal(p->filter_count, 2);
  assert_int_equal(p->filters[0].type, 0x80000200);
  assert_int_equal(p->filters[0].size, sizeof(ids));
  assert_memory_equal(p->filters[0].data, ids, sizeof(ids));
  assert_int_equal(p->filters[1].type, 0x80001000);
  assert_int_equal(p->filters[1].size, sizeof(stacks));
  assert_memory_equal(p->filters[1].data, stacks, sizeof(stacks));
  /* A disable list asks for no stack property. */
  assert_int_equal(p->enable_property & 0x4, 0);
  plan_release(&plan);
  /* Stack filters need Windows 10 1709. */
  assert_int_equal(build(&plan, "/TargetOS:10.0.14393", "/Providers:*A:@EventIDStacksToEnable=1",
                         NULL),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(plan.error, "16299"));
  plan_release(&plan);
}

static void conflicts_and_bad_values_name_the_token(void **state)
{
  static const struct {
    const char *a, *b, *token;
    int rc;
  } bad[] = {
    { "/GCOnly", "/GCCollectOnly", "/GCCollectOnly", ETWCAP_E_USAGE },
    { "/ClrEvents:Default+Bogus", NULL, "'Bogus'", ETWCAP_E_USAGE },
    { "/KernelEvents:0xZZ", NULL, "'0xZZ'", ETWCAP_E_USAGE },
    { "/KernelEvents:Default+Handle", NULL, "Handle", ETWCAP_E_UNSUPPORTED },
    { "/ClrEventLevel:Loud", NULL, "'Loud'", ETWCAP_E_USAGE },
    { "/Providers:Clr:1:Loud", NULL, "'Loud'", ETWCAP_E_USAGE },
    { "/Providers:NoSuchProvider", NULL, "'NoSuchProvider'", ETWCAP_E_USAGE },
    { "/Providers:Clr:1:5:stak", NULL, "'stak'", ETWCAP_E_USAGE },
    { "/CpuSampleMSec:0.01", NULL, "/CpuSampleMSec", ETWCAP_E_USAGE },
    { "/InMemoryCircularBuffer", "start", "'start'", ETWCAP_E_USAGE },
    { "/InMemoryCircularBuffer", "/CircularMB:0", "/CircularMB", ETWCAP_E_USAGE },
    { "/GCTriggeredStacks", NULL, "/GCCollectOnly", ETWCAP_E_USAGE },
    { "/TargetOS:ten", NULL, "'ten'", ETWCAP_E_USAGE },
    { "/TplEvents:Taks", NULL, "'Taks'", ETWCAP_E_USAGE },
    { "/FocusProcess:99999999999", NULL, "99999999999", ETWCAP_E_USAGE },
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct plan plan;
    int rc = strncmp(bad[i].a, "/TargetOS", 9) ? build(&plan, SERVER, bad[i].a, bad[i].b, NULL)
                                                : build(&plan, bad[i].a, bad[i].b, NULL);
    if (rc != bad[i].rc || !strstr(plan.error, bad[i].token))
      fail_msg("%s %s: got %d '%s', wanted %d naming %s", bad[i].a, bad[i].b ? bad[i].b : "",
               rc, plan.error, bad[i].rc, bad[i].token);
    plan_release(&plan);
  }
}

static void windows_versions(void **state)
{
  struct plan plan;
  const struct plan_session *k;
  (void)state;
  /* Windows 7: no private system loggers, no independent sessions. */
  BUILD_OK(&plan, "/TargetOS:6.1", "collect");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_string_equal(k->name, "NT Kernel Logger");
  assert_int_equal(k->log_file_mode, 0x2);
  assert_false(k->stack_caching);
  assert_true(plan.os_assumed);
  assert_int_equal(plan.enable_parameters_version, 1);
  plan_release(&plan);
  /* Windows 8.1: system logger and independent mode, no stack caching. */
  BUILD_OK(&plan, "/TargetOS:6.3", "collect");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_string_equal(k->name, "etwcapKernel");
  assert_int_equal(k->log_file_mode, 0x0A000002);
  assert_false(k->stack_caching);
  plan_release(&plan);
  /* /SessionName needs Windows 8. */
  assert_int_equal(build(&plan, "/TargetOS:6.1", "/SessionName:x", NULL), ETWCAP_E_UNSUPPORTED);
  plan_release(&plan);
  assert_int_equal(build(&plan, "/TargetOS:5.2", NULL), ETWCAP_E_UNSUPPORTED);
  plan_release(&plan);
  /* /StackCompression:false turns caching off on Windows 10. */
  BUILD_OK(&plan, SERVER, "/StackCompression:false");
  assert_false(session(&plan, PLAN_ROLE_KERNEL)->stack_caching);
  plan_release(&plan);
}

static void os_versions_parse_and_compare(void **state)
{
  struct os_version v;
  (void)state;
  assert_int_equal(os_version_parse("10.0.17763", &v), 0);
  assert_int_equal(v.major, 10);
  assert_int_equal(v.minor, 0);
  assert_int_equal(v.build, 17763);
  assert_int_equal(os_version_parse("6.3", &v), 0);
  assert_int_equal(v.build, 0);
  assert_true(os_version_cmp(&v, 6, 2, 0) > 0);
  assert_true(os_version_cmp(&v, 10, 0, 0) < 0);
  assert_int_equal(os_version_cmp(&v, 6, 3, 0), 0);
  assert_int_equal(os_version_parse("10", &v), -1);
  assert_int_equal(os_version_parse("10.", &v), -1);
  assert_int_equal(os_version_parse("10.0.1.2", &v), -1);
  assert_int_equal(os_version_parse("a.b", &v), -1);
  assert_int_equal(os_version_parse("", &v), -1);
}

static void explicit_zero_circular_is_sequential(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/CircularMB:0");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->log_file_mode & 0x3, 0x1);
  assert_int_equal(session(&plan, PLAN_ROLE_USER)->log_file_mode & 0x3, 0x1);
  assert_int_equal(session(&plan, PLAN_ROLE_USER)->maximum_file_size_mb, 0);
  assert_false(has_note(&plan, "+ 300"));
  plan_release(&plan);
}

static void session_names_follow_session_name(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/SessionName:Prod", "/StopOnGen2GC");
  assert_string_equal(session(&plan, PLAN_ROLE_USER)->name, "Prod");
  assert_string_equal(session(&plan, PLAN_ROLE_KERNEL)->name, "ProdKernel");
  assert_string_equal(session(&plan, PLAN_ROLE_RUNDOWN)->name, "ProdRundown");
  /* PerfView keeps its trigger prefix whatever /SessionName says (§11 item 13);
   * etwcap's follows it, so 'abort' finds it by the prefix. */
  assert_string_equal(session(&plan, PLAN_ROLE_TRIGGER)->name, "ProdTrigger_<pid>");
  assert_int_equal(session(&plan, PLAN_ROLE_TRIGGER)->log_file_mode & 0x100, 0x100);
  {
    const struct plan_provider *p = must_find(session(&plan, PLAN_ROLE_TRIGGER), CLR);
    assert_int_equal(p->match_any, 0x1);
    assert_int_equal(p->level, 4);
  }
  plan_release(&plan);
}

static void data_file_names(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/DataFile:trace.etl.zip");
  assert_string_equal(plan.data_file, "trace.etl");
  assert_string_equal(plan.zip_file, "trace.etl.zip");
  assert_string_equal(session(&plan, PLAN_ROLE_KERNEL)->file, "trace.kernel.etl");
  assert_string_equal(session(&plan, PLAN_ROLE_RUNDOWN)->file, "trace.clrRundown.etl");
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "collect", "run1");
  assert_string_equal(plan.data_file, "run1.etl");
  plan_release(&plan);
  /* PerfView's check is case-sensitive (§11 item 11: foo.ETL.etl); not here. */
  BUILD_OK(&plan, SERVER, "foo.ETL");
  assert_string_equal(plan.data_file, "foo.ETL");
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "collect", "/DataFile:a.etl", "b.etl");
  assert_string_equal(plan.data_file, "b.etl"); /* the positional wins */
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/GCOnly");
  assert_string_equal(plan.data_file, "etwcapGCOnly.etl");
  plan_release(&plan);
}

static void merge_and_zip_defaults(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "/Merge:false");
  assert_false(plan.merge);
  assert_false(plan.zip);
  assert_null(plan.zip_file);
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/Zip:false");
  assert_true(plan.merge);
  assert_false(plan.zip);
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/Merge:false", "/Zip:true");
  assert_true(plan.merge); /* zip implies merge */
  plan_release(&plan);
}

static void start_has_no_circular_default(void **state)
{
  struct plan plan;
  (void)state;
  BUILD_OK(&plan, SERVER, "start");
  assert_string_equal(plan.command, "start");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->log_file_mode & 0x3, 0x1);
  assert_int_equal(session(&plan, PLAN_ROLE_USER)->maximum_file_size_mb, 0);
  plan_release(&plan);
}

static void in_memory_ring(void **state)
{
  struct plan plan;
  const struct plan_session *k, *u;
  (void)state;
  BUILD_OK(&plan, SERVER, "collect", "/InMemoryCircularBuffer", "/CircularMB:1000");
  k = session(&plan, PLAN_ROLE_KERNEL);
  u = session(&plan, PLAN_ROLE_USER);
  assert_null(k->file);
  assert_null(u->file);
  assert_int_equal(k->log_file_mode & 0x403, 0x400);
  assert_int_equal(k->minimum_buffers, 1000 * 1024 / 64);
  assert_int_equal(u->minimum_buffers, 1300 * 1024 / 64);
  assert_int_equal(k->flush_timer_sec, 1);
  k = session(&plan, PLAN_ROLE_KERNEL_RUNDOWN);
  assert_string_equal(k->name, "etwcapKernelRundown");
  assert_string_equal(k->file, "etwcapData.kernelRundown.etl");
  assert_int_equal(k->when, PLAN_AT_STOP);
  assert_int_equal(k->kernel_keywords, 0x5); /* Process|ImageLoad */
  assert_int_equal(k->minimum_buffers, 256 * 1024 / 64);
  plan_release(&plan);
}

static void gc_only_preset(void **state)
{
  struct plan plan;
  const struct plan_session *u;
  (void)state;
  BUILD_OK(&plan, SERVER, "/GCOnly");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->kernel_keywords, 0x4007);
  /* PerfView renames only its user session for /GCOnly (§11 item 14); etwcap
   * keeps one naming scheme so 'abort' and 'listSessions' find them all. */
  assert_string_equal(session(&plan, PLAN_ROLE_USER)->name, "etwcap");
  assert_string_equal(session(&plan, PLAN_ROLE_KERNEL)->name, "etwcapKernel");
  u = session(&plan, PLAN_ROLE_USER);
  assert_int_equal(must_find(u, CLR)->match_any, 0x414C8099);
  assert_int_equal(must_find(u, "d1d93ef7-e1f2-4f45-9943-03d245fe6c00")->match_any, 0x60);
  plan_release(&plan);
}

static void tpl_events(void **state)
{
  /* Stacks only for task-scheduling events 7, 10, 12 (EVENT_FILTER_EVENT_ID layout). */
  static const uint8_t ids[] = { 1, 0, 3, 0, 7, 0, 10, 0, 12, 0 };
  struct plan plan;
  const struct plan_provider *p;
  (void)state;
  BUILD_OK(&plan, SERVER, "/TplEvents:Tasks+TasksFlowActivityIds", "/ClrEventLevel:Informational");
  p = must_find(session(&plan, PLAN_ROLE_USER), "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5");
  assert_int_equal(p->match_any, 0x82);
  assert_int_equal(p->level, 4);
  assert_int_equal(p->enable_property, 0x4);
  assert_int_equal(p->filter_count, 1);
  assert_int_equal(p->filters[0].type, 0x80001000);
  assert_int_equal(p->filters[0].size, sizeof(ids));
  assert_memory_equal(p->filters[0].data, ids, sizeof(ids));
  plan_release(&plan);
  /* Not by default. */
  BUILD_OK(&plan, SERVER);
  assert_null(find(session(&plan, PLAN_ROLE_USER), "2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5", 0));
  plan_release(&plan);
}

static void only_providers(void **state)
{
  struct plan plan;
  const struct plan_session *u;
  (void)state;
  BUILD_OK(&plan, SERVER, "/OnlyProviders:*Acme-App");
  assert_int_equal(plan.session_count, 2); /* no kernel session */
  u = session(&plan, PLAN_ROLE_USER);
  assert_int_equal(u->provider_count, 3); /* PerfView, etwcap (its own provider) and Acme-App */
  assert_null(find(u, CLR, 0));
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/OnlyProviders:*Acme-App:@StacksEnabled=true");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->kernel_keywords, 0x7);
  assert_int_equal(must_find(session(&plan, PLAN_ROLE_USER), CLR)->match_any, 0x18);
  plan_release(&plan);
}

static void descriptions_render(void **state)
{
  struct plan plan;
  char *text = NULL, *json = NULL;
  (void)state;
  BUILD_OK(&plan, SERVER, "/ThreadTime", "collect", "/FocusProcess:1234");
  assert_int_equal(plan_to_text(&plan, &text), 0);
  assert_int_equal(plan_to_json(&plan, &json), 0);
  assert_non_null(strstr(text, "etwcapKernel"));
  assert_non_null(strstr(text, "ContextSwitch"));
  assert_non_null(strstr(json, "\"schema\": \"etwcap-plan/1\""));
  assert_non_null(strstr(json, "\"matchAnyKeyword\": \"0x14C14FCC9D\""));
  assert_non_null(strstr(json, "\"kind\": \"pid\", \"size\": 4, \"data\": \"d2040000\""));
  etwcap_free(text);
  etwcap_free(json);
  plan_release(&plan);
}

/* The group-mask route, the default on every build from Windows 8
 * (docs/win32-contract.md §3.2 rule 3, §3.4): the same on Windows 10 before
 * 20348, on the default target (Server 2022, 20348) and on Windows 11
 * (26100), as the acceptance asks.  Expected words: krabsetw krabs/krabs/perfinfo_groupmask.hpp (Masks[0]
 * groups are the EVENT_TRACE_FLAG_* bits; PERF_PROFILE 0x20000002,
 * PERF_CONTEXT_SWITCH 0x20000004, PERF_DISPATCHER 0x20000200 live in
 * Masks[1]).  /ThreadTime's flags 0x01012F1F are docs/perfview-collection.md
 * §4.1 (Default|CSwitch|Dispatcher). */
static void check_group_mask_route(const char *target)
{
  struct plan plan;
  const struct plan_session *k;
  char *json = NULL;
  BUILD_OK(&plan, target, "/ThreadTime");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->route, PLAN_ROUTE_GROUP_MASK);
  /* EnableFlags at StartTraceW, as tracelog -eflag and krabsetw do. */
  assert_int_equal(k->enable_flags_at_start, 0x01012F1F);
  /* Masks[0]: Process 0x1, Thread 0x2, ImageLoad 0x4, ProcessCounters 0x8,
   * DiskIO 0x100, DiskFileIO 0x200, DiskIOInit 0x400, HardFaults 0x2000,
   * NetworkTCPIP 0x10000: the flags themselves, without CSwitch (0x10),
   * Dispatcher (0x800) and Profile (0x01000000), which move to Masks[1]. */
  assert_int_equal(k->group_mask[0], 0x1270F);
  assert_int_equal(k->group_mask[1], 0x2 | 0x4 | 0x200);
  for (size_t i = 2; i < PLAN_GROUP_MASK_WORDS; i++)
    assert_int_equal(k->group_mask[i], 0);
  assert_int_equal(k->system_provider_count, 0);
  assert_int_equal(plan_to_json(&plan, &json), 0);
  assert_non_null(strstr(json, "\"route\": \"groupMask\""));
  assert_non_null(strstr(json, "\"enableFlagsAtStart\": \"0x01012F1F\""));
  assert_non_null(strstr(json, "\"groupMask\": [\"0x0001270F\", \"0x00000206\", \"0x00000000\""));
  assert_null(strstr(json, "\"systemProviders\""));
  assert_false(has_note(&plan, "System Providers"));
  etwcap_free(json);
  plan_release(&plan);
}

static void kernel_route_group_mask_by_default_from_windows_8(void **state)
{
  (void)state;
  check_group_mask_route("/TargetOS:6.2");
  check_group_mask_route("/TargetOS:10.0.19045");
  check_group_mask_route(SERVER);
  check_group_mask_route("/TargetOS:10.0.26100");
}

/* The System Providers page (learn.microsoft.com windows/win32/etw/
 * system-providers): SystemSchedulerProviderGuid {599a2a76-4d91-4910-9ac7-
 * 7d33f2e97a6c} with SYSTEM_SCHEDULER_KW_CONTEXT_SWITCH (EVENT_TRACE_FLAG_
 * CSWITCH) and _DISPATCHER (EVENT_TRACE_FLAG_DISPATCHER), SystemProfile
 * ProviderGuid {bfeb0324-1cee-496f-a409-2ac2b48a6322} KW_GENERAL (PROFILE),
 * SystemProcessProviderGuid {151f55dc-...} GENERAL|PERF_COUNTER|THREAD|
 * LOADER; values from evntrace.h (windows-sys: CONTEXT_SWITCH = 512,
 * DISPATCHER = 2, PROCESS_KW_THREAD = 0x800, LOADER = 0x1000). */
static void kernel_route_system_providers_when_asked(void **state)
{
  struct plan plan;
  const struct plan_session *k;
  char *json = NULL;
  size_t i;
  int sched = 0, prof = 0, proc = 0;
  (void)state;
  BUILD_OK(&plan, SERVER, "/ThreadTime", "/KernelRoute:systemProviders");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->route, PLAN_ROUTE_SYSTEM_PROVIDERS);
  assert_int_equal(k->enable_flags_at_start, 0);
  for (i = 0; i < k->system_provider_count; i++) {
    char g[GUID_STRING_SIZE];
    guid_format(&k->system_providers[i].guid, g);
    if (!strcmp(g, "599a2a76-4d91-4910-9ac7-7d33f2e97a6c")) {
      assert_int_equal(k->system_providers[i].keywords, 0x200 | 0x2);
      sched = 1;
    } else if (!strcmp(g, "bfeb0324-1cee-496f-a409-2ac2b48a6322")) {
      assert_int_equal(k->system_providers[i].keywords, 0x1);
      prof = 1;
    } else if (!strcmp(g, "151f55dc-467d-471f-83b5-5f889d46ff66")) {
      assert_int_equal(k->system_providers[i].keywords, 0x1 | 0x8 | 0x800 | 0x1000);
      proc = 1;
    }
  }
  assert_true(sched && prof && proc);
  assert_int_equal(plan_to_json(&plan, &json), 0);
  assert_non_null(strstr(json, "\"route\": \"systemProviders\""));
  assert_non_null(strstr(json, "\"guid\": \"599a2a76-4d91-4910-9ac7-7d33f2e97a6c\", "
                               "\"keywords\": \"0x202\""));
  etwcap_free(json);
  plan_release(&plan);
  /* Windows 7: the NT Kernel Logger, EnableFlags at start, nothing else. */
  BUILD_OK(&plan, "/TargetOS:6.1", "/ThreadTime");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->route, PLAN_ROUTE_NT_KERNEL_LOGGER);
  assert_int_equal(k->enable_flags_at_start, 0x01012F1F);
  plan_release(&plan);
}

/* /KernelRoute (docs/win32-contract.md §3.4).  The System Providers route
 * is opt-in, with a note on what is unproven (the DCStart rundown);
 * groupMask, the default, works on any build from 6.2 (private
 * system loggers: "Logging Mode Constants", EVENT_TRACE_SYSTEM_LOGGER_MODE,
 * Windows 8); systemProviders is refused below 20348 ("System Providers":
 * "Beginning in Windows 10 SDK build 20348").  Expected words: krabsetw
 * perfinfo_groupmask.hpp, as above. */
static void kernel_route_qualifier_picks_or_refuses_a_route(void **state)
{
  struct plan plan;
  const struct plan_session *k;
  (void)state;
  BUILD_OK(&plan, SERVER, "/ThreadTime", "/KernelRoute:systemProviders");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->route, PLAN_ROUTE_SYSTEM_PROVIDERS);
  assert_true(has_note(&plan, "DCStart"));
  assert_true(has_note(&plan, "SystemConfig"));
  assert_false(has_note(&plan, "selftest"));
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/ThreadTime", "/KernelRoute:groupMask");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->route, PLAN_ROUTE_GROUP_MASK);
  assert_int_equal(k->enable_flags_at_start, 0x01012F1F);
  assert_int_equal(k->group_mask[0], 0x1270F);
  assert_int_equal(k->group_mask[1], 0x2 | 0x4 | 0x200);
  assert_int_equal(k->system_provider_count, 0);
  assert_false(has_note(&plan, "DCStart"));
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/KernelRoute:Auto");
  assert_int_equal(session(&plan, PLAN_ROLE_KERNEL)->route, PLAN_ROUTE_GROUP_MASK);
  plan_release(&plan);
  assert_int_equal(build(&plan, "/TargetOS:10.0.19045", "/KernelRoute:systemProviders", NULL),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(plan.error, "20348"));
  plan_release(&plan);
  assert_int_equal(build(&plan, "/TargetOS:6.1", "/KernelRoute:groupMask", NULL),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(plan.error, "NT Kernel Logger"));
  plan_release(&plan);
  assert_int_equal(build(&plan, SERVER, "/KernelRoute:ntKernelLogger", NULL), ETWCAP_E_USAGE);
  assert_non_null(strstr(plan.error, "ntKernelLogger"));
  plan_release(&plan);
}

/* /RundownPeriodSec (docs/win32-contract.md §8.4-§8.6).  CLR rundown
 * keywords ("CLR ETW Keywords and Levels", docs/perfview-collection.md
 * §4.4): Loader 0x8, Jit 0x10, NGen 0x20, EndRundown 0x100 always, the
 * NGen methods not suppressed (SupressNGen 0x40000 off) whatever
 * /NoNGenRundown says; JittedMethodILToNativeMap 0x20000 only when the CLR
 * events have it.  The kernel part by route: the kernel rundown session
 * (planned for it), capture state on the System Providers with a note,
 * none on Windows 7's NT Kernel Logger with a note. */
static void periodic_rundown_names_methods_on_every_route(void **state)
{
  struct plan plan;
  char *text = NULL;
  size_t i;
  (void)state;
  BUILD_OK(&plan, SERVER, "/RundownPeriodSec:600");
  assert_int_equal(plan.periodic_rundown.seconds, 600);
  /* PerfView's default CLR events carry the IL-to-native map (§4.3). */
  assert_int_equal(plan.periodic_rundown.clr_keywords & 0x60138, 0x20138);
  assert_int_equal(plan.periodic_rundown.kernel, PLAN_PERIODIC_KERNEL_SESSION);
  assert_non_null(session(&plan, PLAN_ROLE_KERNEL_RUNDOWN));
  /* `plan` says that only the newest files are kept (docs/win32-contract.md
   * §8.5: 32). */
  assert_int_equal(plan_to_text(&plan, &text), 0);
  assert_non_null(strstr(text, "the newest 32 files kept"));
  etwcap_free(text);
  plan_release(&plan);
  BUILD_OK(&plan, SERVER, "/RundownPeriodSec:600", "/ClrEvents:Default-JittedMethodILToNativeMap",
           "/KernelRoute:systemProviders");
  assert_int_equal(plan.periodic_rundown.clr_keywords & 0x60138, 0x138);
  assert_int_equal(plan.periodic_rundown.kernel, PLAN_PERIODIC_KERNEL_CAPTURE_STATE);
  assert_true(has_note(&plan, "does not document"));
  plan_release(&plan);
  BUILD_OK(&plan, "/TargetOS:6.1", "/RundownPeriodSec:600");
  assert_int_equal(plan.periodic_rundown.kernel, PLAN_PERIODIC_KERNEL_NONE);
  assert_true(has_note(&plan, "CLR's names only"));
  plan_release(&plan);
  BUILD_OK(&plan, SERVER);
  assert_int_equal(plan.periodic_rundown.seconds, 0);
  for (i = 0; i < plan.session_count; i++)
    assert_int_not_equal(plan.sessions[i].role, PLAN_ROLE_KERNEL_RUNDOWN);
  plan_release(&plan);
}

/* /KernelEvents:FileIOInit (EVENT_TRACE_FLAG_FILE_IO_INIT 0x04000000) on
 * the System Providers route is SystemIoProvider
 * {3d5c43e3-0f1c-4202-b817-174c0070dc79} with SYSTEM_IO_KW_FILE_INIT 0x400
 * (evntrace.h of the Windows SDK, "#define SYSTEM_IO_KW_FILE_INIT
 * 0x0000000000000400"; windows-sys and holy-tao/AhkWin32Projection's ports:
 * 1024), not SYSTEM_IO_KW_OPTICAL 0x20 (optical-disk I/O); see
 * docs/win32-contract.md §3.3 rule 4. */
static void file_io_init_is_system_io_kw_file_init(void **state)
{
  struct plan plan;
  const struct plan_session *k;
  size_t i;
  int found = 0;
  (void)state;
  BUILD_OK(&plan, SERVER, "/KernelEvents:Process+FileIOInit", "/KernelRoute:systemProviders");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_int_equal(k->route, PLAN_ROUTE_SYSTEM_PROVIDERS);
  for (i = 0; i < k->system_provider_count; i++) {
    char g[GUID_STRING_SIZE];
    guid_format(&k->system_providers[i].guid, g);
    if (!strcmp(g, "3d5c43e3-0f1c-4202-b817-174c0070dc79")) {
      assert_int_equal(k->system_providers[i].keywords, 0x400);
      found = 1;
    }
  }
  assert_true(found);
  plan_release(&plan);
}

/* WPR's StackCaching sizes (BucketCount 100, CacheSize 1024, the WPR system
 * collector for large file traces as Microsoft Defender for Endpoint's WPR
 * profile reproduces it); WPR's element requires both
 * (docs/win32-contract.md §7.4). */
static void stack_caching_has_wpr_sizes(void **state)
{
  struct plan plan;
  const struct plan_session *k;
  (void)state;
  BUILD_OK(&plan, SERVER, "/ThreadTime");
  k = session(&plan, PLAN_ROLE_KERNEL);
  assert_true(k->stack_caching);
  assert_int_equal(k->stack_cache_size, 1024);
  assert_int_equal(k->stack_cache_buckets, 100);
  plan_release(&plan);
}

/* The names of lost groups, for the read-back warning: krabsetw's PERF_*
 * names. */
static void group_mask_names_name_each_group(void **state)
{
  uint32_t mask[PLAN_GROUP_MASK_WORDS] = { 0x1, 0x2 | 0x4, 0, 0, 0, 0, 0, 0x80 };
  char buf[256];
  (void)state;
  plan_group_mask_names(mask, buf, sizeof(buf));
  assert_string_equal(buf, "PERF_PROCESS|PERF_PROFILE|PERF_CONTEXT_SWITCH|Masks[7]:0x80");
}

/* Container flags go on the trigger session's enables too (a trigger must
 * see what its capture sees), and only where Windows has containers
 * (Windows Server 2016 / Windows 10 1607, build 14393; the
 * ENABLE_TRACE_PARAMETERS page gives no version of its own; see
 * docs/win32-contract.md §5.5). */
static void container_flags_on_the_trigger_session_by_version(void **state)
{
  struct plan plan;
  const struct plan_session *t;
  size_t i, n;
  (void)state;
  BUILD_OK(&plan, SERVER, "/EnableEventsInContainers", "/StopOnGen2GC");
  t = session(&plan, PLAN_ROLE_TRIGGER);
  assert_true(t->provider_count > 0);
  for (i = 0; i < t->provider_count; i++)
    assert_true(t->providers[i].enable_property & PLAN_ENABLE_PROPERTY_ENABLE_SILOS);
  plan_release(&plan);
  BUILD_OK(&plan, "/TargetOS:10.0.10586", "/EnableEventsInContainers", "/StopOnGen2GC");
  for (n = 0; n < plan.session_count; n++)
    for (i = 0; i < plan.sessions[n].provider_count; i++)
      assert_false(plan.sessions[n].providers[i].enable_property &
                   PLAN_ENABLE_PROPERTY_ENABLE_SILOS);
  for (i = 0, n = 0; i < plan.note_count; i++)
    n += strstr(plan.notes[i], "build 14393") != NULL;
  assert_int_equal(n, 1);
  plan_release(&plan);
}

static void allocation_failures_are_clean(void **state)
{
  unsigned n, total;
  struct plan plan;
  (void)state;
  /* Count the allocations of one full build, then fail each in turn. */
  test_fail_alloc_after(0);
  BUILD_OK(&plan, SERVER, "/ThreadTime", "collect", "/Providers:*System.Net.Http:1:4:a=b",
           "/FocusProcess:app.exe");
  plan_release(&plan);
  total = test_alloc_count();
  assert_true(total > 20);
  for (n = 1; n <= total; n += (n < 200 ? 1 : 7)) {
    int rc;
    test_fail_alloc_after(n);
    rc = build(&plan, SERVER, "/ThreadTime", "collect", "/Providers:*System.Net.Http:1:4:a=b",
               "/FocusProcess:app.exe", NULL);
    test_fail_alloc_after(0);
    assert_int_equal(rc, ETWCAP_E_NOMEM);
    plan_release(&plan);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(runbook_thread_time),
    cmocka_unit_test(runbook_aspnetcore),
    cmocka_unit_test(runbook_system_net),
    cmocka_unit_test(runbook_gc_collect_only),
    cmocka_unit_test(runbook_default_minus_profile),
    cmocka_unit_test(runbook_assembly_loading_spec),
    cmocka_unit_test(level_zero_keywords_zero_turns_a_default_off),
    cmocka_unit_test(runbook_containers),
    cmocka_unit_test(runbook_focus_process),
    cmocka_unit_test(provider_data_wire_format),
    cmocka_unit_test(session_keyword_is_the_lowest_free_of_44_to_47),
    cmocka_unit_test(provider_with_session_keyword_names_the_bit),
    cmocka_unit_test(event_id_filters_on_the_wire),
    cmocka_unit_test(conflicts_and_bad_values_name_the_token),
    cmocka_unit_test(windows_versions),
    cmocka_unit_test(os_versions_parse_and_compare),
    cmocka_unit_test(explicit_zero_circular_is_sequential),
    cmocka_unit_test(session_names_follow_session_name),
    cmocka_unit_test(data_file_names),
    cmocka_unit_test(merge_and_zip_defaults),
    cmocka_unit_test(start_has_no_circular_default),
    cmocka_unit_test(in_memory_ring),
    cmocka_unit_test(gc_only_preset),
    cmocka_unit_test(tpl_events),
    cmocka_unit_test(only_providers),
    cmocka_unit_test(descriptions_render),
    cmocka_unit_test(kernel_route_group_mask_by_default_from_windows_8),
    cmocka_unit_test(kernel_route_system_providers_when_asked),
    cmocka_unit_test(periodic_rundown_names_methods_on_every_route),
    cmocka_unit_test(file_io_init_is_system_io_kw_file_init),
    cmocka_unit_test(kernel_route_qualifier_picks_or_refuses_a_route),
    cmocka_unit_test(stack_caching_has_wpr_sizes),
    cmocka_unit_test(group_mask_names_name_each_group),
    cmocka_unit_test(container_flags_on_the_trigger_session_by_version),
    cmocka_unit_test(allocation_failures_are_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
