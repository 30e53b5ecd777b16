/* The kernel part of `etwcap report` (src/report/report_kernel.c) from
 * hand-made events.  CPU samples charged to processes: Process/DCStart v1
 * (hook 0x0303, 8-byte pointers: UniqueProcessKey, ProcessID, ParentID,
 * SessionID, ExitStatus, an empty UserSID (4 zero bytes), ImageFileName in
 * ANSI), Thread v3 (hooks 0x0501-0x0504: ProcessID, ThreadID, then 64
 * bytes not read) and PerfInfo SampleProf (0x0F2E: InstructionPointer,
 * ThreadId, Count), the layouts of TraceEvent's ProcessTraceData,
 * ThreadTraceData and SampledProfileTraceData.  The images
 * (src/report/report_images.c) from hand-made kernel Image/DCStart events (hook
 * 0x1403, Image_Load v2 with 8-byte pointers: ImageBase, ImageSize,
 * ProcessId, ImageCheckSum, TimeDateStamp, Reserved0, DefaultBase,
 * Reserved1..4, then the FileName, UTF-16 and NUL-terminated: 56 bytes
 * before the name) and KernelTraceControl's identity events (the ImageID
 * task's classic events, their payload starting with the ImageBase:
 * SymbolTraceEventParser's ImageIDTraceData and DbgIDRSDSTraceData). */
#include "tests/fakes/test_support.h"

#include "etw/image/image_identity.h"
#include "src/report/report_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_AT 56
#define PAYLOAD_MAX 1024

/* Where an image event says its image is, and what it is: the fields
 * before the name (ImageSize 0x20000, ImageCheckSum, TimeDateStamp). */
struct place {
  uint8_t opcode; /* enum image_event_opcode */
  uint32_t pid;
  uint64_t base;
};

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> 8 * i);
}

/* Feeds one image event whose payload is the fixed part followed by `tail`
 * (the name's bytes as logged, and whatever follows them). */
static void feed_on_cpu(struct report_kernel *k, struct place at, uint16_t cpu,
                        const uint8_t *tail, size_t n)
{
  uint8_t payload[PAYLOAD_MAX];
  struct etw_event ev;
  assert_true(NAME_AT + n <= sizeof(payload));
  memset(payload, 0, NAME_AT);
  put_le(payload, at.base, 8);
  put_le(payload + 8, 0x20000, 8);
  put_le(payload + 16, at.pid, 4);
  put_le(payload + 20, 0x2A0F1, 4);    /* ImageCheckSum */
  put_le(payload + 24, 0x5E6A1B2C, 4); /* TimeDateStamp */
  memcpy(payload + NAME_AT, tail, n);
  memset(&ev, 0, sizeof(ev));
  ev.is_kernel = 1;
  ev.pointer_size = 8;
  ev.header_type = ETW_HDR_SYSTEM64;
  ev.group = IMAGE_EVENT_GROUP;
  ev.opcode = at.opcode;
  ev.hook_id = (uint16_t)(IMAGE_EVENT_GROUP << 8 | at.opcode);
  ev.version = 2;
  ev.user_data = payload;
  ev.user_len = (uint32_t)(NAME_AT + n);
  ev.cpu = cpu;
  assert_int_equal(report_kernel_event(k, &ev, 0), 0);
}

static void feed_at(struct report_kernel *k, struct place at, const uint8_t *tail, size_t n)
{
  feed_on_cpu(k, at, 0, tail, n);
}

/* An identity event (IMAGE_ID_INFO, IMAGE_ID_DBG_RSDS, ...) naming the
 * image at `base`, on `cpu`; the rest of its payload is not read. */
static void feed_identity(struct report_kernel *k, uint8_t opcode, uint64_t base, uint16_t cpu)
{
  uint8_t payload[64] = { 0 };
  struct etw_event ev;
  put_le(payload, base, 8);
  memset(&ev, 0, sizeof(ev));
  ev.has = ETW_HAS_PROVIDER;
  ev.provider = image_identity_guid;
  ev.pointer_size = 8;
  ev.header_type = ETW_HDR_SYSTEM64;
  ev.opcode = opcode;
  ev.version = 2;
  ev.cpu = cpu;
  ev.user_data = payload;
  ev.user_len = sizeof(payload);
  assert_int_equal(report_kernel_event(k, &ev, 0), 0);
}

