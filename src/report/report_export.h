/* `etwcap convert`'s two outputs, written from the CPU stacks of a report
 * (report_cpu.h), one line or one stack at a time:
 *   - folded stacks, the input of flamegraph.pl and inferno: one line per
 *     distinct stack, "process;frame;...;frame count", root first, the
 *     process's name as the first frame;
 *   - speedscope's file format (https://www.speedscope.app/file-format-
 *     schema.json): shared.frames, and one profile of type "sampled" per
 *     process, named "name (pid)", whose samples are the distinct stacks
 *     (frame indices, root first) and whose weights are their sample counts
 *     ("unit": "none").
 * Frame names are trace text: in the folded lines ';' (the separator)
 * becomes ':' and line breaks become spaces; in the JSON they are
 * escaped. */
#ifndef ETWCAP_REPORT_EXPORT_H
#define ETWCAP_REPORT_EXPORT_H

#include "src/report/report_model.h"
#include "src/report/report_writer.h"

enum report_export_format { REPORT_EXPORT_SPEEDSCOPE, REPORT_EXPORT_FOLDED };

/* Writes the processes of r->cpu: 0, or ETWCAP_E_NOMEM (the writer keeps
 * its own write errors). */
int report_export_write(struct report_writer *w, const struct report *r,
                        enum report_export_format format);

#endif
