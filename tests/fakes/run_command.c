/* See run_command.h. */
#include "tests/fakes/run_command.h"

#include "tests/fakes/test_support.h"

#include "src/cli/cli.h"
#include "src/cli/command.h"

int test_run_command(const struct collection_env *env, const char *const *args)
{
  char *argv[32];
  struct cli cli;
  int argc = 0, rc;
  argv[argc++] = (char *)"etwcap";
  for (; *args && argc < 32; args++)
    argv[argc++] = (char *)*args;
  assert_null(*args);
  assert_int_equal(cli_parse(&cli, argc, argv), 0);
  assert_non_null(cli.cmd);
  assert_non_null(cli.cmd->run_in);
  rc = cli.cmd->run_in(&cli, env);
  cli_release(&cli);
  return rc;
}