/* A DCStart in process 4 at 0x1000. */
static void feed(struct report_kernel *k, const uint8_t *tail, size_t n)
{
  struct place at = { IMAGE_EVENT_DCSTART, 4, 0x1000 };
  feed_at(k, at, tail, n);
}

/* ASCII text as UTF-16LE, without a NUL: its size in bytes. */
static size_t utf16(const char *s, uint8_t *out)
{
  size_t i;
  for (i = 0; s[i]; i++) {
    out[2 * i] = (uint8_t)s[i];
    out[2 * i + 1] = 0;
  }
  return 2 * i;
}

static void feed_name_at(struct report_kernel *k, struct place at, const char *name)
{
  uint8_t tail[PAYLOAD_MAX];
  size_t n = utf16(name, tail);
  tail[n] = tail[n + 1] = 0;
  feed_at(k, at, tail, n + 2);
}

static void feed_name(struct report_kernel *k, const char *name)
{
  struct place at = { IMAGE_EVENT_DCSTART, 4, 0x1000 };
  feed_name_at(k, at, name);
}

static const struct report_image *named(const struct report_kernel *k, const char *name)
{
  size_t i;
  for (i = 0; i < k->images.count; i++)
    if (!strcmp(k->images.list[i].name, name))
      return &k->images.list[i];
  return NULL;
}

/* Side-by-side assemblies: one length, one beginning, one end, and the
 * same PE fields; only the version directory in the middle tells them
 * apart.  Each is loaded in one of 40 processes, at one of 75 bases. */
static void images_whose_paths_differ_only_in_the_middle_are_told_apart(void **state)
{
  struct report_kernel k;
  char name[256];
  unsigned i, round;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (round = 0; round < 3; round++)
    for (i = 0; i < 3000; i++) {
      struct place at = { IMAGE_EVENT_DCSTART, 4 * (i % 40), 0x10000 * (uint64_t)(i / 40) };
      if (round == 2 && i % 2)
        continue; /* the odd ones twice, the even ones three times */
      snprintf(name, sizeof(name),
               "\\Device\\HarddiskVolume1\\Windows\\WinSxS\\amd64_%04u_none\\"
               "Microsoft.VisualStudio.Shell.Framework.dll",
               i);
      feed_name_at(&k, at, name);
    }
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 3000);
  assert_int_equal(k.images.dropped, 0);
  for (i = 0; i < 3000; i++) {
    assert_non_null(strstr(k.images.list[i].name, "amd64_"));
    assert_int_equal(atoi(strstr(k.images.list[i].name, "amd64_") + 6), i); /* sorted */
    assert_int_equal(k.images.list[i].events, i % 2 ? 2 : 3);
  }
  report_kernel_release(&k);
}

/* The name is the text up to the first NUL character, whichever of the
 * (four-character) words it falls in, or up to the payload's end when
 * there is none; an odd last byte is not a character. */
static void an_image_name_ends_at_its_first_nul_or_at_the_payload_end(void **state)
{
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTU";
  struct report_kernel k;
  uint8_t tail[PAYLOAD_MAX];
  char want[32];
  size_t len, n;
  (void)state;
  for (len = 0; len < sizeof(letters); len++) {
    memcpy(want, letters, len);
    want[len] = '\0';
    assert_int_equal(report_kernel_init(&k), 0);
    n = utf16(want, tail);
    feed(&k, tail, n); /* no NUL: the payload ends */
    tail[n] = 'x';
    feed(&k, tail, n + 1); /* an odd byte after it */
    tail[n] = tail[n + 1] = 0;
    n += 2 + utf16("after the NUL", tail + n + 2);
    feed(&k, tail, n);
    tail[n] = tail[n + 1] = 0;
    feed(&k, tail, n + 2);
    report_kernel_finish(&k);
    assert_int_equal(k.images.count, 1);
    assert_string_equal(k.images.list[0].name, want);
    assert_int_equal(k.images.list[0].events, 4);
    report_kernel_release(&k);
  }
}

static void an_image_event_is_counted_under_its_name(void **state)
{
  struct report_kernel k;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  feed_name(&k, "\\SystemRoot\\system32\\ntoskrnl.exe");
  feed_name(&k, "\\SystemRoot\\System32\\drivers\\ACPI.sys");
  feed_name(&k, "\\SystemRoot\\system32\\ntoskrnl.exe");
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 2);
  assert_non_null(named(&k, "\\SystemRoot\\system32\\ntoskrnl.exe"));
  assert_int_equal(named(&k, "\\SystemRoot\\system32\\ntoskrnl.exe")->events, 2);
  assert_int_equal(named(&k, "\\SystemRoot\\System32\\drivers\\ACPI.sys")->events, 1);
  report_kernel_release(&k);
}

