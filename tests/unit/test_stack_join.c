/* The join of CPU samples to their stacks (etw/stacks/stack_join.c) and
 * the frame names (etw/stacks/stack_frames.c) on hand-made events.  The
 * layouts are TraceEvent's (KernelTraceEventParser): SampleProf
 * (InstructionPointer, ThreadId, Count), StackWalk opcode 32
 * (EventTimeStamp, StackProcess, StackThread, frames leaf first),
 * StackKeyKernel 37 / StackKeyUser 38 (the same head, then StackKey),
 * KeyDelete 35 / KeyRundown 36 (StackKey, then the frames); the rules are
 * TraceLog's (microsoft/perfview src/TraceEvent/TraceLog.cs) as
 * docs/stacks.md states them.  8-byte pointers; a kernel address is
 * 0xFFFF... (TraceLog.IsWindowsKernelAddress).  Times are given as both
 * the raw timestamp and the filetime. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_encode.h"
#include "etw/stacks/stack_frames.h"
#include "etw/stacks/stack_join.h"

#include <string.h>

#define K1 0xFFFFF80000001000ull
#define K2 0xFFFFF80000002000ull
#define U1 0x00007FF600001000ull
#define U2 0x00007FF600002000ull
#define U3 0x00007FF600003000ull

static uint8_t payload[4096];
/* Raw timestamps are the filetimes here. */
static const struct etl_clock same_time = { 1.0, 0 };

static void init(struct stack_join *s)
{
  stack_join_init(s);
  s->clock = &same_time;
}

/* Little-endian stores of 2, 4 or 8 bytes (etl_encode.h). */
static void put(uint8_t *p, uint64_t v, size_t n)
{
  if (n == 8)
    etl_put64(p, v);
  else if (n == 4)
    etl_put32(p, (uint32_t)v);
  else
    etl_put16(p, (uint16_t)v);
}

static struct etw_event kernel_event(uint8_t group, uint8_t opcode, uint16_t cpu, uint64_t ts,
                                     size_t len)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.is_kernel = 1;
  ev.pointer_size = 8;
  ev.header_type = ETW_HDR_PERFINFO64;
  ev.group = group;
  ev.opcode = opcode;
  ev.cpu = cpu;
  ev.timestamp = ts;
  ev.has = ETW_HAS_TIMESTAMP;
  ev.user_data = payload;
  ev.user_len = (uint32_t)len;
  return ev;
}

static void sample(struct stack_join *s, uint16_t cpu, uint64_t ts, uint32_t tid, uint64_t ip)
{
  struct etw_event ev = kernel_event(0x0F, 46, cpu, ts, 16);
  put(payload, ip, 8);
  put(payload + 8, tid, 4);
  put(payload + 12, 1, 4);
  assert_true(stack_join_sample(s, &ev, (int64_t)ts) > 0);
}

/* A StackWalk (n frames) naming the event at `names` of thread tid. */
static void walk(struct stack_join *s, uint16_t cpu, uint64_t ts, uint64_t names,
                 uint32_t pid, uint32_t tid, const uint64_t *frames, size_t n)
{
  struct etw_event ev = kernel_event(0x18, 32, cpu, ts, 16 + 8 * n);
  size_t i;
  put(payload, names, 8);
  put(payload + 8, pid, 4);
  put(payload + 12, tid, 4);
  for (i = 0; i < n; i++)
    put(payload + 16 + 8 * i, frames[i], 8);
  assert_int_equal(stack_join_walk(s, &ev, (int64_t)ts), 0);
}

static void key_use(struct stack_join *s, uint8_t opcode, uint16_t cpu, uint64_t ts,
                    uint64_t names, uint32_t pid, uint32_t tid, uint64_t key)
{
  struct etw_event ev = kernel_event(0x18, opcode, cpu, ts, 24);
  put(payload, names, 8);
  put(payload + 8, pid, 4);
  put(payload + 12, tid, 4);
  put(payload + 16, key, 8);
  assert_int_equal(stack_join_walk(s, &ev, (int64_t)ts), 0);
}

static void key_definition(struct stack_join *s, uint8_t opcode, uint16_t cpu, uint64_t ts,
                           uint64_t key, const uint64_t *frames, size_t n)
{
  struct etw_event ev = kernel_event(0x18, opcode, cpu, ts, 8 + 8 * n);
  size_t i;
  put(payload, key, 8);
  for (i = 0; i < n; i++)
    put(payload + 8 + 8 * i, frames[i], 8);
  assert_int_equal(stack_join_walk(s, &ev, (int64_t)ts), 0);
}

