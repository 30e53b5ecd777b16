/* The CPU section of the page of `etwcap report`: for the busiest
 * processes (report_cpu.h), their samples and the frames with the most
 * exclusive and inclusive samples. */
#ifndef ETWCAP_REPORT_HTML_CPU_H
#define ETWCAP_REPORT_HTML_CPU_H

#include "src/report/report_model.h"
#include "src/report/report_writer.h"

void report_html_cpu(struct report_writer *w, const struct report *r);

#endif
