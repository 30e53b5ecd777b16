/* The selftest's checks over traces: real samples (expected counts from the
 * independent golden listings in samples/golden) and hand-built events
 * (layouts from the kernel MOF classes TraceEvent decodes and
 * TraceLoggingProvider.h), each check shown to pass on a trace that has
 * what it needs and to fail on one that lacks it.  Also the TraceLogging
 * bytes the selftest writes, decoded by etwcap's own decoder. */
#include "tests/fakes/test_support.h"
#include "tests/unit/test_etl_bytes.h"

#include "etw/event/builtin_events.h"
#include "etw/event/tracelogging.h"
#include "etw/image/image_identity.h"
#include "src/base/error.h"
#include "src/selftest/selftest_checks.h"
#include "src/selftest/selftest_tl.h"

#include <stdio.h>
#include <string.h>

static struct selftest_facts facts;
static struct selftest_outcome outcome;
static struct selftest_result results[32];
static size_t payload_used;

static int setup(void **state)
{
  (void)state;
  payload_used = 0;
  memset(&outcome, 0, sizeof(outcome));
  selftest_facts_init(&facts, NULL);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  selftest_facts_release(&facts);
  return 0;
}

static const struct selftest_result *judged(const char *name)
{
  size_t i;
  assert_true(selftest_check_count <= sizeof(results) / sizeof(results[0]));
  selftest_judge_all(&facts, &outcome, results);
  for (i = 0; i < selftest_check_count; i++)
    if (!strcmp(selftest_checks[i].name, name))
      return &results[i];
  fail_msg("no check %s", name);
  return &results[0];
}

static void expect_verdict(const char *name, enum selftest_verdict v)
{
  const struct selftest_result *r = judged(name);
  if (r->verdict != v)
    fail_msg("%s: %s (%s), expected %s", name, selftest_verdict_name(r->verdict), r->detail,
             selftest_verdict_name(v));
}

static void scan_sample(const char *name)
{
  char path[1024];
  test_sample_path(name, path, sizeof(path));
  assert_int_equal(selftest_scan_file(&facts, path), 0);
}

/* --- real samples ----------------------------------------------------------- */

static void a_sample_with_cpu_samples_and_stacks_passes_cpu_samples(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: 79528 events hook=0x0f2e (PerfInfo SampledProfile). */
  assert_int_equal(facts.kinds[SELFTEST_SAMPLED_PROFILE], 79528);
  expect_verdict("CPU_SAMPLES", SELFTEST_PASS);
}

static void a_sample_without_context_switches_fails_cswitch(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: no hook=0x0524 (CSwitch) nor 0x0532 (ReadyThread). */
  assert_int_equal(facts.kinds[SELFTEST_CSWITCH], 0);
  expect_verdict("CSWITCH", SELFTEST_FAIL);
  expect_verdict("READY_THREAD", SELFTEST_FAIL);
}

static void a_sample_with_process_start_and_end_passes_process(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: one hook=0x0301 (Process/Start), one hook=0x0302 (End). */
  assert_int_equal(facts.process_start, 1);
  assert_int_equal(facts.process_end, 1);
  expect_verdict("PROCESS", SELFTEST_PASS);
  /* golden: 179474 events, EventsLost=0 BuffersLost=0. */
  assert_int_equal(facts.events, 179474);
  expect_verdict("NOTHING_LOST", SELFTEST_PASS);
}

static void a_sample_with_identified_image_loads_passes_image_load(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: 35 Image/Load (hook=0x030a), each after an ImageID/Info event
   * (b3e675d7-..., type(op)=0) of the same CPU and timestamp. */
  assert_int_equal(facts.image_loads, 35);
  assert_int_equal(facts.image_loads_identified, 35);
  expect_verdict("IMAGE_LOAD", SELFTEST_PASS);
}

static void clr_rundown_passes_skips_and_fails_by_what_ran(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: 33011 events of a669021c (CLR rundown). */
  assert_int_equal(facts.clr_rundown_events, 33011);
  expect_verdict("CLR_RUNDOWN", SELFTEST_PASS);
  selftest_facts_release(&facts);
  selftest_facts_init(&facts, NULL);
  /* golden: 69 CLR runtime events (e13c0d23), no rundown. */
  scan_sample("ms-perfview__gcevents.etl.zip");
  assert_int_equal(facts.clr_runtime_events, 69);
  expect_verdict("CLR_RUNDOWN", SELFTEST_FAIL);
  selftest_facts_release(&facts);
  selftest_facts_init(&facts, NULL);
  /* golden: neither provider, no runtime image. */
  scan_sample("ms-Tx__KernelNetwork.etl");
  expect_verdict("CLR_RUNDOWN", SELFTEST_SKIP);
}

