/* TraceLogging bytes (etw/event/tl_encode.h): against bytes assembled by hand
 * from TraceLoggingProvider.h's layout, and read back by etwcap's own
 * decoder (etw/event/tracelogging.h). */
#include "tests/fakes/test_support.h"

#include "etw/event/tl_encode.h"
#include "etw/event/tracelogging.h"
#include "src/base/error.h"

#include <string.h>

static void a_utf8_field_has_the_documented_metadata_and_payload(void **state)
{
  /* UINT16 size 18, tags 0, "Mark\0", "Message\0", InType
   * TlgInANSISTRING (2) | 0x80 (OutType follows), OutType TlgOutUTF8
   * (35 = 0x23); the payload is the bytes and a NUL. */
  static const uint8_t meta[] = { 18,  0,   0,   'M', 'a', 'r', 'k', 0,   'M',
                                  'e', 's', 's', 'a', 'g', 'e', 0,   0x82, 0x23 };
  static const uint8_t data[] = { 'h', 'i', 0 };
  struct tl_encoded e;
  (void)state;
  tl_encode_begin(&e, "Mark");
  tl_encode_utf8(&e, "Message", "hi");
  assert_int_equal(tl_encode_end(&e), 0);
  assert_int_equal(e.meta_len, sizeof(meta));
  assert_memory_equal(e.meta, meta, sizeof(meta));
  assert_int_equal(e.data_len, sizeof(data));
  assert_memory_equal(e.data, data, sizeof(data));
}

static void numbers_are_little_endian_with_their_in_types(void **state)
{
  /* "V\0" TlgInDOUBLE (12) then 1.5 as IEEE 754 binary64
   * (0x3FF8000000000000); "N\0" TlgInUINT32 (8) then 0x01020304. */
  static const uint8_t meta[] = { 11, 0, 0, 'E', 0, 'V', 0, 12, 'N', 0, 8 };
  static const uint8_t data[] = { 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 4, 3, 2, 1 };
  struct tl_encoded e;
  (void)state;
  tl_encode_begin(&e, "E");
  tl_encode_double(&e, "V", 1.5);
  tl_encode_uint32(&e, "N", 0x01020304u);
  assert_int_equal(tl_encode_end(&e), 0);
  assert_int_equal(e.meta_len, sizeof(meta));
  assert_memory_equal(e.meta, meta, sizeof(meta));
  assert_int_equal(e.data_len, sizeof(data));
  assert_memory_equal(e.data, data, sizeof(data));
}

static void the_decoder_reads_back_every_field(void **state)
{
  struct tl_encoded e;
  struct tl_meta m;
  struct tv_value v;
  double d;
  (void)state;
  tl_encode_begin(&e, "PerformanceCounterUpdate");
  tl_encode_utf8(&e, "Category", "Processor");
  tl_encode_utf8(&e, "Counter", "% Processor Time");
  tl_encode_utf8(&e, "Instance", "_Total");
  tl_encode_double(&e, "Value", 42.25);
  assert_int_equal(tl_encode_end(&e), 0);
  assert_int_equal(tl_parse_bytes(e.meta, e.meta_len, &m), 1);
  assert_string_equal(m.name, "PerformanceCounterUpdate");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Counter", &v), 1);
  assert_string_equal(v.text, "% Processor Time");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Instance", &v), 1);
  assert_string_equal(v.text, "_Total");
  assert_int_equal(tl_find(&m, e.data, e.data_len, 8, "Value", &v), 1);
  assert_int_equal(tv_as_double(&v, &d), 1);
  assert_true(d == 42.25);
}

static void a_value_too_long_for_one_event_is_refused(void **state)
{
  static char big[TL_ENCODE_DATA_MAX + 1];
  struct tl_encoded e;
  (void)state;
  memset(big, 'x', sizeof(big) - 1);
  tl_encode_begin(&e, "Mark");
  tl_encode_utf8(&e, "Message", big);
  assert_int_equal(tl_encode_end(&e), ETWCAP_E_RANGE);
  /* One byte less, with its NUL, fills the payload exactly. */
  big[TL_ENCODE_DATA_MAX - 1] = '\0';
  tl_encode_begin(&e, "Mark");
  tl_encode_utf8(&e, "Message", big);
  assert_int_equal(tl_encode_end(&e), 0);
  assert_int_equal(e.data_len, TL_ENCODE_DATA_MAX);
}

static void the_provider_traits_are_size_then_name(void **state)
{
  /* learn.microsoft.com "Provider Traits": UINT16 size, the name, NUL. */
  static const uint8_t want[] = { 9, 0, 'e', 't', 'w', 'c', 'a', 'p', 0 };
  uint8_t buf[16];
  (void)state;
  assert_int_equal(tl_encode_provider_traits("etwcap", buf, sizeof(buf)), sizeof(want));
  assert_memory_equal(buf, want, sizeof(want));
  assert_int_equal(tl_encode_provider_traits("etwcap", buf, 8), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_utf8_field_has_the_documented_metadata_and_payload),
    cmocka_unit_test(numbers_are_little_endian_with_their_in_types),
    cmocka_unit_test(the_decoder_reads_back_every_field),
    cmocka_unit_test(a_value_too_long_for_one_event_is_refused),
    cmocka_unit_test(the_provider_traits_are_size_then_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
