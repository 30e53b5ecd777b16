/* The command table: one row per command, one file per command (cmd_*.c).
 * Adding a command is adding its file and its row in commands.c. */
#ifndef ETWCAP_COMMAND_H
#define ETWCAP_COMMAND_H

#include "src/cli/options.h"

#include <stddef.h>
#include <stdio.h>

struct cli;
struct collection_env;

enum command_flags {
  CMD_NEEDS_WINDOWS = 1 << 0, /* talks to ETW: refused elsewhere with a clear message */
  CMD_NEEDS_ADMIN = 1 << 1,   /* checked before run on Windows */
  CMD_HIDDEN = 1 << 2,        /* not listed in `etwcap /?` */
  CMD_REST_IS_ARGS = 1 << 3   /* every token after the command is a positional
                               * (run's command line), as `--` would make it */
};

/* A command's run function logs its own error details (log_error) before
 * returning a negative ETWCAP_E_* code; main turns the code into the exit
 * code documented in README.md. */
struct command {
  const char *name;
  int (*run)(const struct cli *cli);
  unsigned flags;
  const char *args_usage; /* e.g. "[DataFile]", shown in help */
  size_t min_args, max_args;
  const char *summary;     /* one line for the command list */
  const char *description; /* paragraphs for `etwcap CMD /?` */
  const struct opt_group *const *groups; /* NULL-terminated */
  /* More help after the description, generated from the command's own
   * tables (NULL: none). */
  void (*help_extra)(FILE *out);
  /* A live-capture command's work, given the surroundings it runs in
   * (collection_env.h): its `run` is capture_cmd_on_system, which gives it
   * the system's, and the lifecycle tests run the same row against fakes.
   * NULL for every other command. */
  int (*run_in)(const struct cli *cli, const struct collection_env *env);
};

/* The table, NULL-terminated (commands.c). */
extern const struct command *const etwcap_commands[];

/* Case-insensitive lookup; NULL when there is no such command. */
const struct command *command_find(const char *name);
/* For a PerfView command etwcap does not have, why; else NULL. */
const char *command_perfview_only(const char *name);

/* Qualifiers every command accepts (commands.c): opt_group_common, then
 * PerfView's viewer settings; NULL-terminated. */
extern const struct opt_group opt_group_common;
extern const struct opt_group *const opt_groups_common[];

#endif