static void a_sample_with_the_kernel_start_rundown_passes_start_rundown(void **state)
{
  (void)state;
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  /* golden: 32 hook=0x0303 (Process/DCStart), 1763 hook=0x1403 (Image/DCStart). */
  assert_int_equal(facts.process_dcstart, 32);
  assert_int_equal(facts.image_dcstart, 1763);
  assert_true(facts.ntdll_dcstart >= 1);
  expect_verdict("START_RUNDOWN", SELFTEST_PASS);
}

static void a_sample_without_a_start_rundown_fails_it(void **state)
{
  (void)state;
  /* golden: kernel events, but no hook=0x0303 nor 0x1403. */
  scan_sample("ms-Tx__KernelNetwork.etl");
  assert_int_equal(facts.process_dcstart, 0);
  expect_verdict("START_RUNDOWN", SELFTEST_FAIL);
}

/* A thread the trace never sampled has no rate: SAMPLE_RATE fails on a
 * real trace full of samples of other threads. */
static void a_sample_without_the_busy_threads_samples_fails_sample_rate(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.busy_tid = 1; /* Windows thread ids are multiples of 4 */
  selftest_facts_init(&facts, &x);
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
  assert_int_equal(facts.kinds[SELFTEST_SAMPLED_PROFILE], 79528);
  assert_int_equal(facts.busy_samples, 0);
  outcome.busy_cpu_known = 1;
  outcome.busy_cpu_100ns = 3000000;
  outcome.sample_interval_100ns = 10000;
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL);
}

static void dotnet_sample(uint32_t pid)
{
  struct selftest_expect x;
  memset(&x, 0, sizeof(x));
  x.dotnet_pid = pid;
  selftest_facts_release(&facts);
  selftest_facts_init(&facts, &x);
  snprintf(outcome.dotnet_what, sizeof(outcome.dotnet_what), "the sample's process");
  scan_sample("ms-perfview__net.4.5.2.x64.etl.zip");
}

/* net.4.5.2: the app (3676) ran and exited before the rundown; PerfView
 * (3988) was rundown but started before the capture (no Loader events). */
static void a_sample_whose_dotnet_process_lacks_a_rundown_fails_dotnet_child(void **state)
{
  (void)state;
  dotnet_sample(3676);
  /* golden, pid=3676 of e13c0d23: 13 events of ids 151..157 (Loader), 143 x288;
   * no a669021c event of that pid. */
  assert_int_equal(facts.dotnet_loader, 13);
  assert_int_equal(facts.dotnet_methods, 288);
  assert_int_equal(facts.dotnet_dcend, 0);
  expect_verdict("DOTNET_CHILD", SELFTEST_FAIL);
  dotnet_sample(3988);
  /* golden, pid=3988: 143 x2, a669021c id=144 x16702, no Loader event. */
  assert_int_equal(facts.dotnet_loader, 0);
  assert_int_equal(facts.dotnet_methods, 2);
  assert_int_equal(facts.dotnet_dcend, 16702);
  expect_verdict("DOTNET_CHILD", SELFTEST_FAIL);
}

static void someone_elses_tracelogging_events_fail_own_events(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  assert_int_equal(selftest_tl_provider_guid(&x.own_provider), 0);
  x.own_events = SELFTEST_TL_STEPS + 1;
  selftest_facts_init(&facts, &x);
  scan_sample("ms-perfview__SelfDescribingSingleEvent.etl");
  assert_int_equal(facts.own_events, 0);
  expect_verdict("OWN_EVENTS", SELFTEST_FAIL);
}

static void a_missing_trace_fails_every_trace_check(void **state)
{
  size_t i;
  (void)state;
  outcome.capture_rc = ETWCAP_E_NOENT;
  assert_true(selftest_scan_file(&facts, "/nonexistent/etwcap-selftest.etl.zip") < 0);
  selftest_judge_all(&facts, &outcome, results);
  for (i = 0; i < selftest_check_count; i++)
    assert_int_not_equal(results[i].verdict, SELFTEST_PASS);
}

/* --- hand-built events --------------------------------------------------- */

static uint8_t payload[4096][256];

static uint8_t *new_payload(void)
{
  assert_true(payload_used < 4096);
  memset(payload[payload_used], 0, sizeof(payload[0]));
  return payload[payload_used++];
}

/* A SYSTEM64 kernel event (docs/etl.md §4.2): hook = group << 8 | opcode. */
static struct etw_event kernel(uint8_t group, uint8_t opcode, uint8_t version, uint64_t ts,
                               const uint8_t *data, uint32_t len)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_SYSTEM64;
  ev.pointer_size = 8;
  ev.is_kernel = 1;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP;
  ev.group = group;
  ev.opcode = opcode;
  ev.hook_id = (uint16_t)(group << 8 | opcode);
  ev.version = version;
  ev.timestamp = ts;
  ev.cpu = 1;
  ev.pid = 100;
  ev.tid = 200;
  ev.user_data = data;
  ev.user_len = len;
  return ev;
}

