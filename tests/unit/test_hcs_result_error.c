/* A ResultError's message (hcs_result_error.c), as HCS may hand one back
 * with a failed operation: its ErrorMessage, cut to fit without splitting
 * a character, control characters neutralised; nothing from a document
 * that is not such an object or is too large. */
#include "tests/fakes/test_support.h"

#include "src/containers/hcs_result_error.h"

#include <string.h>

static int message_of(const char *json, char *out, size_t size)
{
  return hcs_result_error_message(json, strlen(json), out, size);
}

static void the_error_message_is_taken(void **state)
{
  char out[64];
  (void)state;
  assert_true(message_of("{\"Error\":-2143878898,\"ErrorMessage\":\"A virtual machine or "
                         "container with the specified identifier does not exist.\","
                         "\"ErrorEvents\":[{\"Message\":\"x\"}]}",
                         out, sizeof(out)));
  assert_string_equal(out, "A virtual machine or container with the specified identifier do");
}

static void control_characters_are_neutralised(void **state)
{
  char out[64];
  (void)state;
  assert_true(message_of("{\"ErrorMessage\":\"line one\\r\\nline two\\u001b[2J\"}", out,
                         sizeof(out)));
  assert_string_equal(out, "line one??line two?[2J");
}

/* "é" is two bytes: a cut at 4 bytes keeps "ab" and drops the half. */
static void a_cut_does_not_split_a_character(void **state)
{
  char out[5];
  (void)state;
  assert_true(message_of("{\"ErrorMessage\":\"ab\\u00e9\\u00e9\"}", out, sizeof(out)));
  assert_string_equal(out, "ab\xc3\xa9");
  assert_true(message_of("{\"ErrorMessage\":\"abc\\u00e9\"}", out, sizeof(out)));
  assert_string_equal(out, "abc");
}

static void other_documents_give_nothing(void **state)
{
  static const char *const docs[] = { "", "[\"ErrorMessage\"]", "{\"ErrorMessage\":7}",
                                      "{\"Error\":5}", "{\"ErrorMessage\":\"\"}",
                                      "{\"ErrorMessage\":\"cut" };
  char out[32], *big;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
    strcpy(out, "stale");
    assert_false(message_of(docs[i], out, sizeof(out)));
    assert_string_equal(out, "");
  }
  big = test_malloc(HCS_RESULT_ERROR_MAX + 32);
  strcpy(big, "{\"ErrorMessage\":\"");
  memset(big + 17, 'a', HCS_RESULT_ERROR_MAX);
  strcpy(big + 17 + HCS_RESULT_ERROR_MAX, "\"}");
  assert_false(message_of(big, out, sizeof(out)));
  test_free(big);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_error_message_is_taken),
    cmocka_unit_test(control_characters_are_neutralised),
    cmocka_unit_test(a_cut_does_not_split_a_character),
    cmocka_unit_test(other_documents_give_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
