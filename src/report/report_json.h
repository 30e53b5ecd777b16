/* The data of `etwcap report` as JSON (schema etwcap-report/1, README.md
 * "etwcap report"), embedded in the page as
 * <script type="application/json" id="etwcap-report">. */
#ifndef ETWCAP_REPORT_JSON_H
#define ETWCAP_REPORT_JSON_H

#include "src/report/report_model.h"
#include "src/report/report_writer.h"

void report_json_write(struct report_writer *w, const struct report *r);

/* The name of a timeline series: the provider's name or id, or "Context
 * switches", "CPU samples", ... (buf holds it when it is built). */
const char *report_series_name(const struct report *r, int series, char *buf, size_t cap);

#endif
