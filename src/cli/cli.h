/* Parsing argv against the command table (see options.h for the syntax).
 * A parsed `struct cli` owns copies of everything it points to; it lives
 * until cli_release. */
#ifndef ETWCAP_CLI_H
#define ETWCAP_CLI_H

#include "src/cli/command.h"
#include "src/cli/options.h"
#include "src/cli/qualifier_values.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cli {
  const struct command *cmd; /* NULL when only help was asked for */
  char **args;               /* positionals after the command */
  size_t arg_count;
  struct opt_value *values;  /* qualifiers given, in order of first appearance */
  size_t value_count;
  struct qualifier_values q; /* every qualifier's value: given, or its default */
  int help;                  /* /? was given */
  char *command_line;        /* "etwcap ARGS..." as typed, for logs and manifests */
  char *error;               /* parse error text when cli_parse fails */
};

/* Parses argv[1..argc-1] (UTF-8).  Expands @file response files.  On error
 * returns ETWCAP_E_USAGE (or NOMEM, NOENT for a missing response file) and
 * leaves a message naming the token and its position in cli->error. */
int cli_parse(struct cli *cli, int argc, char **argv);
void cli_release(struct cli *cli);

/* Help generated from the tables. */
void cli_print_tool_help(FILE *out);
void cli_print_command_help(FILE *out, const struct command *cmd);

/* Finds a qualifier definition by name or alias among every command's
 * tables (all definitions of one name share a type: a test checks it). */
const struct opt_def *cli_find_def(const char *name);
/* Does `cmd` accept this definition? */
int cli_command_accepts(const struct command *cmd, const struct opt_def *def);

#endif
