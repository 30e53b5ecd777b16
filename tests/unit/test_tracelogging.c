/* The TraceLogging schema walk (etw/event/tracelogging.h) on schemas built here
 * field by field (TraceLoggingProvider.h's layout: NUL-terminated name,
 * InType, OutType when InType has 0x80, a UINT16 count when InType has
 * 0x20): the work per event is bounded by the event's bytes. */
#include "tests/fakes/test_support.h"

#include "etw/event/tracelogging.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

#define IN_NULL 0
#define IN_UNICODESTRING 1
#define IN_UINT8 4
#define IN_UINT32 8
#define IN_STRUCT 24
#define IN_CCOUNT 0x20
#define IN_VCOUNT 0x40
#define IN_CHAIN 0x80

struct schema {
  uint8_t bytes[20000];
  size_t len;
};

static void put(struct schema *s, uint8_t b)
{
  assert_true(s->len < sizeof(s->bytes));
  s->bytes[s->len++] = b;
}

static void field(struct schema *s, const char *name, uint8_t in)
{
  while (*name)
    put(s, (uint8_t)*name++);
  put(s, 0);
  put(s, in);
}

static void const_count(struct schema *s, uint16_t n)
{
  put(s, (uint8_t)n);
  put(s, (uint8_t)(n >> 8));
}

/* A struct field: InType STRUCT with OutType = its member count. */
static void struct_field(struct schema *s, const char *name, uint8_t count_flag, uint8_t members)
{
  field(s, name, IN_STRUCT | count_flag | IN_CHAIN);
  put(s, members);
}

/* The field limit's worth (4096) of unnamed constant-count arrays of
 * 65,535 elements of in-type t. */
static void widest_arrays(struct schema *s, uint8_t t)
{
  unsigned i;
  s->len = 0;
  for (i = 0; i < 4096; i++) {
    field(s, "", t | IN_CCOUNT);
    const_count(s, 0xFFFF);
  }
}

static struct tl_meta meta_of(const struct schema *s)
{
  struct tl_meta m;
  memset(&m, 0, sizeof(m));
  m.fields = s->bytes;
  m.fields_len = s->len;
  return m;
}

static int count_fields(void *ctx, const char *path, const struct tv_value *v)
{
  (void)path;
  (void)v;
  ++*(unsigned *)ctx;
  return 0;
}

/* The shape of the reported bug: 4096 arrays of 65,535 elements that read
 * no payload byte, 2.7e8 decode steps for a 16 KiB schema and no payload. */
static void arrays_of_elements_that_read_nothing_are_refused(void **state)
{
  static struct schema s;
  struct tl_meta m;
  struct tv_value v;
  unsigned seen = 0;
  (void)state;
  widest_arrays(&s, IN_NULL);
  m = meta_of(&s);
  assert_int_equal(tl_walk(&m, NULL, 0, 8, count_fields, &seen), ETWCAP_E_CORRUPT);
  assert_int_equal(tl_find(&m, NULL, 0, 8, "x", &v), -1);
  /* Strings at the payload's end read nothing either (a missing NUL is
   * taken as the end, payload_cursor.h). */
  widest_arrays(&s, IN_UNICODESTRING);
  m = meta_of(&s);
  assert_int_equal(tl_walk(&m, NULL, 0, 8, count_fields, &seen), ETWCAP_E_CORRUPT);
  assert_int_equal(seen, 0);
}

/* Nesting multiplies: 65,535 struct elements each holding a 65,535-element
 * array of nothing (4.3e9 steps), from a payload of two bytes. */
static void nested_arrays_of_nothing_are_refused(void **state)
{
  static struct schema s;
  static const uint8_t payload[] = { 0xFF, 0xFF };
  struct tl_meta m;
  unsigned seen = 0;
  (void)state;
  s.len = 0;
  struct_field(&s, "Outer", IN_VCOUNT, 1);
  field(&s, "Inner", IN_NULL | IN_CCOUNT);
  const_count(&s, 0xFFFF);
  m = meta_of(&s);
  assert_int_equal(tl_walk(&m, payload, sizeof(payload), 8, count_fields, &seen),
                   ETWCAP_E_CORRUPT);
}

/* The densest well-formed layout (three steps per payload byte: the struct
 * element, its one member, the member's byte) still decodes, and the field
 * after it is found.  4000 elements: under the 4096 fields a walk visits. */