/* Names seen at one (process, base), one the beginning of the next: each
 * is counted under itself, the longer one not under the shorter. */
static void a_name_that_begins_another_is_not_taken_for_it(void **state)
{
  static const char *const names[] = { "\\SystemRoot\\x.dll", "\\SystemRoot\\x.dll.mui",
                                       "\\SystemRoot\\x.dll", "\\SystemRoot\\x.dl" };
  struct report_kernel k;
  size_t i;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    feed_name(&k, names[i]);
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 3);
  assert_int_equal(named(&k, "\\SystemRoot\\x.dll")->events, 2);
  assert_int_equal(named(&k, "\\SystemRoot\\x.dll.mui")->events, 1);
  assert_int_equal(named(&k, "\\SystemRoot\\x.dl")->events, 1);
  report_kernel_release(&k);
}

/* A DLL unloaded and another loaded at its base, with the same PE fields
 * and a path of the same length (one culture's resources, then
 * another's): each event counts under its own path. */
static void another_file_at_an_unloaded_base_is_its_own_image(void **state)
{
  static const char de[] = "\\Program Files\\App\\de\\App.resources.dll";
  static const char fr[] = "\\Program Files\\App\\fr\\App.resources.dll";
  struct place at = { IMAGE_EVENT_DCSTART, 8, 0x7ff800000000ull };
  struct report_kernel k;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_UNLOAD;
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_DCEND; /* unloaded before, another file now */
  feed_name_at(&k, at, fr);
  at.opcode = IMAGE_EVENT_UNLOAD;
  feed_name_at(&k, at, fr);
  at.opcode = IMAGE_EVENT_LOAD;
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_DCEND;
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_LOAD; /* de's unload was lost: the load tells */
  feed_name_at(&k, at, fr);
  at.opcode = IMAGE_EVENT_DCEND;
  feed_name_at(&k, at, fr);
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 2);
  assert_int_equal(named(&k, de)->events, 4);
  assert_int_equal(named(&k, fr)->events, 4);
  report_kernel_release(&k);
}

/* Two files whose fields before the name agree (one culture's resources
 * and another's, same size, no checksum, one build), loaded in turn by
 * processes: each event counts under its own path. */
static void files_with_the_same_fields_take_turns(void **state)
{
  static const char de[] = "\\Program Files\\App\\de\\App.resources.dll";
  static const char fr[] = "\\Program Files\\App\\fr\\App.resources.dll";
  struct report_kernel k;
  uint32_t pid;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (pid = 4; pid <= 4 * 1000; pid += 4) {
    struct place at = { IMAGE_EVENT_LOAD, pid, 0x10000000 };
    feed_name_at(&k, at, pid % 8 ? de : fr);
    at.opcode = IMAGE_EVENT_DCEND;
    feed_name_at(&k, at, pid % 8 ? de : fr);
  }
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 2);
  assert_int_equal(named(&k, de)->events, 1000);
  assert_int_equal(named(&k, fr)->events, 1000);
  report_kernel_release(&k);
}

/* The same three DLLs in 50,000 processes (a rundown's start and end):
 * three images, each with every event. */
static void one_dll_in_many_processes_is_one_image(void **state)
{
  static const char *const names[] = { "\\Windows\\System32\\ntdll.dll",
                                       "\\Windows\\System32\\kernel32.dll",
                                       "\\Windows\\System32\\user32.dll" };
  struct report_kernel k;
  uint32_t pid, round;
  size_t j;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (round = 0; round < 2; round++)
    for (pid = 4; pid <= 4 * 50000; pid += 4)
      for (j = 0; j < 3; j++) {
        struct place at = { round ? IMAGE_EVENT_DCEND : IMAGE_EVENT_DCSTART, pid,
                            0x7ff800000000ull + 0x100000 * j };
        feed_name_at(&k, at, names[j]);
      }
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 3);
  for (j = 0; j < 3; j++)
    assert_int_equal(named(&k, names[j])->events, 2 * 50000);
  report_kernel_release(&k);
}

/* A short name padded with NULs to the room of a longer one that it
 * begins, the PE fields the same: both events have one file key, and the
 * longer name is not taken for the shorter (nor the reverse). */
