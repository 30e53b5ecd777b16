/* Which native images need NGEN PDBs (ngen_modules.h).  The hand-built
 * events follow the payload layouts of PerfView's parsers
 * (KernelTraceEventParser.cs: ImageLoadTraceData, SampledProfileTraceData,
 * StackWalkStackTraceData, StackWalkRefTraceData, StackWalkDefTraceData;
 * ClrTraceEventParser.cs: ClrStackWalkTraceData) and the choice is
 * PerfView's rule (ETWTraceEventSource.GetModulesNeedingSymbols): a *.ni.*
 * image with an address of its own process in one of its 64 KB pages. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "etw/event/builtin_events.h"
#include "etw/image/ngen_modules.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

#define MSCORLIB "\\Device\\HarddiskVolume2\\Windows\\assembly\\NativeImages_v4.0.30319_64\\" \
                 "mscorlib\\0123\\mscorlib.NI.dll"
#define NATIVE "\\Device\\HarddiskVolume2\\Windows\\System32\\kernel32.dll"

static uint8_t payload[4096];

static void put32(uint8_t *p, uint32_t v)
{
  int i;
  for (i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
  put32(p, (uint32_t)v);
  put32(p + 4, (uint32_t)(v >> 32));
}

static void kernel_event(struct etw_event *ev, uint8_t group, uint8_t opcode, size_t len)
{
  memset(ev, 0, sizeof(*ev));
  ev->is_kernel = 1;
  ev->pointer_size = 8;
  ev->group = group;
  ev->opcode = opcode;
  ev->hook_id = (uint16_t)(group << 8 | opcode);
  ev->version = 2;
  ev->header_type = ETW_HDR_PERFINFO64; /* no process in the header */
  ev->user_data = payload;
  ev->user_len = (uint32_t)len;
}

/* Image/Load v2, 64-bit: ImageBase, ImageSize, ProcessId, CheckSum,
 * TimeDateStamp, Reserved0, DefaultBase, Reserved1..4, FileName at 56. */
