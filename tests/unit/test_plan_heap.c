/* /OSHeapProcess, /OSHeapExe and /OSHeapMaxMB in the plan (plan_heap.c).
 * Expected values come from PerfView and TraceEvent: the session name
 * s_UserModeSessionName + "Heap", the file Path.ChangeExtension(DataFile,
 * ".userheap.etl"), BufferSizeMB = Max(256, BufferSizeMB * 2), never
 * circular, MaximumFileMB = OSHeapMaxMB, "cannot both be specified"
 * (CommandProcessor Start); the heap provider GUID, the extension block
 * (EnableFlags 0x80FF0000 | offset; header "total len in DWORDS, next is
 * Extension Count"; items "len (including header) in DWORDS, next is Type";
 * ETW_EXT_PIDS 2, ETW_EXT_STACKWALK_FILTER 3; hooks 0x1021, 0x1022) from
 * ETWKernelControl.StartWindowsHeapSession and SaveExtensions; VirtualAlloc
 * 0x4000 (KernelTraceEventParser.Keywords). */
#include "tests/fakes/test_support.h"

#include "etw/plan/plan.h"
#include "etw/plan/plan_describe.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

static const struct plan_session *role(const struct plan *p, enum plan_role r)
{
  size_t i;
  for (i = 0; i < p->session_count; i++)
    if (p->sessions[i].role == r)
      return &p->sessions[i];
  return NULL;
}

static int noted(const struct plan *p, const char *text)
{
  size_t i;
  for (i = 0; i < p->note_count; i++)
    if (strstr(p->notes[i], text))
      return 1;
  return 0;
}

static void heap_process_gets_perfviews_session(void **state)
{
  struct plan_options o;
  struct plan p;
  const struct plan_session *h;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 1234;
  o.os_heap_max_mb = 100;
  o.data_file = "trace.etl";
  assert_int_equal(plan_build(&o, &p), 0);
  h = role(&p, PLAN_ROLE_HEAP);
  assert_non_null(h);
  assert_string_equal(h->name, "etwcapHeap");
  assert_string_equal(h->file, "trace.userheap.etl");
  assert_int_equal(h->when, PLAN_AT_START);
  /* Max(256, 256 * 2) MB of 64 KB buffers; MaximumBuffers = Min*5/4+10. */
  assert_int_equal(h->buffer_size_kb, 64);
  assert_int_equal(h->minimum_buffers, 512 * 1024 / 64);
  assert_int_equal(h->maximum_buffers, 8192 * 5 / 4 + 10);
  assert_true(h->log_file_mode & PLAN_FILE_MODE_SEQUENTIAL);
  assert_false(h->log_file_mode & (PLAN_FILE_MODE_CIRCULAR | PLAN_BUFFERING_MODE));
  assert_int_equal(h->maximum_file_size_mb, 100);
  assert_int_equal(h->heap_pid, 1234);
  assert_string_equal(h->heap_exe, "");
  assert_int_equal(h->heap_stack_hook_count, 2);
  assert_int_equal(h->heap_stack_hooks[0], 0x1021);
  assert_int_equal(h->heap_stack_hooks[1], 0x1022);
  assert_int_equal(h->provider_count, 0);
  assert_true(role(&p, PLAN_ROLE_KERNEL)->kernel_keywords & 0x4000); /* VirtualAlloc */
  assert_true(role(&p, PLAN_ROLE_KERNEL)->stack_keywords & 0x4000);
  plan_release(&p);
}

static void heap_buffers_are_twice_the_others(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 8;
  o.buffer_size_mb = 300;
  assert_int_equal(plan_build(&o, &p), 0);
  assert_int_equal(role(&p, PLAN_ROLE_HEAP)->minimum_buffers, 600 * 1024 / 64);
  assert_int_equal(role(&p, PLAN_ROLE_HEAP)->maximum_file_size_mb, 0);
  /* collect's CircularMB 500 without /OSHeapMaxMB: PerfView's warning. */
  assert_true(noted(&p, "does not use circular buffering"));
  plan_release(&p);
}

static void session_name_prefixes_the_heap_session(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 8;
  o.session_name = "Mine";
  assert_int_equal(plan_build(&o, &p), 0);
  assert_string_equal(role(&p, PLAN_ROLE_HEAP)->name, "MineHeap");
  plan_release(&p);
}

static void heap_exe_names_the_program(void **state)
{
  static const char *const given[] = { "notepad.exe", "Notepad.EXE", "notepad" };
  static const char *const want[] = { "notepad.exe", "Notepad.EXE", "notepad.exe" };
  size_t i;
  (void)state;
  for (i = 0; i < 3; i++) {
    struct plan_options o;
    struct plan p;
    plan_options_init(&o);
    o.os_heap_exe = given[i];
    assert_int_equal(plan_build(&o, &p), 0);
    assert_string_equal(role(&p, PLAN_ROLE_HEAP)->heap_exe, want[i]);
    assert_int_equal(role(&p, PLAN_ROLE_HEAP)->heap_pid, 0);
    assert_true(noted(&p, "TracingFlags"));
    plan_release(&p);
  }
}

