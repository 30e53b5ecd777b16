/* `etwcap info`: summarise a trace: time range, OS, CPUs, clock, logger,
 * events and bytes per provider, extended items, events lost, compression.
 * Thin: the statistics and the report live in etw/etl/etl_summary.c. */
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_summary.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

#include <stdio.h>

static const struct opt_group *const groups[] = { NULL };

struct info_ctx {
  FILE *out;
  unsigned files; /* reports written, for the blank line between zip members */
};

static int write_line(void *ctx, const char *line)
{
  struct info_ctx *c = ctx;
  return fprintf(c->out, "%s\n", line) < 0 ? ETWCAP_E_IO : 0;
}

static int info_one(void *ctx, const char *display, struct etl_reader *r)
{
  struct info_ctx *c = ctx;
  struct etl_summary s;
  int rc = etl_summary_collect(&s, r);
  if (rc == 0) {
    if (c->files++)
      fputc('\n', c->out);
    rc = etl_summary_report(&s, display, write_line, c);
  }
  etl_summary_release(&s);
  return rc;
}

static int run_info(const struct cli *cli)
{
  struct info_ctx c = { stdout, 0 };
  char err[1024];
  int rc = etl_source_foreach(cli->args[0], info_one, &c, err, sizeof(err));
  fflush(stdout);
  if (rc)
    log_error("%s", err);
  return rc;
}

const struct command cmd_info = {
  "info", run_info, 0, "FILE", 1, 1,
  "Summarise a trace: time range, OS, CPUs, providers, events lost.",
    "Prints the time range and duration, OS version and build, CPUs, clock, logger, events "
    "and bytes per provider, extended items, events and buffers lost, and compression of a "
    "trace (of each .etl member for a zip).",
  groups,
};