/* Sample i's stack, leaf first, into out: its length, or -1 for none. */
static int stack_of(const struct stack_join *s, size_t i, uint64_t *out, size_t cap)
{
  const struct stack_fragment *part[2];
  unsigned n, k;
  size_t len = 0, j;
  if (!stack_join_of(s, &s->samples[i], part, &n))
    return -1;
  for (k = 0; k < n; k++)
    for (j = 0; j < part[k]->count && len < cap; j++)
      out[len++] = s->addresses[part[k]->first + j];
  return (int)len;
}

static void assert_stack(const struct stack_join *s, size_t i, const uint64_t *want,
                         size_t n)
{
  uint64_t got[64];
  size_t j;
  assert_int_equal(stack_of(s, i, got, 64), (int)n);
  for (j = 0; j < n; j++)
    assert_true(got[j] == want[j]);
}

static void a_stackwalk_joins_the_sample_it_names(void **state)
{
  static const uint64_t user[] = { U1, U2, U3 };
  struct stack_join s;
  (void)state;
  init(&s);
  sample(&s, 0, 100, 7, U1);
  sample(&s, 0, 110, 8, U2); /* another thread, no stack */
  walk(&s, 0, 101, 100, 40, 7, user, 3);
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, user, 3);
  assert_int_equal(stack_of(&s, 1, NULL, 0), -1);
  stack_join_release(&s);
}

static void stack_keys_take_their_definitions(void **state)
{
  static const uint64_t kern[] = { K1, K2 }, user[] = { U1, U2 };
  static const uint64_t both[] = { K1, K2, U1, U2 };
  struct stack_join s;
  (void)state;
  init(&s);
  sample(&s, 1, 100, 7, K1);
  key_use(&s, 37, 1, 101, 100, 40, 7, 0xFFFFA00000000010ull);
  key_use(&s, 38, 1, 102, 100, 40, 7, 0xFFFFA00000000020ull);
  /* The definitions come at the end (KeyRundown), in either order. */
  key_definition(&s, 36, 1, 900, 0xFFFFA00000000020ull, user, 2);
  key_definition(&s, 36, 1, 901, 0xFFFFA00000000010ull, kern, 2);
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, both, 4);
  stack_join_release(&s);
}

/* The same key is used again after KeyDelete: each use takes the first
 * definition at or after it, whatever the order of the file (the second
 * CPU's buffer is read first). */
static void a_reused_key_takes_the_next_definition(void **state)
{
  static const uint64_t first[] = { U1, U2 }, second[] = { U3, U2 };
  struct stack_join s;
  (void)state;
  init(&s);
  key_definition(&s, 35, 1, 200, 0x5000, first, 2);
  key_definition(&s, 35, 1, 400, 0x5000, second, 2);
  sample(&s, 0, 100, 7, U1);
  key_use(&s, 38, 0, 101, 100, 40, 7, 0x5000);
  sample(&s, 0, 300, 7, U3);
  key_use(&s, 38, 0, 301, 300, 40, 7, 0x5000);
  sample(&s, 0, 500, 7, U3);
  key_use(&s, 38, 0, 501, 500, 40, 7, 0x5000); /* never defined again */
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, first, 2);
  assert_stack(&s, 1, second, 2);
  assert_int_equal(stack_of(&s, 2, NULL, 0), -1);
  stack_join_release(&s);
}

/* A sample taken in kernel mode gets its user part when the thread
 * leaves the kernel: the next stack of that thread that starts in user
 * mode, logged later and on another CPU.  Every kernel part waiting on
 * the thread takes it; one still waiting at the end is a stack of its
 * own. */
static void a_kernel_sample_takes_the_user_part_logged_later(void **state)
{
  static const uint64_t kern[] = { K1, K2 }, kern2[] = { K2 }, user[] = { U1, U2 };
  static const uint64_t both[] = { K1, K2, U1, U2 }, both2[] = { K2, U1, U2 };
  struct stack_join s;
  (void)state;
  init(&s);
  sample(&s, 0, 100, 7, K1);
  walk(&s, 0, 101, 100, 40, 7, kern, 2);
  sample(&s, 0, 200, 7, K2);
  walk(&s, 0, 201, 200, 40, 7, kern2, 1);
  sample(&s, 0, 600, 7, K1); /* after the user part: never gets one */
  walk(&s, 0, 601, 600, 40, 7, kern, 2);
  walk(&s, 3, 500, 100, 40, 7, user, 2); /* CPU 3, stored after CPU 0's buffer */
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, both, 4);
  assert_stack(&s, 1, both2, 3);
  assert_stack(&s, 2, kern, 2);
  stack_join_release(&s);
}

