/* The command table and the qualifiers every command accepts. */
#include "command.h"

#include "cli.h"
#include "error.h"
#include "log.h"
#include "strutil.h"

#include <stddef.h>

static const struct opt_def common_defs[] = {
  { "LogFile", NULL, BIND_STRING(log_file), "FILE", NULL,
    "Append everything etwcap logs to FILE (UTF-8, one timestamped line per message), as "
    "well as printing it. Implies /NoGui.",
    0, 0, NULL },
  { "NoGui", NULL, UNBOUND(OPT_BOOL), NULL, NULL,
    "Run without any window. etwcap never opens one, so this is always in effect; accepted so "
    "PerfView command lines run unchanged.",
    0, 0, NULL },
  { "AcceptEula", NULL, UNBOUND(OPT_BOOL), NULL, NULL,
    "Accept the licence without a prompt. etwcap is MIT-licensed and never prompts; accepted "
    "so PerfView command lines run unchanged.",
    0, 0, NULL },
};

const struct opt_group opt_group_common = OPT_GROUP("Qualifiers for every command", common_defs);

extern const struct command cmd_collect, cmd_start, cmd_stop, cmd_abort, cmd_list_sessions,
    cmd_merge, cmd_dump, cmd_info, cmd_replay, cmd_report, cmd_plan, cmd_selftest,
    cmd_selftest_child, cmd_version;

const struct command *const etwcap_commands[] = {
  &cmd_collect, &cmd_start,  &cmd_stop,     &cmd_abort,          &cmd_list_sessions,
  &cmd_merge,   &cmd_dump,   &cmd_info,     &cmd_replay,         &cmd_report,
  &cmd_plan,    &cmd_selftest, &cmd_selftest_child, &cmd_version, NULL,
};

const struct command *command_find(const char *name)
{
  const struct command *const *c;
  for (c = etwcap_commands; *c; c++)
    if (str_caseeq((*c)->name, name))
      return *c;
  return NULL;
}
