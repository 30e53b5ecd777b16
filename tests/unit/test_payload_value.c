/* Payload values (etw/event/payload_value.h, etw/event/payload_layout.h): fields read
 * from bytes laid out by hand, and the text a trigger compares, as
 * PerfView's PayloadString shows it: decimal numbers, True/False for a
 * BOOL, GUIDs in registry form, strings as they are. */
#include "tests/fakes/test_support.h"

#include "etw/event/payload_layout.h"
#include "etw/event/payload_value.h"

#include <string.h>

static void each_kind_reads_its_value_and_shows_its_text(void **state)
{
  /* UINT32 0xFFFFFFFF, INT32 -2, BOOL32 7 (non-zero: true), BOOL32 0,
   * DOUBLE 0.25 (0x3FD0000000000000), GUID
   * {00112233-4455-6677-8899-aabbccddeeff} as Windows stores it (the first
   * three groups little-endian), then "ab" in UTF-16 with its NUL. */
  static const uint8_t data[] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 7,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0xD0, 0x3F, 0x33, 0x22, 0x11, 0x00, 0x55, 0x44,
    0x77, 0x66, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 'a',  0,    'b',  0,    0,
    0
  };
  static const struct tf_field fields[] = {
    { "U", TF_U32 },  { "I", TF_I32 },    { "Yes", TF_BOOL32 }, { "No", TF_BOOL32 },
    { "D", TF_F64 },  { "G", TF_GUID },   { "S", TF_UTF16Z },
  };
  static const struct {
    enum tv_type type;
    const char *text;
  } want[] = {
    { TV_UINT, "4294967295" },
    { TV_INT, "-2" },
    { TV_BOOL, "True" },
    { TV_BOOL, "False" },
    { TV_FLOAT, "0.25" },
    { TV_GUID, "00112233-4455-6677-8899-aabbccddeeff" },
    { TV_TEXT, "ab" },
  };
  const struct tf_layout layout = { fields, sizeof(fields) / sizeof(fields[0]) };
  struct tv_value v;
  char buf[TV_SHORT_TEXT_MAX];
  double d;
  size_t i;
  (void)state;
  for (i = 0; i < layout.count; i++) {
    assert_int_equal(tf_at(&layout, data, sizeof(data), 8, i, &v), 1);
    assert_int_equal(v.type, want[i].type);
    assert_string_equal(tv_text(&v, buf), want[i].text);
    /* Numbers and booleans compare as numbers too. */
    assert_int_equal(tv_as_double(&v, &d), want[i].type <= TV_BOOL && want[i].type != TV_NONE);
  }
  assert_int_equal(tf_at(&layout, data, sizeof(data), 8, 2, &v), 1);
  assert_true(tv_as_double(&v, &d) && d == 1.0);
}

static void a_number_leaves_no_text_behind(void **state)
{
  /* A value decoded into a tv_value that held a string: a reader that
   * takes the number for a string finds it empty, not the old string. */
  static const uint8_t text[] = { 'x', 0, 0, 0 };
  static const uint8_t number[] = { 5, 0, 0, 0 };
  static const struct tf_field s[] = { { "S", TF_UTF16Z } }, n[] = { { "N", TF_U32 } };
  const struct tf_layout ls = { s, 1 }, ln = { n, 1 };
  struct tv_value v;
  char buf[TV_SHORT_TEXT_MAX];
  (void)state;
  assert_int_equal(tf_at(&ls, text, sizeof(text), 8, 0, &v), 1);
  assert_string_equal(v.text, "x");
  assert_int_equal(tf_at(&ln, number, sizeof(number), 8, 0, &v), 1);
  assert_string_equal(v.text, "");
  assert_string_equal(tv_text(&v, buf), "5");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(each_kind_reads_its_value_and_shows_its_text),
    cmocka_unit_test(a_number_leaves_no_text_behind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
