/* See plan_of.h. */
#include "tests/fakes/plan_of.h"

#include "tests/fakes/test_support.h"

#include "src/cli/cli.h"
#include "src/cli/plan_cli.h"
#include "tests/fakes/fake_controller.h"
#include "triggers/trigger_engine.h"

int test_plan_of(const char *first, const char *const *args, struct plan *plan)
{
  char *argv[32];
  struct cli cli;
  struct plan_options o;
  struct trigger_engine *e = NULL;
  char err[256];
  int argc = 0, rc;
  argv[argc++] = (char *)"etwcap";
  if (first)
    argv[argc++] = (char *)first;
  for (; *args && argc < 31; args++)
    argv[argc++] = (char *)*args;
  assert_null(*args);
  assert_int_equal(cli_parse(&cli, argc, argv), 0);
  assert_int_equal(trigger_engine_create(&e, &cli.q.triggers, err, sizeof(err)), 0);
  assert_int_equal(plan_options_from_cli(&cli, e, &fake_env_os, &o, err, sizeof(err)), 0);
  rc = plan_build(&o, plan);
  trigger_engine_free(e);
  cli_release(&cli);
  return rc;
}