/* StackWalk_Event (group 24, opcode 32): EventTimeStamp, StackProcess,
 * StackThread, then the frames. */
static void stack_for(uint64_t ts)
{
  uint8_t *p = new_payload();
  struct etw_event ev;
  tb64(p, ts);
  tb32(p + 8, 100);
  tb32(p + 12, 200);
  tb64(p + 16, 0xFFFFF80000001234ull);
  ev = kernel(24, 32, 2, ts, p, 24);
  selftest_scan_event(&facts, &ev);
}

static void thread_event(uint8_t opcode, uint64_t ts, int with_stack)
{
  uint8_t *p = new_payload();
  struct etw_event ev = kernel(5, opcode, 2, ts, p, 24);
  selftest_scan_event(&facts, &ev);
  if (with_stack)
    stack_for(ts);
}

static void context_switches_pass_only_with_stacks(void **state)
{
  (void)state;
  thread_event(36, 1000, 0);
  thread_event(50, 1100, 0);
  expect_verdict("CSWITCH", SELFTEST_FAIL); /* events, but no stack */
  expect_verdict("READY_THREAD", SELFTEST_FAIL);
  thread_event(36, 2000, 1);
  thread_event(50, 2100, 1);
  expect_verdict("CSWITCH", SELFTEST_PASS);
  expect_verdict("READY_THREAD", SELFTEST_PASS);
  assert_int_equal(facts.kinds[SELFTEST_CSWITCH], 2);
}

static void a_stack_in_an_extended_item_counts(void **state)
{
  static const uint8_t frames[16];
  uint8_t *p = new_payload();
  struct etw_event ev = kernel(15, 46, 2, 5000, p, 16);
  (void)state;
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_STACK_TRACE64;
  ev.ext[0].size = sizeof(frames);
  ev.ext[0].data = frames;
  selftest_scan_event(&facts, &ev);
  expect_verdict("CPU_SAMPLES", SELFTEST_PASS);
}

/* Process_V4: UniqueProcessKey (pointer), ProcessId, ParentId, ... */
static void process_event(uint8_t opcode, uint32_t pid)
{
  uint8_t *p = new_payload();
  struct etw_event ev;
  tb64(p, 0xFFFFB00000000000ull);
  tb32(p + 8, pid);
  tb32(p + 12, 4);
  ev = kernel(3, opcode, 4, 3000, p, 48);
  selftest_scan_event(&facts, &ev);
}

static void the_child_process_must_both_start_and_end(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.child_pid = 4242;
  selftest_facts_init(&facts, &x);
  process_event(1, 4242);
  process_event(2, 77); /* another process ends */
  expect_verdict("PROCESS", SELFTEST_FAIL);
  process_event(2, 4242);
  expect_verdict("PROCESS", SELFTEST_PASS);
}

/* Image_Load v2 (hook 0x030a, as the samples log it; DCStart 0x1403): ImageBase,
 * ImageSize, ProcessId, ImageCheckSum, TimeDateStamp, Reserved0, DefaultBase,
 * Reserved1..4, FileName (UTF-16) — the layout image_identity.c reads. */
static void image_event(uint8_t group, uint8_t opcode, uint64_t ts, uint32_t pid,
                        const char *path)
{
  uint8_t *p = new_payload();
  size_t i, fixed = 3 * 8 + 32;
  struct etw_event ev;
  tb64(p, 0x7FF800000000ull);
  tb64(p + 8, 0x20000);
  tb32(p + 16, pid);
  for (i = 0; path[i]; i++)
    p[fixed + 2 * i] = (uint8_t)path[i];
  ev = kernel(group, opcode, 2, ts, p, (uint32_t)(fixed + 2 * i + 2));
  selftest_scan_event(&facts, &ev);
}

static void image_load(uint64_t ts, const char *path)
{
  image_event(3, 10, ts, 100, path);
}

#define NTDLL "\\Device\\HarddiskVolume3\\Windows\\System32\\ntdll.dll"

/* etwcap's own Process/DCStart and ntdll.dll's Image/DCStart in it. */
static void the_start_rundown_must_name_etwcap_and_its_ntdll(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.self_pid = 4240;
  selftest_facts_init(&facts, &x);
  process_event(3, 8); /* another process's DCStart */
  image_event(0x14, 3, 3000, 4240, NTDLL);
  expect_verdict("START_RUNDOWN", SELFTEST_FAIL);
  selftest_facts_release(&facts);
  selftest_facts_init(&facts, &x);
  process_event(3, 4240);
  image_event(0x14, 3, 3000, 8, NTDLL);     /* ntdll of another process */
  image_event(0x14, 10, 3000, 4240, NTDLL); /* loaded, not in the rundown */
  expect_verdict("START_RUNDOWN", SELFTEST_FAIL);
  image_event(0x14, 3, 3000, 4240, NTDLL);
  expect_verdict("START_RUNDOWN", SELFTEST_PASS);
}

