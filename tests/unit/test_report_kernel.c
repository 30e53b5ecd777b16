/* The images of `etwcap report` (src/report_kernel.c) from hand-made kernel
 * Image/DCStart events (hook 0x1403, Image_Load v2 with 8-byte pointers:
 * ImageBase, ImageSize, ProcessId, ImageCheckSum, TimeDateStamp,
 * Reserved0, DefaultBase, Reserved1..4, then the FileName, UTF-16 and
 * NUL-terminated: 56 bytes before the name). */
#include "test_support.h"

#include "image_identity.h"
#include "report_kernel.h"

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
static void feed_at(struct report_kernel *k, struct place at, const uint8_t *tail, size_t n)
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
  at.opcode = IMAGE_EVENT_LOAD; /* its unload was lost: the load tells */
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_DCEND;
  feed_name_at(&k, at, de);
  at.opcode = IMAGE_EVENT_LOAD;
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