/* Process 0 (Idle) and 4 (System) have no user mode: the kernel part is
 * the whole stack and no later user part of the thread joins it. */
static void the_idle_process_needs_no_user_part(void **state)
{
  static const uint64_t kern[] = { K1, K2 }, user[] = { U1 };
  struct stack_join s;
  (void)state;
  init(&s);
  sample(&s, 0, 100, 0, K1);
  walk(&s, 0, 101, 100, 0, 0, kern, 2);
  walk(&s, 0, 300, 250, 0, 0, user, 1);
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, kern, 2);
  stack_join_release(&s);
}

/* A STACK_TRACE64 item of the sample itself (MatchId, then the frames). */
static void an_extended_stack_item_is_the_events_stack(void **state)
{
  static const uint64_t user[] = { U2, U3 };
  struct stack_join s;
  struct etw_event ev;
  uint8_t item[8 + 16];
  (void)state;
  init(&s);
  sample(&s, 0, 100, 7, U2);
  ev = kernel_event(0x0F, 46, 0, 100, 16);
  ev.tid = 7;
  put(item, 0, 8);
  put(item + 8, U2, 8);
  put(item + 16, U3, 8);
  ev.ext_count = 1;
  ev.ext[0].type = ETW_EXT_STACK_TRACE64;
  ev.ext[0].size = sizeof(item);
  ev.ext[0].data = item;
  assert_int_equal(stack_join_ext(&s, &ev, 100, 1), 0);
  assert_int_equal(stack_join_finish(&s), 0);
  assert_stack(&s, 0, user, 2);
  stack_join_release(&s);
}

/* --- frame names ---------------------------------------------------------- */

/* At the end every process is known but 43, which never starts. */
static int known(void *ctx, uint32_t pid)
{
  (void)ctx;
  return pid != 43;
}

/* A kernel Image event as image_identity_parse_image_fields leaves it;
 * the processes 42 and 43 are not known yet when their images come (42's
 * start is stored later in the file). */
static void image(struct stack_frames *f, uint8_t opcode, uint32_t pid, uint64_t base,
                  const char *path, int64_t when)
{
  static uint8_t name[512];
  struct image_event img;
  size_t i, n = strlen(path);
  for (i = 0; i <= n; i++)
    put(name + 2 * i, (uint8_t)path[i], 2);
  memset(&img, 0, sizeof(img));
  img.opcode = opcode;
  img.pointer_size = 8;
  img.image_base = base;
  img.image_size = 0x10000;
  img.process_id = pid;
  img.file_name = name;
  img.file_name_bytes = 2 * (n + 1);
  assert_int_equal(stack_frames_image(f, &img, when, pid != 42 && pid != 43), 0);
}

/* MethodLoadVerbose (runtime, rundown 0) or MethodDCStart/EndVerbose
 * (rundown 1): id 143 opens, 144 closes. */
static void method(struct stack_frames *f, uint16_t id, int rundown, uint32_t pid,
                   uint64_t start, uint32_t size, const char *ns, const char *name, int64_t when)
{
  struct etw_event ev;
  size_t n = 0, i;
  memset(&ev, 0, sizeof(ev));
  ev.id = id;
  ev.pid = pid;
  ev.pointer_size = 8;
  put(payload, 1, 8);
  put(payload + 8, 2, 8);
  put(payload + 16, start, 8);
  put(payload + 24, size, 4);
  put(payload + 28, 0x06000001, 4);
  put(payload + 32, 0, 4);
  n = 36;
  for (i = 0; i <= strlen(ns); i++, n += 2)
    put(payload + n, (uint8_t)ns[i], 2);
  for (i = 0; i <= strlen(name); i++, n += 2)
    put(payload + n, (uint8_t)name[i], 2);
  put(payload + n, 0, 2); /* an empty signature */
  n += 2;
  ev.user_data = payload;
  ev.user_len = (uint32_t)n;
  assert_int_equal(stack_frames_clr(f, &ev, rundown, when), 0);
}

static const char *name_at(struct stack_frames *f, uint32_t pid, uint64_t address,
                           int64_t when)
{
  return stack_frames_name(f, stack_frames_lookup(f, pid, address, when, 8));
}