/* PerfInfo SampledProfile: InstructionPointer, ThreadId, Count, Reserved. */
static void sample_of(uint32_t tid, uint64_t ts, int with_stack)
{
  uint8_t *p = new_payload();
  struct etw_event ev;
  tb64(p, 0x7FF812345678ull);
  tb32(p + 8, tid);
  p[12] = 1;
  ev = kernel(15, 46, 2, ts, p, 16);
  selftest_scan_event(&facts, &ev);
  if (with_stack)
    stack_for(ts);
}

/* 300 ms of CPU at 1 ms a sample: 150 to 600 samples, half with stacks. */
static void the_busy_thread_is_sampled_at_the_set_rate_with_stacks(void **state)
{
  struct selftest_expect x;
  unsigned i;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.busy_tid = 4244;
  selftest_facts_init(&facts, &x);
  outcome.busy_cpu_known = 1;
  outcome.busy_cpu_100ns = 3000000;
  outcome.sample_interval_100ns = 10000;
  for (i = 0; i < 149; i++)
    sample_of(4244, 10000 + i, 1);
  for (i = 0; i < 400; i++)
    sample_of(8, 20000 + i, 1); /* another thread's */
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL); /* 149 < 300 / 2 */
  sample_of(4244, 30000, 0);
  sample_of(4244, 30001, 0);
  expect_verdict("SAMPLE_RATE", SELFTEST_PASS); /* 151, 149 with stacks */
  for (i = 0; i < 160; i++)
    sample_of(4244, 40000 + i, 0);
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL); /* 311, 149 with stacks */
  for (i = 0; i < 290; i++)
    sample_of(4244, 50000 + i, 1);
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL); /* 601 > 600 */
  outcome.busy_cpu_100ns = 0;
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL); /* no CPU charged: nothing to judge by */
  outcome.busy_cpu_100ns = 3000000;
  outcome.busy_cpu_known = 0;
  expect_verdict("SAMPLE_RATE", SELFTEST_FAIL); /* not measured */
}

/* KernelTraceControl's ImageID/Info (image_identity_guid, opcode 0). */
static void image_identity(uint64_t ts)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_FULL64;
  ev.pointer_size = 8;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER;
  ev.provider = image_identity_guid;
  ev.opcode = IMAGE_ID_INFO;
  ev.timestamp = ts;
  ev.cpu = 1;
  selftest_scan_event(&facts, &ev);
}

static void the_loaded_dll_needs_its_identity_event(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.dll_name = "version.dll";
  selftest_facts_init(&facts, &x);
  image_load(7000, "\\Device\\HarddiskVolume3\\Windows\\System32\\VERSION.dll");
  expect_verdict("IMAGE_LOAD", SELFTEST_FAIL); /* loaded, but not identified */
  image_identity(8000);
  image_load(8000, "\\Device\\HarddiskVolume3\\Windows\\System32\\version.dll");
  image_identity(9000);
  image_load(9000, "\\Device\\HarddiskVolume3\\Windows\\System32\\kernel32.dll");
  expect_verdict("IMAGE_LOAD", SELFTEST_PASS);
  assert_int_equal(facts.image_loads, 2);
  assert_int_equal(facts.image_loads_identified, 1);
}

/* A manifest event (EVENT_HEADER) of the CLR runtime or rundown provider. */
static void clr_event(int rundown, uint16_t id, uint32_t pid)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.header_type = ETW_HDR_EVENT_HEADER64;
  ev.pointer_size = 8;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  ev.provider = rundown ? bi_guid_clr_rundown : bi_guid_clr;
  ev.id = id;
  ev.pid = pid;
  ev.timestamp = 6000;
  selftest_scan_event(&facts, &ev);
}

/* Loader (ModuleLoad 152), MethodLoadVerbose (143) and the rundown's
 * MethodDCEndVerbose (144), each of the child's own process. */
