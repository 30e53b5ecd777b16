/* `etwcap convert TRACE /Format:Speedscope|Folded [/Out:FILE]
 * [/Process:NAME|PID]`: the CPU stacks of a trace as a speedscope file or
 * as folded stacks, named after dotnet-trace's convert.  Thin: the work is
 * in report_file.c (one pass, as `report`) and report_export.c. */
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"
#include "src/report/report_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_def convert_defs[] = {
  { "Format", NULL, BIND_STRING(format), "Speedscope|Folded", "Speedscope",
    "Speedscope: speedscope's file format (https://www.speedscope.app), one sampled profile "
    "per process, each distinct stack weighted by its samples. Folded: one 'process;frame;"
    "...;frame count' line per distinct stack, root first, for flamegraph.pl and inferno.",
    1, 0, NULL },
  { "Out", NULL, BIND_STRING(out), "FILE", "NAME.speedscope.json or NAME.folded.txt next to "
    "the trace",
    "Write to FILE. It is written under a temporary name and renamed when complete; an "
    "existing file of that name is replaced.",
    1, 0, NULL },
  { "Process", NULL, BIND_STRING(triggers.process), "NAME|PID", "every process with samples",
    "Only this process: a pid, or an image name (with or without .exe, any case; every "
    "process of that name).",
    1, 0, NULL },
};
static const struct opt_group convert_group = OPT_GROUP("Convert", convert_defs);
static const struct opt_group *const groups[] = { &convert_group, NULL };

/* A pid when the text is all digits (below 2^32), else a name. */
static void choose_process(const char *text, struct report_cpu_select *sel)
{
  const char *p = text;
  unsigned long long pid = 0;
  for (; *p >= '0' && *p <= '9' && pid <= 0xFFFFFFFFull; p++)
    pid = pid * 10 + (unsigned)(*p - '0');
  if (*text && !*p && pid <= 0xFFFFFFFFull) {
    sel->pid_given = 1;
    sel->pid = (uint32_t)pid;
  } else {
    sel->name = text;
  }
}

static int run_convert(const struct cli *cli)
{
  struct report_cpu_select sel;
  enum report_export_format format;
  char written[4096], err[2048];
  const char *f = cli->q.format;
  int rc;
  memset(&sel, 0, sizeof(sel));
  sel.all = 1;
  if (!f || str_caseeq(f, "Speedscope")) {
    format = REPORT_EXPORT_SPEEDSCOPE;
  } else if (str_caseeq(f, "Folded")) {
    format = REPORT_EXPORT_FOLDED;
  } else {
    log_error("/Format:%s is not a format convert writes: give /Format:Speedscope or "
              "/Format:Folded", f);
    return ETWCAP_E_USAGE;
  }
  if (cli->q.triggers.process)
    choose_process(cli->q.triggers.process, &sel);
  rc = report_convert_file(cli->args[0], format, cli->q.out, &sel, written, sizeof(written),
                           err, sizeof(err));
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  log_info("wrote %s", written);
  return 0;
}

const struct command cmd_convert = {
  "convert", run_convert, 0, "TRACE", 1, 1,
  "Write a trace's CPU stacks as a speedscope file or as folded stacks.",
    "Reads TRACE (.etl or .etl.zip) once, as 'report' does, joins each CPU sample to its stack "
    "and names the frames from the trace itself (.NET methods from the CLR's method events, "
    "other code by its image, no symbol files), and writes the stacks of every process with "
    "samples (or of /Process) in /Format: a speedscope file to open at "
    "https://www.speedscope.app, or folded stacks for flamegraph.pl and inferno.  Bad or "
    "truncated input gives the same errors and exit codes as 'dump'.",
  groups,
};
