/* The selftest's captures (see selftest_capture.h). */
#include "src/selftest/selftest_capture.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/capture/capture_cmd.h"
#include "src/cli/cli.h"

#include <stdio.h>
#include <string.h>

int selftest_collect(const struct collection_env *env, const char *prefix, const char *data,
                     const char *const *extra, size_t count)
{
  char session[96];
  char *argv[24];
  struct cli cli;
  int argc = 0, rc;
  size_t i;
  if (count > sizeof(argv) / sizeof(argv[0]) - 6)
    return ETWCAP_E_INTERNAL;
  snprintf(session, sizeof(session), "/SessionName:%s", prefix);
  argv[argc++] = (char *)"etwcap";
  argv[argc++] = (char *)"collect";
  argv[argc++] = (char *)data;
  argv[argc++] = (char *)"/ThreadTime";
  argv[argc++] = (char *)"/CpuSampleMSec:" SELFTEST_SAMPLE_MSEC_TEXT;
  argv[argc++] = session;
  for (i = 0; i < count; i++)
    argv[argc++] = (char *)extra[i];
  rc = cli_parse(&cli, argc, argv);
  if (rc) {
    log_error("selftest: its own collect command line does not parse: %s",
              cli.error ? cli.error : etwcap_strerror(rc));
    cli_release(&cli);
    return ETWCAP_E_INTERNAL;
  }
  rc = capture_cmd_collect(&cli, env);
  cli_release(&cli);
  return rc;
}

void selftest_join_path(char *out, size_t size, const char *dir, const char *name)
{
  size_t n = dir ? strlen(dir) : 0;
  if (!n)
    snprintf(out, size, "%s", name);
  else if (dir[n - 1] == '/' || dir[n - 1] == '\\')
    snprintf(out, size, "%s%s", dir, name);
  else
    snprintf(out, size, "%s/%s", dir, name);
}