static void a_padded_name_is_not_taken_for_a_longer_one_it_begins(void **state)
{
  static const char shorter[] = "\\SystemRoot\\x.dll", longer[] = "\\SystemRoot\\x.dll.mui";
  uint8_t padded[PAYLOAD_MAX], full[PAYLOAD_MAX];
  struct report_kernel k;
  size_t room, i;
  (void)state;
  room = utf16(longer, full);
  full[room] = full[room + 1] = 0;
  room += 2;
  memset(padded, 0, room);
  utf16(shorter, padded);
  assert_int_equal(report_kernel_init(&k), 0);
  for (i = 0; i < 3; i++) {
    feed(&k, padded, room);
    feed(&k, full, room);
  }
  feed(&k, full, room);
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, 2);
  assert_int_equal(named(&k, shorter)->events, 3);
  assert_int_equal(named(&k, longer)->events, 4);
  report_kernel_release(&k);
}

/* KernelTraceControl writes an image's ImageID and DbgID_RSDS events just
 * before its image event, on the same CPU: an image event counts as
 * identified when they name its base.  Identity events for another base,
 * or on another CPU, or before an earlier image event, do not count. */
static void identity_events_count_for_the_image_that_follows_them(void **state)
{
  static const char exe[] = "\\Windows\\app.exe", dll[] = "\\Windows\\lib.dll";
  struct place at_exe = { IMAGE_EVENT_DCSTART, 8, 0x400000 };
  struct place at_dll = { IMAGE_EVENT_DCSTART, 8, 0x7ff800000000ull };
  uint8_t tail[PAYLOAD_MAX];
  size_t n;
  struct report_kernel k;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  /* exe: ImageID and RSDS, then its event (twice); dll: ImageID only. */
  n = utf16(exe, tail);
  tail[n] = tail[n + 1] = 0;
  feed_identity(&k, IMAGE_ID_INFO, at_exe.base, 1);
  feed_identity(&k, IMAGE_ID_DBG_RSDS, at_exe.base, 1);
  feed_on_cpu(&k, at_exe, 1, tail, n + 2);
  feed_identity(&k, IMAGE_ID_INFO, at_exe.base, 1);
  feed_identity(&k, IMAGE_ID_DBG_RSDS, at_exe.base, 1);
  feed_on_cpu(&k, at_exe, 1, tail, n + 2);
  /* exe again: identity events on CPU 2, the image event on CPU 1. */
  feed_identity(&k, IMAGE_ID_INFO, at_exe.base, 2);
  feed_identity(&k, IMAGE_ID_DBG_RSDS, at_exe.base, 2);
  feed_on_cpu(&k, at_exe, 1, tail, n + 2);
  n = utf16(dll, tail);
  tail[n] = tail[n + 1] = 0;
  feed_identity(&k, IMAGE_ID_INFO, at_dll.base, 0);
  feed_on_cpu(&k, at_dll, 0, tail, n + 2);
  /* dll: an RSDS for the exe's base does not count for it. */
  feed_identity(&k, IMAGE_ID_DBG_RSDS, at_exe.base, 0);
  feed_on_cpu(&k, at_dll, 0, tail, n + 2);
  /* dll: the ImageID before the previous image event is spent. */
  feed_on_cpu(&k, at_dll, 0, tail, n + 2);
  report_kernel_finish(&k);
  assert_int_equal(k.identity_events, 8);
  assert_int_equal(named(&k, exe)->events, 3);
  assert_int_equal(named(&k, exe)->with_id, 2);
  assert_int_equal(named(&k, exe)->with_pdb, 2);
  assert_int_equal(named(&k, dll)->events, 3);
  assert_int_equal(named(&k, dll)->with_id, 1);
  assert_int_equal(named(&k, dll)->with_pdb, 0);
  report_kernel_release(&k);
}

/* Memory is bounded: past REPORT_MAX_IMAGES names, the events of new
 * names are counted as dropped, and those of known ones still count. */