static void the_dotnet_child_needs_loader_jit_and_rundown_events(void **state)
{
  struct selftest_expect x;
  (void)state;
  memset(&x, 0, sizeof(x));
  x.dotnet_pid = 5000;
  selftest_facts_init(&facts, &x);
  clr_event(0, 152, 5000);
  clr_event(0, 143, 5000);
  clr_event(1, 144, 5004); /* another process's rundown */
  expect_verdict("DOTNET_CHILD", SELFTEST_FAIL);
  clr_event(1, 144, 5000);
  expect_verdict("DOTNET_CHILD", SELFTEST_PASS);
  outcome.dotnet_rc = ETWCAP_E_NOENT;
  snprintf(outcome.dotnet_why, sizeof(outcome.dotnet_why), "no .NET runtime here");
  expect_verdict("DOTNET_CHILD", SELFTEST_SKIP);
  outcome.dotnet_rc = ETWCAP_E_TIMEOUT;
  expect_verdict("DOTNET_CHILD", SELFTEST_FAIL);
}

/* Own events: EVENT_HEADER with the schema in EVENT_SCHEMA_TL, as ETW logs
 * what EventWriteTransfer was given. */
static struct selftest_tl_event tl[SELFTEST_MAX_OWN];

static void own_event(unsigned i, const char *name, uint32_t seq, uint64_t ts)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  assert_int_equal(selftest_tl_event_build(&tl[i], name, seq, 4242), 0);
  ev.header_type = ETW_HDR_EVENT_HEADER64;
  ev.pointer_size = 8;
  ev.has = ETW_HAS_PID_TID | ETW_HAS_TIMESTAMP | ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
  assert_int_equal(selftest_tl_provider_guid(&ev.provider), 0);
  ev.channel = SELFTEST_TL_CHANNEL;
  ev.timestamp = ts;
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_EVENT_SCHEMA_TL;
  ev.ext[0].size = (uint16_t)tl[i].meta_len;
  ev.ext[0].data = tl[i].meta;
  ev.user_data = tl[i].payload;
  ev.user_len = (uint32_t)tl[i].payload_len;
  selftest_scan_event(&facts, &ev);
}

static void expect_own(void)
{
  struct selftest_expect x;
  memset(&x, 0, sizeof(x));
  assert_int_equal(selftest_tl_provider_guid(&x.own_provider), 0);
  x.own_events = SELFTEST_TL_STEPS + 1;
  x.own_last_name = SELFTEST_TL_STOP;
  selftest_facts_init(&facts, &x);
}

static void own_events_pass_when_all_come_in_order(void **state)
{
  unsigned i;
  (void)state;
  expect_own();
  for (i = 1; i <= SELFTEST_TL_STEPS; i++)
    own_event(i, SELFTEST_TL_STEP, i, 100 * i);
  own_event(0, SELFTEST_TL_STOP, SELFTEST_TL_STEPS + 1, 10000);
  expect_verdict("OWN_EVENTS", SELFTEST_PASS);
}

static void own_events_fail_when_one_is_missing_or_out_of_order(void **state)
{
  unsigned i;
  (void)state;
  expect_own();
  for (i = 2; i <= SELFTEST_TL_STEPS; i++)
    own_event(i, SELFTEST_TL_STEP, i, 100 * i);
  own_event(0, SELFTEST_TL_STOP, SELFTEST_TL_STEPS + 1, 10000);
  expect_verdict("OWN_EVENTS", SELFTEST_FAIL); /* Seq 1 missing */
  own_event(1, SELFTEST_TL_STEP, 1, 50000);    /* now late: after Seq 2 */
  expect_verdict("OWN_EVENTS", SELFTEST_FAIL);
}

/* --- what the selftest saw outside the trace -------------------------------- */

static void the_trigger_sessions_and_health_come_from_the_outcome(void **state)
{
  (void)state;
  outcome.trigger_expected = "StopOnEtwEvent";
  expect_verdict("TRIGGER", SELFTEST_FAIL); /* no manifest read */
  outcome.manifest_read = 1;
  expect_verdict("TRIGGER", SELFTEST_FAIL); /* nothing fired */
  snprintf(outcome.trigger_fired, sizeof(outcome.trigger_fired), "MaxCollectSec");
  expect_verdict("TRIGGER", SELFTEST_FAIL);
  snprintf(outcome.trigger_fired, sizeof(outcome.trigger_fired), "StopOnEtwEvent");
  expect_verdict("TRIGGER", SELFTEST_PASS);
  expect_verdict("NO_SESSIONS_LEFT", SELFTEST_FAIL); /* not listed */
  outcome.sessions_listed = 1;
  outcome.sessions_left = 1;
  expect_verdict("NO_SESSIONS_LEFT", SELFTEST_FAIL);
  outcome.sessions_left = 0;
  expect_verdict("NO_SESSIONS_LEFT", SELFTEST_PASS);
  outcome.health_warnings = 1;
  expect_verdict("HEALTH", SELFTEST_FAIL);
  outcome.health_warnings = 0;
  expect_verdict("HEALTH", SELFTEST_PASS);
  outcome.capture_rc = ETWCAP_E_ACCES;
  expect_verdict("CAPTURE", SELFTEST_FAIL);
}