static void bad_heap_exe_is_a_usage_error(void **state)
{
  static const char *const bad[] = { "C:\\Windows\\notepad.exe", "bin/app.exe", "app.dll",
                                     "app.exe.config", ".exe", "a\tb.exe", "a?.exe", "" };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct plan_options o;
    struct plan p;
    plan_options_init(&o);
    o.os_heap_exe = bad[i];
    if (plan_build(&o, &p) != ETWCAP_E_USAGE)
      fail_msg("/OSHeapExe:%s was accepted", bad[i]);
    assert_non_null(strstr(p.error, "/OSHeapExe"));
    plan_release(&p);
  }
}

static void process_and_exe_together_are_refused(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 42;
  o.os_heap_exe = "notepad.exe";
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "cannot both be given"));
  plan_release(&p);
}

static void negative_pid_is_refused(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = -4;
  assert_int_equal(plan_build(&o, &p), ETWCAP_E_USAGE);
  assert_non_null(strstr(p.error, "/OSHeapProcess"));
  plan_release(&p);
}

static void max_mb_alone_is_a_note(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_max_mb = 50;
  assert_int_equal(plan_build(&o, &p), 0);
  assert_null(role(&p, PLAN_ROLE_HEAP));
  assert_false(role(&p, PLAN_ROLE_KERNEL)->kernel_keywords & 0x4000);
  assert_true(noted(&p, "/OSHeapMaxMB has no effect"));
  plan_release(&p);
}

static void no_kernel_events_keeps_the_heap_session(void **state)
{
  struct plan_options o;
  struct plan p;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 1234;
  o.kernel_events = "None";
  assert_int_equal(plan_build(&o, &p), 0);
  assert_null(role(&p, PLAN_ROLE_KERNEL)); /* PerfView adds VirtualAlloc only to a kernel session */
  assert_non_null(role(&p, PLAN_ROLE_HEAP));
  plan_release(&p);
}

/* The words TraceEvent's SaveExtensions writes for pid 1234 and the two
 * hooks, assembled by hand from its layout. */
static void extension_block_is_traceevents(void **state)
{
  static const uint32_t want[] = { 6u | 2u << 16, 2u | 2u << 16, 1234u,
                                   3u | 3u << 16, 0x1021u, 0x1022u };
  struct plan_options o;
  struct plan p;
  uint32_t words[PLAN_HEAP_EXTENSION_MAX_WORDS], few[2];
  size_t n;
  (void)state;
  plan_options_init(&o);
  o.os_heap_pid = 1234;
  assert_int_equal(plan_build(&o, &p), 0);
  memset(words, 0xEE, sizeof(words));
  n = plan_heap_extension(role(&p, PLAN_ROLE_HEAP), words, PLAN_HEAP_EXTENSION_MAX_WORDS);
  assert_int_equal(n, 6);
  assert_memory_equal(words, want, sizeof(want));
  assert_int_equal(words[6], 0xEEEEEEEEu);
  /* A short buffer gets what fits, and the size it needs. */
  assert_int_equal(plan_heap_extension(role(&p, PLAN_ROLE_HEAP), few, 2), 6);
  assert_memory_equal(few, want, sizeof(few));
  plan_release(&p);
}

static void plan_json_shows_the_heap_session(void **state)
{
  struct plan_options o;
  struct plan p;
  char *json = NULL;
  (void)state;
  plan_options_init(&o);
  o.os_heap_exe = "app.exe";
  assert_int_equal(plan_build(&o, &p), 0);
  assert_int_equal(plan_to_json(&p, &json), 0);
  assert_non_null(strstr(json, "\"role\": \"heap\""));
  assert_non_null(strstr(json, "\"heap\": {\"provider\": \"222962ab-6180-4b88-a825-346b75f2a24a\", "
                               "\"pid\": null, \"exe\": \"app.exe\", \"stackHooks\": [\"0x1021\", "
                               "\"0x1022\"]}"));
  etwcap_free(json);
  plan_release(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(heap_process_gets_perfviews_session),
    cmocka_unit_test(heap_buffers_are_twice_the_others),
    cmocka_unit_test(session_name_prefixes_the_heap_session),
    cmocka_unit_test(heap_exe_names_the_program),
    cmocka_unit_test(bad_heap_exe_is_a_usage_error),
    cmocka_unit_test(process_and_exe_together_are_refused),
    cmocka_unit_test(negative_pid_is_refused),
    cmocka_unit_test(max_mb_alone_is_a_note),
    cmocka_unit_test(no_kernel_events_keeps_the_heap_session),
    cmocka_unit_test(extension_block_is_traceevents),
    cmocka_unit_test(plan_json_shows_the_heap_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