static void names_past_the_cap_are_counted_as_dropped(void **state)
{
  struct report_kernel k;
  char name[64];
  unsigned i;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (i = 0; i < REPORT_MAX_IMAGES + 10; i++) {
    snprintf(name, sizeof(name), "\\Windows\\m%05u.dll", i);
    feed_name(&k, name);
  }
  feed_name(&k, "\\Windows\\m00000.dll");
  feed_name(&k, "\\Windows\\m99999.dll");
  report_kernel_finish(&k);
  assert_int_equal(k.images.count, REPORT_MAX_IMAGES);
  assert_int_equal(k.images.dropped, 11);
  assert_int_equal(named(&k, "\\Windows\\m00000.dll")->events, 2);
  assert_null(named(&k, "\\Windows\\m16384.dll"));
  report_kernel_release(&k);
}

/* One kernel event of `group` and `opcode` whose payload is `payload`,
 * at `filetime`. */
static int feed_kernel(struct report_kernel *k, uint8_t group, uint8_t opcode, uint8_t version,
                       const uint8_t *payload, size_t n, int64_t filetime)
{
  struct etw_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.is_kernel = 1;
  ev.pointer_size = 8;
  ev.header_type = ETW_HDR_SYSTEM64;
  ev.group = group;
  ev.opcode = opcode;
  ev.hook_id = (uint16_t)(group << 8 | opcode);
  ev.version = version;
  ev.user_data = payload;
  ev.user_len = (uint32_t)n;
  return report_kernel_event(k, &ev, filetime);
}

/* A Process/DCStart of `pid` named `name`. */
static void feed_process(struct report_kernel *k, uint32_t pid, const char *name)
{
  uint8_t payload[64] = { 0 };
  size_t n = 28 + strlen(name) + 1;
  assert_true(n <= sizeof(payload));
  put_le(payload + 8, pid, 4);
  memcpy(payload + 28, name, strlen(name));
  assert_int_equal(feed_kernel(k, 3, 3, 1, payload, n, 0), REPORT_SAW_OTHER);
}

enum { THREAD_START = 1, THREAD_END = 2, THREAD_DCSTART = 3 };

static void feed_thread(struct report_kernel *k, uint8_t opcode, uint32_t pid, uint32_t tid,
                        int64_t filetime)
{
  uint8_t payload[72] = { 0 };
  put_le(payload, pid, 4);
  put_le(payload + 4, tid, 4);
  assert_int_equal(feed_kernel(k, 5, opcode, 3, payload, sizeof(payload), filetime),
                   REPORT_SAW_OTHER);
}

static void feed_sample(struct report_kernel *k, uint32_t tid, int64_t filetime)
{
  uint8_t payload[14] = { 0 };
  put_le(payload, 0xFFFFF80000001000u, 8);
  put_le(payload + 8, tid, 4);
  put_le(payload + 12, 1, 2);
  assert_int_equal(feed_kernel(k, REPORT_GROUP_PERFINFO, REPORT_OPCODE_SAMPLE, 2, payload,
                               sizeof(payload), filetime),
                   REPORT_SAW_CPU_SAMPLE);
}

static uint64_t samples_of(const struct report_kernel *k, uint32_t pid)
{
  const struct report_process *p = report_kernel_process(k, pid);
  assert_non_null(p);
  return p->cpu_samples;
}

/* Processes 0 (Idle), 100 and 200. */
static void init_with_processes(struct report_kernel *k)
{
  assert_int_equal(report_kernel_init(k), 0);
  feed_process(k, 0, "Idle");
  feed_process(k, 100, "a.exe");
  feed_process(k, 200, "b.exe");
}

/* Thread 8 runs in process 100 from 100 to 200, then the id is reused in
 * process 200 from 300.  A sample at 150 is in the first life, one at 350
 * in the second; one at 250 is after the first End and before the second
 * Start: it goes to the life that started last before it (a thread still
 * running after its End).  The samples come after every thread event,
 * as a CPU's buffer can. */
static void a_sample_takes_the_life_holding_its_time_or_the_latest_before(void **state)
{
  struct report_kernel k;
  (void)state;
  init_with_processes(&k);
  feed_thread(&k, THREAD_START, 100, 8, 100);
  feed_thread(&k, THREAD_END, 100, 8, 200);
  feed_thread(&k, THREAD_START, 200, 8, 300);
  feed_sample(&k, 8, 150);
  feed_sample(&k, 8, 250);
  feed_sample(&k, 8, 350);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(samples_of(&k, 100), 2);
  assert_int_equal(samples_of(&k, 200), 1);
  assert_int_equal(k.samples_unattributed, 0);
  report_kernel_release(&k);
}

/* A sample before every life of its thread id goes to the first life after
 * it: thread 12 is known only from its End, and thread 16's Start is
 * stored after a sample of it (another CPU's buffer). */
