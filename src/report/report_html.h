/* The page of `etwcap report`: one self-contained HTML document (inline CSS
 * and SVG, one inline script of its own that zooms the flame graphs, a
 * Content-Security-Policy that forbids every load and allows only that
 * script, by its hash) with the capture, timeline, GC, exception, process, symbol and
 * provider sections, and the same data as JSON in
 * <script type="application/json" id="etwcap-report">.  The tables show the
 * JSON's arrays (long ones cut, saying so; the JSON has every row). */
#ifndef ETWCAP_REPORT_HTML_H
#define ETWCAP_REPORT_HTML_H

#include "src/report/report_model.h"
#include "src/report/report_writer.h"

void report_html_write(struct report_writer *w, const struct report *r);

#endif