static void frames_are_named_in_the_issues_order(void **state)
{
  struct stack_frames f;
  (void)state;
  assert_int_equal(stack_frames_init(&f), 0);
  image(&f, IMAGE_EVENT_DCSTART, 40, 0x7FF600000000ull,
        "\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll", 10);
  image(&f, IMAGE_EVENT_DCSTART, 0, 0xFFFFF80000000000ull,
        "\\SystemRoot\\system32\\ntoskrnl.exe", 10);
  /* JIT code is not in an image: a method or nothing. */
  method(&f, 143, 0, 40, 0x10000, 0x100, "System.DateTime", "GetDatePart", 500);
  method(&f, 144, 0, 40, 0x10000, 0x100, "System.DateTime", "GetDatePart", 700);
  method(&f, 144, 1, 40, 0x20000, 0x80, "Test.Program", "Main", 900); /* rundown at the end */
  assert_int_equal(stack_frames_finish(&f, known, NULL), 0);
  assert_string_equal(name_at(&f, 40, 0x10010, 600), "System.DateTime.GetDatePart");
  assert_string_equal(name_at(&f, 40, 0x10010, 400), "?!?");  /* not loaded yet */
  assert_string_equal(name_at(&f, 40, 0x10010, 800), "?!?");  /* unloaded */
  assert_string_equal(name_at(&f, 40, 0x10100, 600), "?!?");  /* just past its end */
  assert_string_equal(name_at(&f, 40, 0x20010, 100), "Test.Program.Main"); /* from before */
  assert_string_equal(name_at(&f, 40, 0x7FF600001234ull, 100), "clr.dll!?");
  assert_string_equal(name_at(&f, 41, 0x7FF600001234ull, 100), "?!?"); /* another process */
  assert_string_equal(name_at(&f, 40, K1, 100), "ntoskrnl.exe!?");
  assert_string_equal(name_at(&f, 40, 0xFFFFF90000000000ull, 100), "?!?");
  stack_frames_release(&f);
}

/* An address reused by two methods over time: the one live at the
 * sample's time names it. */
static void the_method_live_at_the_time_wins(void **state)
{
  struct stack_frames f;
  (void)state;
  assert_int_equal(stack_frames_init(&f), 0);
  method(&f, 143, 0, 40, 0x10000, 0x100, "A", "First", 100);
  method(&f, 144, 0, 40, 0x10000, 0x100, "A", "First", 200);
  method(&f, 143, 0, 40, 0x10000, 0x200, "B", "Second", 300);
  assert_int_equal(stack_frames_finish(&f, known, NULL), 0);
  assert_string_equal(name_at(&f, 40, 0x10080, 150), "A.First");
  assert_string_equal(name_at(&f, 40, 0x10080, 350), "B.Second");
  assert_string_equal(name_at(&f, 40, 0x10180, 350), "B.Second");
  assert_string_equal(name_at(&f, 40, 0x10080, 250), "?!?");
  stack_frames_release(&f);
}

/* An image that comes before its process is known is named once the
 * process is; one of a process never known is not kept. */
static void images_wait_for_their_process(void **state)
{
  struct stack_frames f;
  (void)state;
  assert_int_equal(stack_frames_init(&f), 0);
  image(&f, IMAGE_EVENT_LOAD, 42, 0x7FF600000000ull, "\\Windows\\System32\\ntdll.dll", 10);
  image(&f, IMAGE_EVENT_LOAD, 43, 0x7FF600000000ull, "\\Windows\\System32\\ntdll.dll", 10);
  assert_int_equal(stack_frames_finish(&f, known, NULL), 0);
  assert_string_equal(name_at(&f, 42, 0x7FF600000010ull, 20), "ntdll.dll!?");
  assert_string_equal(name_at(&f, 42, 0x7FF600000010ull, 5), "?!?"); /* before its load */
  assert_string_equal(name_at(&f, 43, 0x7FF600000010ull, 20), "?!?");
  assert_int_equal(f.ranges_dropped, 1);
  stack_frames_release(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_stackwalk_joins_the_sample_it_names),
    cmocka_unit_test(stack_keys_take_their_definitions),
    cmocka_unit_test(a_reused_key_takes_the_next_definition),
    cmocka_unit_test(a_kernel_sample_takes_the_user_part_logged_later),
    cmocka_unit_test(the_idle_process_needs_no_user_part),
    cmocka_unit_test(an_extended_stack_item_is_the_events_stack),
    cmocka_unit_test(frames_are_named_in_the_issues_order),
    cmocka_unit_test(the_method_live_at_the_time_wins),
    cmocka_unit_test(images_wait_for_their_process),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
