/* The escaping every trace string goes through on its way into the report
 * (src/report/report_writer.c).  Rules from the specifications: RFC 8259 §7 (a
 * JSON string may escape any character as \uXXXX and must escape quote,
 * backslash and U+0000-U+001F); the HTML Standard §4.12.1.3 (the text of a
 * script element must not contain "</script" nor "<!--"), §13.1.3 (in text
 * and attribute values "<", "&" and the quote must be written as character
 * references); RFC 3629 §3-4 (overlong forms, surrogates and bytes C0, C1,
 * F5-FF are invalid UTF-8). */
#include "tests/fakes/test_support.h"

#include "src/report/report_writer.h"

#include <stdio.h>
#include <string.h>

typedef void (*escaper)(struct report_writer *w, const char *text);

/* A writer to a fresh temporary file. */
static struct report_writer *fresh_writer(void)
{
  static struct report_writer w;
  rw_init(&w, tmpfile());
  assert_non_null(w.f);
  return &w;
}

/* What w wrote, into out; closes its file. */
static void written(struct report_writer *w, char *out, size_t cap)
{
  size_t n;
  assert_int_equal(report_writer_flush(w), 0);
  rewind(w->f);
  n = fread(out, 1, cap - 1, w->f);
  out[n] = '\0';
  fclose(w->f);
}

static void escaped(escaper fn, const char *in, char *out, size_t cap)
{
  struct report_writer *w = fresh_writer();
  fn(w, in);
  written(w, out, cap);
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
  /* Rounded to the nearest integer, a half away from zero; past 2^53 as
   * stdio writes the double. */
  assert_string_equal(report_grouped(2.5, buf, sizeof(buf)), "3");
  assert_string_equal(report_grouped(-1234.5, buf, sizeof(buf)), "-1,235");
  assert_string_equal(report_grouped(1e20, buf, sizeof(buf)), "100,000,000,000,000,000,000");
}

/* Each case is the decimal value written out by hand, a half rounded away
 * from zero (865 ticks of 100 ns, 0.0865 ms, is 0.087); a negative value
 * keeps its sign even when it rounds to zero, as printf writes it. */
static void fixed_decimals_round_half_away_from_zero(void **state)
{
  static const struct {
    double v;
    int decimals;
    const char *want;
  } cases[] = {
    { 0, 3, "0.000" },         { 865 / 10000.0, 3, "0.087" }, { 0.0864, 3, "0.086" },
    { 787.0 / 1000, 3, "0.787" }, { 12.25, 1, "12.3" },    { -12.25, 1, "-12.3" },
    { -0.04, 1, "-0.0" },       { 99.96, 1, "100.0" },       { 12.5, 0, "13" },
    { 1e20, 1, "100000000000000000000.0" },
  };
  char out[64];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct report_writer *w = fresh_writer();
    rw_fixed(w, cases[i].v, cases[i].decimals);
    written(w, out, sizeof(out));
    assert_string_equal(out, cases[i].want);
  }
}

/* Times as the page shows them, written out by hand: grouped thousands,
 * three decimals rounded half away from zero, and the sign of a time
 * before its origin (the first event of a trace may precede the session's
 * start) in front of the whole number, not inside it. */
static void times_are_grouped_with_three_decimals(void **state)
{
  static const struct {
    double ms;
    const char *want;
  } cases[] = {
    { 12345.678, "12,345.678" }, { 0.787, "0.787" },   { 0.0005, "0.001" },
    { 1e6, "1,000,000.000" },    { 999.9996, "1,000.000" }, { -0.25, "-0.250" },
    { -1234.5, "-1,234.500" },   { -0.0004, "0.000" },
  };
  char out[64];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct report_writer *w = fresh_writer();
    rw_ms(w, cases[i].ms);
    written(w, out, sizeof(out));
    assert_string_equal(out, cases[i].want);
  }
}

static void integers_are_written_whole(void **state)
{
  struct report_writer *w = fresh_writer();
  char out[64];
  (void)state;
  rw_uint(w, 0);
  rw_puts(w, " ");
  rw_uint(w, UINT64_MAX);
  written(w, out, sizeof(out));
  assert_string_equal(out, "0 18446744073709551615");
}

/* Pieces around and beyond the writer's buffer, and a formatted piece
 * longer than rw_printf's own, arrive whole and in order. */
static void long_output_arrives_whole_and_in_order(void **state)
{
  static struct report_writer w;
  static char big[REPORT_WRITER_BUFFER + 100], wide[3000], want[400000], got[400000];
  size_t i, n = 0, len;
  (void)state;
  memset(big, 'b', sizeof(big) - 1);
  memset(wide, 'w', sizeof(wide) - 1);
  rw_init(&w, tmpfile());
  assert_non_null(w.f);
  for (i = 0; i < 40000; i++) {
    rw_puts(&w, "ab");
    want[n++] = 'a';
    want[n++] = 'b';
  }
  rw_puts(&w, big);
  memcpy(want + n, big, sizeof(big) - 1);
  n += sizeof(big) - 1;
  rw_printf(&w, "<%s>%d", wide, 7);
  n += (size_t)snprintf(want + n, sizeof(want) - n, "<%s>%d", wide, 7);
  rw_uint(&w, 42);
  want[n++] = '4';
  want[n++] = '2';
  assert_int_equal(report_writer_flush(&w), 0);
  rewind(w.f);
  len = fread(got, 1, sizeof(got), w.f);
  fclose(w.f);
  assert_int_equal(len, n);
  assert_memory_equal(got, want, n);
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
    cmocka_unit_test(fixed_decimals_round_half_away_from_zero),
    cmocka_unit_test(times_are_grouped_with_three_decimals),
    cmocka_unit_test(integers_are_written_whole),
    cmocka_unit_test(long_output_arrives_whole_and_in_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