static void losses_in_a_session_fail_nothing_lost(void **state)
{
  (void)state;
  thread_event(36, 1000, 1);
  expect_verdict("NOTHING_LOST", SELFTEST_PASS);
  outcome.sessions_events_lost = 3;
  expect_verdict("NOTHING_LOST", SELFTEST_FAIL);
  outcome.sessions_events_lost = 0;
  selftest_scan_losses(&facts, 0, 1);
  expect_verdict("NOTHING_LOST", SELFTEST_FAIL);
}

static void every_check_has_a_distinct_upper_case_name_and_a_description(void **state)
{
  size_t i, j;
  (void)state;
  for (i = 0; i < selftest_check_count; i++) {
    const char *n = selftest_checks[i].name;
    assert_true(strlen(n) > 0 && strlen(selftest_checks[i].what) > 10);
    for (j = 0; n[j]; j++)
      assert_true((n[j] >= 'A' && n[j] <= 'Z') || n[j] == '_');
    for (j = i + 1; j < selftest_check_count; j++)
      assert_string_not_equal(n, selftest_checks[j].name);
    assert_ptr_equal(selftest_check_find(n), &selftest_checks[i]);
  }
}

/* --- the TraceLogging bytes ---------------------------------------------------- */

static void the_event_metadata_decodes_with_etwcaps_tracelogging_reader(void **state)
{
  struct selftest_tl_event e;
  struct tl_meta m;
  struct tv_value first, pid;
  (void)state;
  assert_int_equal(selftest_tl_event_build(&e, SELFTEST_TL_STOP, 6, 4242), 0);
  /* TraceLoggingProvider.h: UINT16 size, UINT8 tags (0), "SelftestStop\0",
   * "Seq\0" TlgInUINT32 (8), "Pid\0" 8. */
  assert_int_equal(e.meta_len, 2 + 1 + 13 + 5 + 5);
  assert_int_equal(e.meta[0] | e.meta[1] << 8, e.meta_len);
  assert_int_equal(e.meta[2], 0);
  assert_int_equal(tl_parse_bytes(e.meta, e.meta_len, &m), 1);
  assert_string_equal(m.name, "SelftestStop");
  assert_int_equal(tl_first(&m, e.payload, e.payload_len, 8, &first), 1);
  assert_int_equal(first.type, TV_UINT); /* Seq comes first */
  assert_int_equal(first.u, 6);
  assert_int_equal(tl_find(&m, e.payload, e.payload_len, 8, "Pid", &pid), 1);
  assert_int_equal(pid.u, 4242);
}

static void the_provider_traits_and_guid_follow_the_documented_forms(void **state)
{
  uint8_t traits[64];
  struct etw_guid g;
  char text[40];
  size_t n;
  (void)state;
  /* learn.microsoft.com "Provider Traits": UINT16 size, then the name. */
  n = selftest_tl_provider_traits(traits, sizeof(traits));
  assert_int_equal(n, 2 + sizeof(SELFTEST_TL_PROVIDER));
  assert_int_equal(traits[0] | traits[1] << 8, n);
  assert_string_equal((const char *)traits + 2, "etwcap-Selftest");
  assert_int_equal(selftest_tl_provider_traits(traits, 4), 0);
  /* The EventSource name hash is tested against .NET's values in
   * test_eventsource_guid; here only that the name goes through it. */
  assert_int_equal(selftest_tl_provider_guid(&g), 0);
  assert_false(guid_is_zero(&g));
  guid_format(&g, text);
  assert_int_equal(strlen(text), 36);
}

/* --- the phases ----------------------------------------------------------------- */

/* The census of a real trace, checked against the golden listing, then
 * judged as each phase's trace: it has CPU samples and a start rundown
 * but no CSwitch, which every phase needs. */
