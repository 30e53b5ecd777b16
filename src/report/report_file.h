/* `etwcap report` as one call, for the report command and for the /Report
 * qualifier of collect and replay: read a trace in one pass and write its
 * page; and `etwcap convert` the same way.  The page (or export) is written to a temporary created exclusively beside OUT
 * (os_temp_name, os_fcreate) and renamed to OUT when it is complete, so a
 * failure never leaves a half page under the final name and a planted link
 * is never followed. */
#ifndef ETWCAP_REPORT_FILE_H
#define ETWCAP_REPORT_FILE_H

#include "src/report/report_cpu.h"
#include "src/report/report_export.h"

#include <stddef.h>

/* The default page for a trace: NAME.report.html next to it (NAME.etl,
 * NAME.etl.zip and NAME.zip all give NAME).  0, or ETWCAP_E_RANGE. */
int report_default_path(const char *trace, char *out, size_t cap);

/* Writes the report of `trace` to `out` (NULL: the default path); the path
 * written goes to written.  0, or an ETWCAP_E_* code with a message in err
 * (the trace reader's for bad input, the file's for I/O). */
int report_write_file(const char *trace, const char *out, char *written, size_t written_cap,
                      char *err, size_t errcap);

/* `etwcap convert`: the CPU stacks of `trace`'s processes that sel chooses
 * (all with samples when it names none) in `format`, to `out` (NULL:
 * NAME.speedscope.json or NAME.folded.txt next to the trace), written the
 * same way.  0, or an ETWCAP_E_* code with a message in err;
 * ETWCAP_E_USAGE when sel names a process that has no samples. */
int report_convert_file(const char *trace, enum report_export_format format, const char *out,
                        const struct report_cpu_select *sel, char *written, size_t written_cap,
                        char *err, size_t errcap);

/* For /Report of collect and replay: writes the default page of the capture
 * just written to `capture` and logs where, or why not (the capture stays
 * as it is either way).  Returns 0 or the error. */
int report_after_capture(const char *capture);

#endif
