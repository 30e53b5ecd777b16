/* `etwcap dump`: print every event of .etl files and of every .etl member
 * of zip archives, one tab-separated line each, in the golden listings'
 * format (etw/etl/etl_dump.h).  Thin: reading and formatting live in etw/. */
#include "etw/etl/etl_dump.h"
#include "etw/etl/etl_source.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

#include <stdio.h>

static const struct opt_def dump_defs[] = {
  { "TimeOrder", NULL, BIND_BOOL(time_order), NULL, "false",
    "List each file's events in global time order (per-CPU buffers merged by "
    "timestamp) instead of file order.", 0, 0, NULL },
};
static const struct opt_group dump_group = OPT_GROUP("Dump", dump_defs);
static const struct opt_group *const groups[] = { &dump_group, NULL };

struct dump_ctx {
  FILE *out;
  int time_order;
};

static int write_line(void *ctx, const char *line, size_t len)
{
  struct dump_ctx *d = ctx;
  if (fwrite(line, 1, len, d->out) != len || fputc('\n', d->out) == EOF)
    return ETWCAP_E_IO;
  return 0;
}

static int dump_one(void *ctx, const char *display, struct etl_reader *r)
{
  struct dump_ctx *d = ctx;
  if (fprintf(d->out, "# FILE %s\n", display) < 0)
    return ETWCAP_E_IO;
  return etl_dump_reader(r, d->time_order, write_line, d);
}

static int run_dump(const struct cli *cli)
{
  static char outbuf[1 << 20];
  struct dump_ctx d;
  char err[1024];
  size_t i;
  int first_rc = 0;

  d.out = stdout;
  d.time_order = cli->q.time_order;
  setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
  for (i = 0; i < cli->arg_count; i++) {
    int rc = etl_source_foreach(cli->args[i], dump_one, &d, err, sizeof(err));
    if (rc) {
      fflush(stdout);
      log_error("%s", err);
      if (!first_rc)
        first_rc = rc;
    }
  }
  if (fflush(stdout) != 0 && !first_rc) {
    log_error("cannot write the listing to standard output");
    first_rc = ETWCAP_E_IO;
  }
  return first_rc;
}

const struct command cmd_dump = {
  "dump", run_dump, 0, "FILE...", 1, 1000,
  "Print every event of .etl or .etl.zip files as text.",
    "Prints one tab-separated line per event (buffer, CPU, raw timestamp, UTC time, header "
    "type, provider, identity, payload size, process and thread, payload CRC) for each .etl "
    "and each .etl member of a zip.  Each file starts with a '# FILE NAME' line "
    "('# FILE ARCHIVE!MEMBER' for zip members) and a '#' line describing its logfile "
    "header.  Errors name the file and the byte offset, and the exit code is non-zero.",
  groups,
};
