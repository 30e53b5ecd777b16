/* See cli_log_file.h. */
#include "src/cli/cli_log_file.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/cli/command.h"
#include "src/cli/qualifier_values.h"

#include <stddef.h>
#include <stdio.h>

/* The qualifiers whose value names a file the command reads or writes. */
static const size_t file_fields[] = {
  offsetof(struct qualifier_values, plan.data_file),
  offsetof(struct qualifier_values, out),
  offsetof(struct qualifier_values, counter_log),
};

/* 1 when `path` names the file `log` identifies. */
static int is_log(const char *path, const struct os_file_id *log)
{
  struct os_file_id id;
  return path && *path && os_path_id(path, &id) == 0 && id.volume == log->volume &&
         id.index_high == log->index_high && id.index_low == log->index_low;
}

/* The command's file that is the log, as "the argument 'X'" or
 * "/Out:'X'" into `what`: 1, or 0 when none is. */
static int find_clash(const struct cli *cli, const struct os_file_id *log, char *what,
                      size_t cap)
{
  const struct opt_group *const *g;
  size_t i, k;
  if (!(cli->cmd->flags & CMD_REST_IS_ARGS))
    for (i = 0; i < cli->arg_count; i++)
      if (is_log(cli->args[i], log)) {
        snprintf(what, cap, "the argument '%s'", cli->args[i]);
        return 1;
      }
  for (g = cli->cmd->groups; g && *g; g++)
    for (i = 0; i < (*g)->count; i++)
      for (k = 0; k < sizeof(file_fields) / sizeof(file_fields[0]); k++) {
        const struct opt_def *d = &(*g)->defs[i];
        const char *value;
        if (d->field != file_fields[k])
          continue;
        value = *(const char *const *)((const char *)&cli->q + d->field);
        if (is_log(value, log)) {
          snprintf(what, cap, "/%s:'%s'", d->name, value);
          return 1;
        }
      }
  return 0;
}

int cli_log_file_open(const struct cli *cli, FILE **out, char *why, size_t cap)
{
  const char *path = cli->q.log_file;
  struct os_file_id id;
  char what[1100];
  FILE *f;
  int existed;
  *out = NULL;
  if (!path)
    return 0;
  existed = os_path_id(path, &id) == 0;
  /* Opening for appending writes nothing.  The log is opened before the
   * comparison so that a log it creates is compared too: an output that
   * does not exist yet, named with another spelling, is then that file. */
  f = os_fopen(path, "ab");
  if (!f || os_path_id(path, &id) != 0) {
    char text[256];
    os_last_error_text(text, sizeof(text));
    snprintf(why, cap, "cannot open log file '%s': %s", path, text);
    if (f)
      fclose(f);
    return ETWCAP_E_IO;
  }
  if (!find_clash(cli, &id, what, sizeof(what))) {
    *out = f;
    return 0;
  }
  fclose(f);
  if (!existed)
    os_remove_same(path, &id);
  snprintf(why, cap,
           "/LogFile:'%s' is the same file as %s of '%s': the log would be written into it. "
           "Give /LogFile a file of its own.",
           path, what, cli->cmd->name);
  return ETWCAP_E_USAGE;
}
