/* The escaping every trace string goes through on its way into the report
 * (src/report_writer.c).  Rules from the specifications: RFC 8259 §7 (a
 * JSON string may escape any character as \uXXXX and must escape quote,
 * backslash and U+0000-U+001F); the HTML Standard §4.12.1.3 (the text of a
 * script element must not contain "</script" nor "<!--"), §13.1.3 (in text
 * and attribute values "<", "&" and the quote must be written as character
 * references); RFC 3629 §3-4 (overlong forms, surrogates and bytes C0, C1,
 * F5-FF are invalid UTF-8). */
#include "test_support.h"

#include "report_writer.h"

#include <stdio.h>
#include <string.h>

typedef void (*escaper)(struct report_writer *w, const char *text);

static void escaped(escaper fn, const char *in, char *out, size_t cap)
{
  struct report_writer w;
  size_t n;
  w.f = tmpfile();
  w.error = 0;
  assert_non_null(w.f);
  fn(&w, in);
  assert_int_equal(report_writer_error(&w), 0);
  rewind(w.f);
  n = fread(out, 1, cap - 1, w.f);
  out[n] = '\0';
  fclose(w.f);
}

static void json_cannot_close_the_script_element(void **state)
{
  char out[256];
  (void)state;
  escaped(rw_json_string, "a</script><!--b", out, sizeof(out));
  assert_string_equal(out, "\"a\\u003c/script\\u003e\\u003c!--b\"");
  assert_null(strstr(out, "</"));
}

static void json_escapes_quotes_backslashes_and_controls(void **state)
{
  char out[256];
  (void)state;
  escaped(rw_json_string, "q\"b\\n\n\x01&", out, sizeof(out));
  assert_string_equal(out, "\"q\\\"b\\\\n\\n\\u0001\\u0026\"");
}

static void invalid_utf8_becomes_the_replacement_character(void **state)
{
  char out[256];
  (void)state;
  /* A lone continuation byte, an overlong '/', a UTF-16 surrogate, 0xFF. */
  escaped(rw_json_string, "x\x80y\xC0\xAFz\xED\xA0\x80w\xFF", out, sizeof(out));
  assert_string_equal(out, "\"x\\ufffdy\\ufffd\\ufffdz\\ufffd\\ufffd\\ufffdw\\ufffd\"");
  escaped(rw_html, "x\x80y", out, sizeof(out));
  assert_string_equal(out, "x&#xFFFD;y");
}

static void valid_utf8_passes_through(void **state)
{
  char out[256];
  (void)state;
  /* "Größe 😀" */
  escaped(rw_json_string, "Gr\xC3\xB6\xC3\x9F" "e \xF0\x9F\x98\x80", out, sizeof(out));
  assert_string_equal(out, "\"Gr\xC3\xB6\xC3\x9F" "e \xF0\x9F\x98\x80\"");
  /* U+2028 LINE SEPARATOR is escaped (a line break to JavaScript). */
  escaped(rw_json_string, "\xE2\x80\xA8", out, sizeof(out));
  assert_string_equal(out, "\"\\u2028\"");
}

static void html_escapes_markup_characters(void **state)
{
  char out[256];
  (void)state;
  escaped(rw_html, "<img src=x onerror='a()'>&\"", out, sizeof(out));
  assert_string_equal(out, "&lt;img src=x onerror=&#39;a()&#39;&gt;&amp;&quot;");
}

static void numbers_are_grouped_by_thousands(void **state)
{
  char buf[48];
  (void)state;
  assert_string_equal(report_grouped(0, buf, sizeof(buf)), "0");
  assert_string_equal(report_grouped(999, buf, sizeof(buf)), "999");
  assert_string_equal(report_grouped(1234567, buf, sizeof(buf)), "1,234,567");
  assert_string_equal(report_grouped(-1234, buf, sizeof(buf)), "-1,234");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(json_cannot_close_the_script_element),
    cmocka_unit_test(json_escapes_quotes_backslashes_and_controls),
    cmocka_unit_test(invalid_utf8_becomes_the_replacement_character),
    cmocka_unit_test(valid_utf8_passes_through),
    cmocka_unit_test(html_escapes_markup_characters),
    cmocka_unit_test(numbers_are_grouped_by_thousands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
