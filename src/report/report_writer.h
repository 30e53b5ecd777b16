/* The output stream of `etwcap report` and the escaping every piece of
 * trace text goes through before it reaches the page.  Names, command lines
 * and exception types come from the trace: hostile bytes.  Both escapers
 * decode UTF-8 and put U+FFFD in place of every invalid sequence and control
 * character; the HTML one writes & < > " ' as entities; the JSON one writes
 * < > & as \u003c \u003e \u0026 (so neither "</script>" nor "<!--" can
 * appear inside the embedded JSON) and U+2028/2029 as escapes.
 *
 * Output is gathered in the writer's own buffer and written in large
 * blocks: a page is thousands of short pieces, and a stdio call for each
 * cost a fifth of writing a page.  Sticky error: the first write error is
 * kept and returned by report_writer_flush. */
#ifndef ETWCAP_REPORT_WRITER_H
#define ETWCAP_REPORT_WRITER_H

#include "src/base/log.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_WRITER_BUFFER 65536

struct report_writer {
  FILE *f;
  int error;
  size_t len;                      /* bytes waiting in buf */
  char buf[REPORT_WRITER_BUFFER];
};

/* Starts writing to f (open for writing; the caller closes it after
 * report_writer_flush). */
void rw_init(struct report_writer *w, FILE *f);

void rw_puts(struct report_writer *w, const char *s);
void rw_printf(struct report_writer *w, const char *fmt, ...) LOG_PRINTF(2, 3);
/* Text as HTML character data or attribute value. */
void rw_html(struct report_writer *w, const char *text);
/* Text as a JSON string literal, quotes included; NULL gives null. */
void rw_json_string(struct report_writer *w, const char *text);
/* A number of milliseconds with 3 decimals; null when ms < 0 (unknown). */
void rw_json_ms(struct report_writer *w, double ms);
/* n in decimal. */
void rw_uint(struct report_writer *w, uint64_t n);
/* v with 0 to 3 decimals, as "%.*f" writes it, without stdio's exact
 * decimal conversion, which was most of the cost of writing a small
 * report (the timeline's coordinates, the GC table's times).  The one
 * difference: v times 10^decimals is rounded half away from zero, where
 * printf rounds the exact binary value; the two may differ by one in the
 * last digit for a value within a rounding error of a tie (865 ticks of
 * 100 ns, 0.0865 ms, is 0.087 here; printf writes 0.086). */
void rw_fixed(struct report_writer *w, double v, int decimals);
/* v (rounded to an integer, a half away from zero) with thousands
 * separators: "12,345". */
const char *report_grouped(double v, char *buf, size_t cap);
/* A count with thousands separators. */
void rw_count(struct report_writer *w, uint64_t n);
/* A time with three decimals and thousands separators: milliseconds to the
 * microsecond, "12,345.678"; one before its origin keeps its sign,
 * "-0.250" (one that rounds to zero is "0.000"). */
void rw_ms(struct report_writer *w, double ms);

/* Writes out what is buffered: 0, or ETWCAP_E_IO when any write failed. */
int report_writer_flush(struct report_writer *w);

#endif
