/* `etwcap report TRACE [/Out:FILE.html]`: one self-contained HTML page that
 * shows what a capture caught.  Thin: the work is in report_file.c and the
 * report_* files it calls. */
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"
#include "src/report/report_file.h"

#include <stdio.h>

static const struct opt_def report_defs[] = {
  { "Out", NULL, BIND_STRING(out), "FILE.html", "NAME.report.html next to the trace",
    "Write the page to FILE.html. It is written under a temporary name and renamed when "
    "complete; an existing file of that name is replaced.",
    0, 0, NULL },
};
static const struct opt_group report_group = OPT_GROUP("Report", report_defs);
static const struct opt_group *const groups[] = { &report_group, NULL };

static int run_report(const struct cli *cli)
{
  char written[4096], err[2048];
  int rc = report_write_file(cli->args[0], cli->q.out, written,
                             sizeof(written), err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  log_info("wrote %s", written);
  return 0;
}

const struct command cmd_report = {
  "report", run_report, 0, "TRACE", 1, 1,
  "Write one self-contained HTML page that shows what a trace caught.",
    "Reads TRACE (.etl or .etl.zip) once and writes NAME.report.html next to it (or /Out): "
    "the capture (time range, OS, CPUs, sessions, events and buffers lost, the trigger that "
    "fired and the command line, from the capture manifest when there is one), a timeline of "
    "events per second for the busiest providers, context switches and CPU samples, every "
    ".NET GC per process as PerfView's GCStats computes it (pause, duration, heap after, "
    "promoted, pause histogram), .NET exceptions by type and process, the processes with "
    "their CPU samples, and whether the images carry the identity events that let symbols "
    "resolve on another machine.  The page needs nothing else: no network, no other file; "
    "the same numbers are embedded as JSON (schema etwcap-report/1, see README.md).  Bad or "
    "truncated input gives the same errors and exit codes as 'dump'.",
  groups,
};