static void a_sample_before_any_life_takes_the_first_after_it(void **state)
{
  struct report_kernel k;
  (void)state;
  init_with_processes(&k);
  feed_sample(&k, 12, 400);
  feed_thread(&k, THREAD_END, 200, 12, 500);
  feed_sample(&k, 16, 600);
  feed_thread(&k, THREAD_START, 100, 16, 550);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(samples_of(&k, 100), 1);
  assert_int_equal(samples_of(&k, 200), 1);
  assert_int_equal(k.samples_unattributed, 0);
  report_kernel_release(&k);
}

/* A DCStart says the thread ran before the trace: a sample stored and
 * timed before the rundown is in that life.  A later Start of the id
 * holds the samples after it (the latest start among the lives that hold
 * them). */
static void a_dcstart_life_begins_before_the_trace(void **state)
{
  struct report_kernel k;
  (void)state;
  init_with_processes(&k);
  feed_sample(&k, 20, 10);
  feed_thread(&k, THREAD_DCSTART, 200, 20, 700);
  feed_thread(&k, THREAD_START, 100, 20, 800);
  feed_sample(&k, 20, 900);
  feed_sample(&k, 20, 750);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(samples_of(&k, 100), 1);
  assert_int_equal(samples_of(&k, 200), 2);
  report_kernel_release(&k);
}

/* An End closes the life of its id that starts last at or before it, also
 * when a later life of the id was stored first (another CPU's buffer):
 * thread 28 runs in process 200 from before the trace, in process 100
 * from 100 and again from 300; the End at 200 ends the life from 100, so
 * a sample at 250 is in the one from before the trace.  Were it to end
 * the life from 300, the life from 100 would hold the sample. */
static void an_end_closes_the_life_that_starts_last_before_it(void **state)
{
  struct report_kernel k;
  (void)state;
  init_with_processes(&k);
  feed_thread(&k, THREAD_DCSTART, 200, 28, 50);
  feed_thread(&k, THREAD_START, 100, 28, 100);
  feed_thread(&k, THREAD_START, 100, 28, 300);
  feed_thread(&k, THREAD_END, 100, 28, 200);
  feed_sample(&k, 28, 250);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(samples_of(&k, 200), 1);
  assert_int_equal(samples_of(&k, 100), 0);
  report_kernel_release(&k);
}

/* Thread id 0 is the idle threads: process 0, with or without thread
 * events; a sample of an id no event names is counted as unattributed. */
static void thread_zero_is_idle(void **state)
{
  struct report_kernel k;
  (void)state;
  init_with_processes(&k);
  feed_sample(&k, 0, 5);
  feed_thread(&k, THREAD_DCSTART, 0, 0, 6);
  feed_sample(&k, 0, 7);
  feed_sample(&k, 44, 8);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(samples_of(&k, 0), 2);
  assert_int_equal(k.cpu_samples, 3);
  assert_int_equal(k.samples_unattributed, 1);
  report_kernel_release(&k);
}

/* A PerfInfo interval event (SetInterval 72, CollectionStart 73,
 * CollectionEnd 74: Source, NewInterval, OldInterval, TraceEvent's
 * SampledProfileIntervalTraceData) of n payload bytes. */
static void feed_interval(struct report_kernel *k, uint8_t opcode, uint32_t source,
                          uint32_t after, uint32_t before, size_t n, int64_t filetime)
{
  uint8_t payload[12];
  put_le(payload, source, 4);
  put_le(payload + 4, after, 4);
  put_le(payload + 8, before, 4);
  assert_int_equal(feed_kernel(k, REPORT_GROUP_PERFINFO, opcode, 3, payload, n, filetime),
                   REPORT_SAW_OTHER);
}

/* An interval event to feed: opcode, Source, NewInterval, OldInterval,
 * payload bytes, time. */
struct change {
  uint8_t opcode;
  uint32_t source, after, before;
  size_t n;
  int64_t filetime;
};

/* A report_kernel that has seen `changes` and finished. */
static void load_intervals(struct report_kernel *k, const struct change *c, size_t count)
{
  size_t i;
  assert_int_equal(report_kernel_init(k), 0);
  for (i = 0; i < count; i++)
    feed_interval(k, c[i].opcode, c[i].source, c[i].after, c[i].before, c[i].n, c[i].filetime);
  assert_int_equal(report_kernel_finish(k), 0);
}

