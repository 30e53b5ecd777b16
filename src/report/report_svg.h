/* The charts of `etwcap report`, drawn as inline SVG (no script, no
 * library, nothing fetched): the timeline's rate charts with their axes,
 * the markers of GCs, exceptions, the trigger and the capture window, and
 * the GC pause histogram. */
#ifndef ETWCAP_REPORT_SVG_H
#define ETWCAP_REPORT_SVG_H

#include "src/report/report_gc.h"
#include "src/report/report_model.h"
#include "src/report/report_writer.h"

/* The timeline: all events, then the busiest providers, context switches
 * and CPU samples when the trace has them, each as events per second on a
 * shared time axis (seconds from the trace start). */
void report_svg_timeline(struct report_writer *w, const struct report *r);
/* One process's GC pause histogram. */
void report_svg_pause_histogram(struct report_writer *w, const struct report_gc_totals *t);

#endif