static void observe_load(struct ngen_modules *m, uint32_t pid, uint64_t base, uint64_t size,
                         const char *name)
{
  struct etw_event ev;
  size_t i, n = strlen(name);
  memset(payload, 0, sizeof(payload));
  put64(payload, base);
  put64(payload + 8, size);
  put32(payload + 16, pid);
  for (i = 0; i < n; i++)
    payload[56 + 2 * i] = (uint8_t)name[i];
  kernel_event(&ev, 0x14, 10, 56 + 2 * n + 2);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

/* Thread/Start (1), End (2), DCStart (3), DCEnd (4): ProcessId, TThreadId. */
static void observe_thread_event(struct ngen_modules *m, uint8_t opcode, uint32_t pid,
                                 uint32_t tid)
{
  struct etw_event ev;
  memset(payload, 0, 64);
  put32(payload, pid);
  put32(payload + 4, tid);
  kernel_event(&ev, 0x05, opcode, 64);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

static void observe_thread(struct ngen_modules *m, uint32_t pid, uint32_t tid)
{
  observe_thread_event(m, 1, pid, tid);
}

/* PerfInfo/SampledProfile: InstructionPointer, ThreadId, Count. */
static void observe_sample(struct ngen_modules *m, uint64_t ip, uint32_t tid)
{
  struct etw_event ev;
  put64(payload, ip);
  put32(payload + 8, tid);
  put32(payload + 12, 1);
  kernel_event(&ev, 0x0F, 46, 16);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

/* StackWalk/Stack: EventTimeStamp, StackProcess, StackThread, frames. */
static void observe_stack(struct ngen_modules *m, uint32_t pid, uint64_t frame)
{
  struct etw_event ev;
  put64(payload, 1);
  put32(payload + 8, pid);
  put32(payload + 12, 7);
  put64(payload + 16, 0xfffff80000001000ull);
  put64(payload + 24, frame);
  kernel_event(&ev, 0x18, 32, 32);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

/* StackWalk/StackKeyUser: EventTimeStamp, StackProcess, StackThread, StackKey. */
static void observe_key_ref(struct ngen_modules *m, uint32_t pid, uint64_t key)
{
  struct etw_event ev;
  put64(payload, 1);
  put32(payload + 8, pid);
  put32(payload + 12, 7);
  put64(payload + 16, key);
  kernel_event(&ev, 0x18, 38, 24);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

/* StackWalk/KeyDelete: StackKey, frames. */
static void observe_key_def(struct ngen_modules *m, uint64_t key, uint64_t frame)
{
  struct etw_event ev;
  put64(payload, key);
  put64(payload + 8, frame);
  kernel_event(&ev, 0x18, 35, 16);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
}

static size_t choose(struct ngen_modules *m, const char *const **paths)
{
  size_t n = 99;
  assert_int_equal(ngen_modules_finish(m, paths, &n), 0);
  return n;
}

static void a_sample_in_a_native_image_chooses_it(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_thread(m, 1234, 55);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_load(m, 1234, 0x7ff900000000ull, 0x30000, NATIVE);
  observe_sample(m, 0x7ff900001234ull, 55); /* in kernel32: not a native image */
  assert_int_equal(choose(m, &paths), 0);
  observe_sample(m, 0x7ff80002ffffull, 55); /* the last byte of mscorlib's third page */
  assert_int_equal(choose(m, &paths), 1);
  assert_string_equal(paths[0], MSCORLIB);
  ngen_modules_free(m);
}

static void an_address_of_another_process_or_outside_chooses_nothing(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_thread(m, 99, 56);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_sample(m, 0x7ff800001000ull, 56);  /* the image's range, in process 99 */
  observe_sample(m, 0x7ff800030000ull, 57);  /* just past the image, unknown thread */
  observe_stack(m, 0, 0x7ff800001000ull);    /* process 0 is skipped */
  assert_int_equal(choose(m, &paths), 0);
  ngen_modules_free(m);
}

/* A thread named after its samples (a circular file keeps only the end
 * rundown's DCEnd) still places them; an End does not rename a thread a
 * Start named. */
static void samples_wait_for_their_thread(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_sample(m, 0x7ff800001000ull, 77);
  assert_int_equal(choose(m, &paths), 0);
  observe_thread_event(m, 4, 1234, 77); /* Thread/DCEnd */
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_free(m);

  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_thread_event(m, 3, 99, 78);   /* DCStart: process 99 */
  observe_thread_event(m, 2, 1234, 78); /* End naming another process */
  observe_sample(m, 0x7ff800001000ull, 78);
  assert_int_equal(choose(m, &paths), 0);
  ngen_modules_free(m);
}

static void stack_frames_choose_images(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_stack(m, 1234, 0x7ff800010010ull);
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_free(m);
}

/* A compressed stack: the StackKeyUser reference gives the process, the
 * KeyDelete definition the frames; either may come first. */
static void compressed_stacks_join_in_either_order(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_key_ref(m, 1234, 0xabc0);
  observe_key_def(m, 0xabc0, 0x7ff800020000ull);
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_free(m);

  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_key_def(m, 0xabc0, 0x7ff800020000ull);
  assert_int_equal(choose(m, &paths), 0); /* no reference yet: no process */
  observe_key_def(m, 0xabc0, 0x7ff800020000ull);
  observe_key_ref(m, 1234, 0xabc0);
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_free(m);
}

/* ClrStackWalk (event 82): ClrInstanceID, Reserved1, Reserved2,
 * FrameCount, frames; the process is the header's. */
static void clr_stack_walks_choose_images(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  struct etw_event ev;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, MSCORLIB);
  memset(&ev, 0, sizeof(ev));
  ev.has = ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR | ETW_HAS_PID_TID;
  ev.provider = bi_guid_clr;
  ev.id = 82;
  ev.pid = 1234;
  ev.pointer_size = 8;
  memset(payload, 0, 24);
  put32(payload + 4, 2);
  put64(payload + 8, 0x1000);
  put64(payload + 16, 0x7ff800000100ull);
  ev.user_data = payload;
  ev.user_len = 24;
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_free(m);
}

static void an_image_loaded_twice_is_listed_once(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  struct ngen_modules_counts c;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_load(m, 2, 0x7ff800000000ull, 0x30000, MSCORLIB);
  observe_stack(m, 1, 0x7ff800000000ull);
  observe_stack(m, 2, 0x7ff800000000ull);
  assert_int_equal(choose(m, &paths), 1);
  ngen_modules_counts(m, &c);
  assert_int_equal(c.native_image_loads, 2);
  assert_int_equal(c.addresses, 2); /* each stack's kernel frame is not kept */
  ngen_modules_free(m);
}

/* A damaged load can claim any size: an image of 2^64 - 1 bytes is
 * tested page by page against the addresses seen, not the other way round
 * (2^48 lookups), and still finds its process's address and only that. */
static void an_image_of_any_claimed_size_is_tested_quickly(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_load(m, 1, 0x7ff800000000ull, UINT64_MAX, MSCORLIB);
  observe_stack(m, 2, 0x7ff900000000ull); /* another process */
  observe_stack(m, 1, 0x7ff700000000ull); /* below the image */
  assert_int_equal(choose(m, &paths), 0);
  observe_stack(m, 1, 0x7ffa00001234ull);
  assert_int_equal(choose(m, &paths), 1);
  assert_string_equal(paths[0], MSCORLIB);
  ngen_modules_free(m);
}

static void short_payloads_are_skipped(void **state)
{
  struct ngen_modules *m;
  const char *const *paths;
  struct etw_event ev;
  (void)state;
  assert_int_equal(ngen_modules_new(&m), 0);
  kernel_event(&ev, 0x0F, 46, 7);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
  kernel_event(&ev, 0x18, 32, 15);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
  kernel_event(&ev, 0x18, 35, 3);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
  kernel_event(&ev, 0x14, 10, 20);
  assert_int_equal(ngen_modules_observe(m, &ev), 0);
  assert_int_equal(choose(m, &paths), 0);
  ngen_modules_free(m);
}

/* The real merged trace, in time order as the merge feeds it. */
static int feed(void *ctx, const char *display, struct etl_reader *r)
{
  struct etl_timeorder *t;
  struct etw_event ev;
  int rc;
  (void)display;
  assert_int_equal(etl_timeorder_open(&t, r), 0);
  while ((rc = etl_timeorder_next(t, &ev)) > 0)
    assert_int_equal(ngen_modules_observe(ctx, &ev), 0);
  etl_timeorder_free(t);
  return rc < 0 ? rc : 0;
}

/* PerfView merged this trace itself, and the LogFile.txt it zipped with it
 * logs its NGEN step: "Starting Generating NGEN pdbs", no "NGEN PDB
 * creation for" line (GetNGenPdbs writes one per chosen image, ZippedETL.cs)
 * and "[Writing 0 PDBS to Zip file]": its GetModulesNeedingSymbols chose
 * nothing.  The test program loaded the IL mscorlib.dll from GAC_64, no
 * *.ni.* image.  The trace's user-mode addresses are still read: it has
 * 79528 SampledProfile events, 252 stacks, 7046 StackKeyUser references and
 * 2921 key definitions (golden listing). */
static void net452_sample_chooses_what_perfview_chose(void **state)
{
  struct ngen_modules *m;
  struct ngen_modules_counts c;
  const char *const *paths;
  char path[1024], err[512];
  (void)state;
  test_sample_path("ms-perfview__net.4.5.2.x64.etl.zip", path, sizeof(path));
  assert_int_equal(ngen_modules_new(&m), 0);
  assert_int_equal(etl_source_foreach(path, feed, m, err, sizeof(err)), 0);
  assert_int_equal(choose(m, &paths), 0);
  ngen_modules_counts(m, &c);
  assert_int_equal(c.native_image_loads, 0);
  assert_true(c.addresses > 0);
  assert_true(c.pages > 0 && c.pages < c.addresses);
  ngen_modules_free(m);
}

/* A native image's name longer than the 1,023 bytes kept is dropped, not
 * cut: cut, "...\mscorlib.NI.dll_other.dll" would name mscorlib.NI.dll,
 * another image, for ngen to make a PDB of. */
static void a_name_too_long_to_keep_is_dropped(void **state)
{
  static char name[1200];
  struct ngen_modules *m;
  const char *const *paths;
  size_t n;
  (void)state;
  snprintf(name, sizeof(name), "%s", MSCORLIB);
  n = 1023 - strlen(name);
  memmove(name + n, name, strlen(name) + 1);
  memset(name, 'x', n); /* the same name behind 1,023 - its length bytes */
  assert_int_equal(strlen(name), 1023);
  strcat(name, "_other.dll");
  assert_int_equal(ngen_modules_new(&m), 0);
  observe_thread(m, 1234, 55);
  observe_load(m, 1234, 0x7ff800000000ull, 0x30000, name);
  observe_sample(m, 0x7ff800001000ull, 55);
  assert_int_equal(choose(m, &paths), 0);
  ngen_modules_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_sample_in_a_native_image_chooses_it),
    cmocka_unit_test(a_name_too_long_to_keep_is_dropped),
    cmocka_unit_test(an_address_of_another_process_or_outside_chooses_nothing),
    cmocka_unit_test(samples_wait_for_their_thread),
    cmocka_unit_test(stack_frames_choose_images),
    cmocka_unit_test(compressed_stacks_join_in_either_order),
    cmocka_unit_test(clr_stack_walks_choose_images),
    cmocka_unit_test(an_image_loaded_twice_is_listed_once),
    cmocka_unit_test(an_image_of_any_claimed_size_is_tested_quickly),
    cmocka_unit_test(short_payloads_are_skipped),
    cmocka_unit_test(net452_sample_chooses_what_perfview_chose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