/* Without interval events a sample counts 1 ms; events of another source
 * (a hardware counter), cut short, or with an interval of 0 give none. */
static void the_interval_is_1_ms_when_the_trace_gives_none(void **state)
{
  static const struct change none[] = {
    { 73, 1, 5000, 5000, 12, 10 }, { 73, 0, 5000, 5000, 11, 10 }, { 72, 0, 0, 5000, 12, 10 }
  };
  struct report_kernel k;
  (void)state;
  load_intervals(&k, none, 3);
  assert_int_equal(k.interval_count, 0);
  assert_int_equal(report_kernel_interval(&k, 20), 10000);
  assert_true(report_kernel_interval_fixed(&k));
  report_kernel_release(&k);
}

/* The interval at a time is the NewInterval of the latest change at or
 * before it; before the first, a SetInterval's OldInterval, or a
 * CollectionStart's NewInterval.  Changes come in file order, not time
 * order. */
static void each_time_takes_the_interval_then_in_effect(void **state)
{
  static const struct change sets[] = { { 72, 0, 5000, 10000, 12, 300 },
                                        { 72, 0, 20000, 5000, 12, 200 } };
  static const struct change start_end[] = { { 73, 0, 5000, 10000, 12, 100 },
                                             { 74, 0, 5000, 5000, 12, 900 } };
  struct report_kernel k;
  (void)state;
  load_intervals(&k, sets, 2);
  assert_int_equal(report_kernel_interval(&k, 100), 5000);
  assert_int_equal(report_kernel_interval(&k, 200), 20000);
  assert_int_equal(report_kernel_interval(&k, 299), 20000);
  assert_int_equal(report_kernel_interval(&k, 300), 5000);
  assert_false(report_kernel_interval_fixed(&k));
  report_kernel_release(&k);
  load_intervals(&k, start_end, 2);
  assert_int_equal(report_kernel_interval(&k, 50), 5000);
  assert_int_equal(report_kernel_interval(&k, 950), 5000);
  assert_true(report_kernel_interval_fixed(&k));
  report_kernel_release(&k);
}

/* Changes past REPORT_MAX_INTERVALS are counted, not kept. */
static void interval_changes_past_the_cap_are_counted(void **state)
{
  struct report_kernel k;
  uint32_t i;
  (void)state;
  assert_int_equal(report_kernel_init(&k), 0);
  for (i = 0; i <= REPORT_MAX_INTERVALS; i++)
    feed_interval(&k, 72, 0, 5000 + i, 5000, 12, (int64_t)i);
  assert_int_equal(report_kernel_finish(&k), 0);
  assert_int_equal(k.interval_count, REPORT_MAX_INTERVALS);
  assert_int_equal(k.intervals_dropped, 1);
  assert_int_equal(report_kernel_interval(&k, 1000), 5000 + REPORT_MAX_INTERVALS - 1);
  report_kernel_release(&k);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(an_image_event_is_counted_under_its_name),
    cmocka_unit_test(images_whose_paths_differ_only_in_the_middle_are_told_apart),
    cmocka_unit_test(an_image_name_ends_at_its_first_nul_or_at_the_payload_end),
    cmocka_unit_test(a_name_that_begins_another_is_not_taken_for_it),
    cmocka_unit_test(another_file_at_an_unloaded_base_is_its_own_image),
    cmocka_unit_test(one_dll_in_many_processes_is_one_image),
    cmocka_unit_test(files_with_the_same_fields_take_turns),
    cmocka_unit_test(a_padded_name_is_not_taken_for_a_longer_one_it_begins),
    cmocka_unit_test(identity_events_count_for_the_image_that_follows_them),
    cmocka_unit_test(names_past_the_cap_are_counted_as_dropped),
    cmocka_unit_test(a_sample_takes_the_life_holding_its_time_or_the_latest_before),
    cmocka_unit_test(a_sample_before_any_life_takes_the_first_after_it),
    cmocka_unit_test(a_dcstart_life_begins_before_the_trace),
    cmocka_unit_test(an_end_closes_the_life_that_starts_last_before_it),
    cmocka_unit_test(thread_zero_is_idle),
    cmocka_unit_test(the_interval_is_1_ms_when_the_trace_gives_none),
    cmocka_unit_test(each_time_takes_the_interval_then_in_effect),
    cmocka_unit_test(interval_changes_past_the_cap_are_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
