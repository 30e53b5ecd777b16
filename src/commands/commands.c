/* The command table and the qualifiers every command accepts. */
#include "src/cli/command.h"

#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"
#include "src/cli/cli.h"
#include "src/cli/qualifiers.h"

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

const struct opt_group *const opt_groups_common[] = { &opt_group_common, &opt_group_viewer, NULL };

extern const struct command cmd_run, cmd_collect, cmd_snapshot, cmd_schedule, cmd_start, cmd_stop, cmd_abort, cmd_list_sessions,
    cmd_merge, cmd_unzip, cmd_mark, cmd_dump, cmd_info, cmd_replay, cmd_report, cmd_convert, cmd_plan,
    cmd_selftest, cmd_selftest_child, cmd_version, cmd_list_cpu_counters;

const struct command *const etwcap_commands[] = {
  &cmd_run, &cmd_collect, &cmd_snapshot, &cmd_schedule, &cmd_start,  &cmd_stop,     &cmd_abort,          &cmd_list_sessions,
  &cmd_list_cpu_counters, &cmd_merge,   &cmd_unzip, &cmd_mark, &cmd_dump,   &cmd_info,
  &cmd_replay, &cmd_report, &cmd_convert, &cmd_plan,    &cmd_selftest, &cmd_selftest_child, &cmd_version, NULL,
};

const struct command *command_find(const char *name)
{
  const struct command *const *c;
  for (c = etwcap_commands; *c; c++)
    if (str_caseeq((*c)->name, name))
      return *c;
  return NULL;
}

/* PerfView's commands etwcap does not have, each with the reason
 * (CommandLineArgs.cs's parameter sets; tests/data/perfview-command-line.txt). */
static const struct {
  const char *name;
  const char *reason;
} perfview_only[] = {
  { "HeapSnapshot", "heap snapshots need PerfView's HeapDump.exe; 'dotnet-gcdump collect' "
                    "takes one of a .NET Core process" },
  { "HeapSnapshotFromProcessDump", "heap snapshots need PerfView's HeapDump.exe" },
  { "ForceGC", "forcing a GC needs PerfView's HeapDump.exe" },
  { "CollectCrossGenerationLiveness", "it takes a heap snapshot with PerfView's HeapDump.exe" },
  { "GuiRun", "etwcap has no windows: 'etwcap run' is the same capture from the command line" },
  { "GuiCollect", "etwcap has no windows: 'etwcap collect' is the same capture" },
  { "GuiHeapSnapshot", "etwcap has no windows, and heap snapshots need PerfView's HeapDump.exe" },
  { "UserCommand", "user commands are PerfView extensions, .NET assemblies etwcap cannot load" },
  { "UserCommandHelp", "user commands are PerfView extensions, .NET assemblies etwcap cannot load" },
  { "CreateExtensionProject", "PerfView extensions are .NET projects for PerfView itself" },
  { "EnableKernelStacks", "it sets DisablePagingExecutive so that Windows 7 x64 can walk kernel "
                          "stacks; on Windows 8 and later PerfView itself does nothing" },
  { "DisableKernelStacks", "it undoes EnableKernelStacks, which etwcap does not have" },
};

const char *command_perfview_only(const char *name)
{
  size_t i;
  for (i = 0; i < sizeof(perfview_only) / sizeof(perfview_only[0]); i++)
    if (str_caseeq(perfview_only[i].name, name))
      return perfview_only[i].reason;
  return NULL;
}
