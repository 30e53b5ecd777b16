/* `etwcap version`: the version, the build's target and the libraries in it. */
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/version.h"

#include <stdio.h>
#include <zlib.h>

static int run_version(const struct cli *cli)
{
  (void)cli;
  printf("etwcap %s (%s, zlib %s)\n", ETWCAP_VERSION, ETWCAP_TARGET, zlibVersion());
  return 0;
}

const struct command cmd_version = {
  "version", run_version, 0, NULL, 0, 0,
  "Print etwcap's version.",
  "Prints etwcap's version, the platform it was built for and the zlib it links.",
  NULL,
};