static void phase_checks_fail_on_a_real_trace_without_context_switches(void **state)
{
  struct selftest_census c;
  char path[1024];
  size_t i;
  (void)state;
  test_sample_path("ms-perfview__net.4.5.2.x64.etl.zip", path, sizeof(path));
  memset(&c, 0, sizeof(c));
  assert_int_equal(selftest_census_file(path, &c), 0);
  /* golden: 79528 hook=0x0f2e, no 0x0524, 32 hook=0x0303 and 32 0x0304,
   * 1763 hook=0x1403, 33011 events of a669021c. */
  assert_int_equal(c.read, 1);
  assert_int_equal(c.samples, 79528);
  assert_int_equal(c.cswitch, 0);
  assert_int_equal(c.process_dcstart, 32);
  assert_int_equal(c.process_dcend, 32);
  assert_int_equal(c.image_dcstart, 1763);
  assert_int_equal(c.clr_rundown, 33011);
  outcome.os_build = 20348;
  outcome.dotnet_rc = ETWCAP_E_NOENT;
  outcome.snapshot.ran = outcome.segments.ran = 1;
  outcome.snapshot.census[0] = c;
  outcome.snapshot.census_count = 1;
  for (i = 0; i < 3; i++)
    outcome.segments.census[i] = c;
  outcome.segments.census_count = 3;
  for (i = 0; i < 2; i++) {
    outcome.routes[i].ran = 1;
    outcome.routes[i].census[0] = c;
    outcome.routes[i].census_count = 1;
  }
  expect_verdict("SNAPSHOT", SELFTEST_FAIL);
  expect_verdict("SEGMENTS", SELFTEST_FAIL);
  expect_verdict("ROUTES", SELFTEST_FAIL);
  assert_non_null(strstr(judged("ROUTES")->detail, "lacks CSwitch"));
  outcome.os_build = 19045;
  expect_verdict("ROUTES", SELFTEST_SKIP); /* one route before build 20348 */
}

/* --- one trace with everything, less one thing at a time ---------------------------- */

/* A census of hand-built events: what a phase's trace holds. */
static void census_of_events(struct selftest_census *c, int cswitch, int samples, int rundown)
{
  static struct selftest_facts saved;
  memcpy(&saved, &facts, sizeof(facts));
  selftest_facts_init(&facts, NULL);
  if (cswitch)
    thread_event(36, 70000, 1);
  if (samples)
    sample_of(8, 70001, 1);
  if (rundown) {
    process_event(3, 8);
    image_event(0x14, 3, 70002, 8, NTDLL);
    clr_event(1, 144, 8);
  }
  selftest_census_of(&facts, c);
  selftest_facts_release(&facts);
  memcpy(&facts, &saved, sizeof(facts));
}

#define SELF 4240u
#define CHILD 4242u
#define BUSY 4244u
#define DOTNET 4248u

/* Everything every check needs, but what `omit` (a check's name, or "")
 * names: its one need is left out. */
static void whole_world(const char *omit)
{
  struct selftest_expect x;
  unsigned i;
#define KEEP(name) strcmp(omit, name)
  memset(&x, 0, sizeof(x));
  x.child_pid = CHILD;
  x.self_pid = SELF;
  x.busy_tid = BUSY;
  x.dotnet_pid = DOTNET;
  x.dll_name = "version.dll";
  assert_int_equal(selftest_tl_provider_guid(&x.own_provider), 0);
  x.own_events = SELFTEST_TL_STEPS + 1;
  x.own_last_name = SELFTEST_TL_STOP;
  selftest_facts_init(&facts, &x);
  memset(&outcome, 0, sizeof(outcome));
  payload_used = 0;
  /* the trace */
  process_event(1, CHILD);
  if (KEEP("PROCESS"))
    process_event(2, CHILD);
  if (KEEP("IMAGE_LOAD"))
    image_identity(8000);
  image_load(8000, "\\Device\\HarddiskVolume3\\Windows\\System32\\version.dll");
  thread_event(36, 1000, KEEP("CSWITCH") != 0);
  if (KEEP("READY_THREAD"))
    thread_event(50, 1100, 1);
  process_event(3, SELF);
  image_event(0x14, 3, 3000, KEEP("START_RUNDOWN") ? SELF : 8, NTDLL);
  for (i = 0; i < (KEEP("SAMPLE_RATE") ? 300u : 100u); i++)
    sample_of(BUSY, 10000 + i, KEEP("CPU_SAMPLES") != 0);
  for (i = 1; i <= SELFTEST_TL_STEPS; i++)
    if (i != 3 || KEEP("OWN_EVENTS"))
      own_event(i, SELFTEST_TL_STEP, i, 100 * i);
  own_event(0, SELFTEST_TL_STOP, SELFTEST_TL_STEPS + 1, 10000);
  clr_event(0, 152, DOTNET);
  clr_event(0, 143, DOTNET);
  if (KEEP("CLR_RUNDOWN")) {
    clr_event(1, 144, 8);
    if (KEEP("DOTNET_CHILD"))
      clr_event(1, 144, DOTNET);
  }
  if (!KEEP("NOTHING_LOST"))
    selftest_scan_losses(&facts, 1, 0);
  /* outside it */
  outcome.capture_rc = KEEP("CAPTURE") ? 0 : ETWCAP_E_SYSTEM;
  outcome.busy_cpu_known = 1;
  outcome.busy_cpu_100ns = 3000000;
  outcome.sample_interval_100ns = 10000;
  outcome.trigger_expected = "StopOnEtwEvent";
  outcome.manifest_read = 1;
  snprintf(outcome.trigger_fired, sizeof(outcome.trigger_fired), "%s",
           KEEP("TRIGGER") ? "StopOnEtwEvent" : "");
  outcome.health_warnings = KEEP("HEALTH") ? 0 : 1;
  outcome.sessions_listed = 1;
  outcome.sessions_left = KEEP("NO_SESSIONS_LEFT") ? 0 : 1;
  snprintf(outcome.dotnet_what, sizeof(outcome.dotnet_what), "Windows PowerShell");
  outcome.os_build = 20348;
  outcome.snapshot.ran = outcome.segments.ran = outcome.routes[0].ran = outcome.routes[1].ran = 1;
  census_of_events(&outcome.snapshot.census[0], KEEP("SNAPSHOT") != 0, 1, 1);
  outcome.snapshot.census_count = 1;
  for (i = 0; i < 3; i++)
    census_of_events(&outcome.segments.census[i], 1, i != 1 || KEEP("SEGMENTS"), 1);
  outcome.segments.census_count = 3;
  census_of_events(&outcome.routes[0].census[0], 1, 1, 1);
  census_of_events(&outcome.routes[1].census[0], 1, 1, KEEP("ROUTES") != 0);
  outcome.routes[0].census_count = outcome.routes[1].census_count = 1;
#undef KEEP
}