static void a_large_array_of_one_byte_structs_decodes(void **state)
{
  enum { n = 4000, len = 2 + n + 4 };
  static struct schema s;
  static uint8_t payload[len];
  struct tl_meta m;
  struct tv_value v;
  unsigned seen = 0;
  (void)state;
  s.len = 0;
  struct_field(&s, "Items", IN_VCOUNT, 1);
  field(&s, "B", IN_UINT8);
  field(&s, "After", IN_UINT32);
  payload[0] = (uint8_t)n;
  payload[1] = (uint8_t)(n >> 8);
  memset(payload + 2, 7, n);
  memcpy(payload + 2 + n, "\x04\x03\x02\x01", 4);
  m = meta_of(&s);
  assert_int_equal(tl_walk(&m, payload, len, 8, count_fields, &seen), 0);
  assert_int_equal(seen, 1); /* array elements are not reported */
  assert_int_equal(tl_find(&m, payload, len, 8, "After", &v), 1);
  assert_true(v.type == TV_UINT && v.u == 0x01020304u);
  /* One byte short, the same schema is malformed, not over budget. */
  assert_int_equal(tl_walk(&m, payload, len - 1, 8, count_fields, &seen), -1);
}

/* Field names longer than the 255 bytes a path keeps are matched whole:
 * their 255-byte prefix names nothing, and the dotted path through a
 * struct of a long name still finds its member. */
static void long_field_names_are_matched_whole(void **state)
{
  static struct schema s;
  char name[301], prefix[256], path[320];
  uint8_t payload[] = { 1, 2 };
  struct tl_meta m;
  struct tv_value v;
  (void)state;
  memset(name, 'N', 300);
  name[300] = '\0';
  memcpy(prefix, name, 255);
  prefix[255] = '\0';
  s.len = 0;
  field(&s, name, IN_UINT8);
  struct_field(&s, name, 0, 1);
  field(&s, "Inner", IN_UINT8);
  m = meta_of(&s);
  assert_int_equal(tl_find(&m, payload, sizeof(payload), 8, prefix, &v), 0);
  assert_int_equal(tl_find(&m, payload, sizeof(payload), 8, name, &v), 1);
  assert_true(v.type == TV_UINT && v.u == 1);
  snprintf(path, sizeof(path), "%s.Inner", name);
  assert_int_equal(tl_find(&m, payload, sizeof(payload), 8, path, &v), 1);
  assert_true(v.type == TV_UINT && v.u == 2);
  snprintf(path, sizeof(path), "%s.Inner", prefix);
  assert_int_equal(tl_find(&m, payload, sizeof(payload), 8, path, &v), 0);
}

/* A string field is found with where it lies, so it can be read whole
 * past the TV_TEXT_MAX bytes tv_value keeps: UTF-16 with its NUL, and
 * counted 8-bit. */
static void strings_are_located_for_reading_whole(void **state)
{
  enum { n = 3000 };
  static struct schema s;
  static uint8_t payload[2 * n + 2 + 2 + 4];
  static char text[2 * n];
  struct tl_meta m;
  struct tv_value v;
  struct tl_string str;
  size_t i;
  (void)state;
  s.len = 0;
  field(&s, "Wide", IN_UNICODESTRING);
  field(&s, "Counted", 23);
  for (i = 0; i < n; i++) {
    payload[2 * i] = (uint8_t)('a' + i % 26);
    payload[2 * i + 1] = 0;
  }
  payload[2 * n] = payload[2 * n + 1] = 0;
  payload[2 * n + 2] = 4;
  payload[2 * n + 3] = 0;
  memcpy(payload + 2 * n + 4, "abcd", 4);
  m = meta_of(&s);
  assert_int_equal(tl_find_string(&m, payload, sizeof(payload), 8, NULL, &v, &str), 1);
  assert_int_equal(v.type, TV_TEXT);
  assert_true(strlen(v.text) < n); /* the cut copy */
  assert_int_equal(tl_string_text(&str, payload, text, sizeof(text)), n);
  assert_int_equal(text[n - 1], 'a' + (n - 1) % 26);
  assert_int_equal(tl_find_string(&m, payload, sizeof(payload), 8, "Counted", &v, &str), 1);
  assert_int_equal(tl_string_text(&str, payload, text, sizeof(text)), 4);
  assert_string_equal(text, "abcd");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(arrays_of_elements_that_read_nothing_are_refused),
    cmocka_unit_test(nested_arrays_of_nothing_are_refused),
    cmocka_unit_test(a_large_array_of_one_byte_structs_decodes),
    cmocka_unit_test(long_field_names_are_matched_whole),
    cmocka_unit_test(strings_are_located_for_reading_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