/* The checks that also fail when `omit`'s need is left out, because they
 * need the same events: every CPU sample without a stack fails the rate
 * (half need one), and no CLR rundown at all leaves the .NET child's
 * methods unnamed. */
static int fails_too(const char *omit, const char *name)
{
  return (!strcmp(omit, "CPU_SAMPLES") && !strcmp(name, "SAMPLE_RATE")) ||
         (!strcmp(omit, "CLR_RUNDOWN") && !strcmp(name, "DOTNET_CHILD"));
}

static void each_check_fails_alone_on_the_trace_that_lacks_its_need(void **state)
{
  size_t i, j;
  (void)state;
  whole_world("");
  selftest_judge_all(&facts, &outcome, results);
  for (j = 0; j < selftest_check_count; j++)
    if (results[j].verdict != SELFTEST_PASS)
      fail_msg("the whole trace: %s %s", selftest_checks[j].name, results[j].detail);
  for (i = 0; i < selftest_check_count; i++) {
    const char *omit = selftest_checks[i].name;
    selftest_facts_release(&facts);
    whole_world(omit);
    selftest_judge_all(&facts, &outcome, results);
    for (j = 0; j < selftest_check_count; j++) {
      enum selftest_verdict want =
          j == i || fails_too(omit, selftest_checks[j].name) ? SELFTEST_FAIL : SELFTEST_PASS;
      if (results[j].verdict != want)
        fail_msg("without %s's need: %s %s %s", omit, selftest_verdict_name(results[j].verdict),
                 selftest_checks[j].name, results[j].detail);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T(a_sample_with_cpu_samples_and_stacks_passes_cpu_samples),
    T(a_sample_without_context_switches_fails_cswitch),
    T(a_sample_with_process_start_and_end_passes_process),
    T(a_sample_with_identified_image_loads_passes_image_load),
    T(clr_rundown_passes_skips_and_fails_by_what_ran),
    T(a_sample_with_the_kernel_start_rundown_passes_start_rundown),
    T(a_sample_without_a_start_rundown_fails_it),
    T(a_sample_without_the_busy_threads_samples_fails_sample_rate),
    T(a_sample_whose_dotnet_process_lacks_a_rundown_fails_dotnet_child),
    T(someone_elses_tracelogging_events_fail_own_events),
    T(a_missing_trace_fails_every_trace_check),
    T(context_switches_pass_only_with_stacks),
    T(a_stack_in_an_extended_item_counts),
    T(the_child_process_must_both_start_and_end),
    T(the_loaded_dll_needs_its_identity_event),
    T(the_start_rundown_must_name_etwcap_and_its_ntdll),
    T(the_busy_thread_is_sampled_at_the_set_rate_with_stacks),
    T(the_dotnet_child_needs_loader_jit_and_rundown_events),
    T(own_events_pass_when_all_come_in_order),
    T(own_events_fail_when_one_is_missing_or_out_of_order),
    T(the_trigger_sessions_and_health_come_from_the_outcome),
    T(losses_in_a_session_fail_nothing_lost),
    T(every_check_has_a_distinct_upper_case_name_and_a_description),
    T(the_event_metadata_decodes_with_etwcaps_tracelogging_reader),
    T(the_provider_traits_and_guid_follow_the_documented_forms),
    T(phase_checks_fail_on_a_real_trace_without_context_switches),
    T(each_check_fails_alone_on_the_trace_that_lacks_its_need),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
