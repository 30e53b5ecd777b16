/* `/?` help, generated from the command and qualifier tables. */
#include "etw/event/keywords.h"
#include "src/cli/cli.h"
#include "src/cli/qualifiers.h"

#include "src/version.h"

#include <string.h>

#define HELP_WIDTH 79
#define HELP_COLUMN 30

/* Prints `text` wrapped at HELP_WIDTH, every line indented by `indent`, the
 * first line starting at column `col` (already printed up to there). */
static void wrap(FILE *out, const char *text, int indent, int col)
{
  const char *p = text;
  while (*p) {
    const char *word = p;
    int len;
    if (*p == '\n') {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
      p++;
      continue;
    }
    while (*p && *p != ' ' && *p != '\n')
      p++;
    len = (int)(p - word);
    if (col > indent && col + 1 + len > HELP_WIDTH) {
      fprintf(out, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', out);
      col++;
    }
    fwrite(word, 1, (size_t)len, out);
    col += len;
    while (*p == ' ')
      p++;
  }
  fputc('\n', out);
}

static const char *type_value(const struct opt_def *d)
{
  if (d->value_name)
    return d->value_name;
  switch (d->type) {
  case OPT_INT:
    return "N";
  case OPT_FLOAT:
    return "X";
  case OPT_LIST:
    return "SPEC,...";
  default:
    return "VALUE";
  }
}

/* The default help shows: the row's words, else the field's initial value
 * (qualifier_values_init) when it is not zero, else nothing. */
static const char *default_words(const struct opt_def *d, char *buf, size_t cap)
{
  static struct qualifier_values initial;
  static int initial_ready;
  const char *field;
  if (d->default_text || d->field == OPT_NO_FIELD)
    return d->default_text;
  if (!initial_ready) {
    qualifier_values_init(&initial);
    initial_ready = 1;
  }
  field = (const char *)&initial + d->field;
  switch (d->type) {
  case OPT_BOOL:
  case OPT_TRISTATE:
    return *(const int *)field > 0 ? "true" : NULL;
  case OPT_INT:
    if (!*(const int64_t *)field)
      return NULL;
    snprintf(buf, cap, "%lld", (long long)*(const int64_t *)field);
    return buf;
  case OPT_FLOAT:
    if (*(const double *)field == 0)
      return NULL;
    snprintf(buf, cap, "%g", *(const double *)field);
    return buf;
  case OPT_STRING:
  case OPT_OPTIONAL_STRING:
    return *(const char *const *)field;
  case OPT_LIST:
    break;
  }
  return NULL;
}

static void print_def(FILE *out, const struct opt_def *d)
{
  char head[128], body[1024], value[32];
  const char *dflt = default_words(d, value, sizeof(value));
  int n;
  if (d->type == OPT_BOOL || d->type == OPT_TRISTATE)
    n = snprintf(head, sizeof(head), "  /%s", d->name);
  else if (d->type == OPT_OPTIONAL_STRING)
    n = snprintf(head, sizeof(head), "  /%s[:%s]", d->name, type_value(d));
  else
    n = snprintf(head, sizeof(head), "  /%s:%s", d->name, type_value(d));
  fputs(head, out);
  if (n >= HELP_COLUMN) {
    fprintf(out, "\n%*s", HELP_COLUMN, "");
  } else {
    fprintf(out, "%*s", HELP_COLUMN - n, "");
  }
  snprintf(body, sizeof(body), "%s%s%s%s%s%s", d->help, dflt ? " [default: " : "",
           dflt ? dflt : "", dflt ? "]" : "",
           d->alias ? " Alias: /" : "", d->alias ? d->alias : "");
  wrap(out, body, HELP_COLUMN, HELP_COLUMN);
}

static void print_group(FILE *out, const struct opt_group *g)
{
  size_t i;
  int any_rejected = 0;
  fprintf(out, "\n%s:\n", g->title);
  for (i = 0; i < g->count; i++) {
    if (g->defs[i].rejected)
      any_rejected = 1;
    else
      print_def(out, &g->defs[i]);
  }
  if (!any_rejected)
    return;
  fprintf(out, "\n%s, refused (PerfView has them; etwcap does not):\n", g->title);
  for (i = 0; i < g->count; i++) {
    if (!g->defs[i].rejected)
      continue;
    fprintf(out, "  /%s%*s", g->defs[i].name,
            (int)(HELP_COLUMN - 3 - strlen(g->defs[i].name)) > 0
                ? (int)(HELP_COLUMN - 3 - strlen(g->defs[i].name))
                : 1,
            "");
    wrap(out, g->defs[i].rejected, HELP_COLUMN, HELP_COLUMN);
  }
}

void cli_print_tool_help(FILE *out)
{
  const struct command *const *c;
  fprintf(out, "etwcap %s - Event Tracing for Windows collector with PerfView's command line\n\n",
          ETWCAP_VERSION);
  fputs("Usage: etwcap [qualifiers] COMMAND [args] [qualifiers]\n\n", out);
  wrap(out,
       "Qualifiers are /Name, /Name:value, /Name=value or -Name:value; names are "
       "case-insensitive. @FILE reads more arguments from a response file. -- ends "
       "qualifiers.",
       0, 0);
  fputs("\nCommands:\n", out);
  for (c = etwcap_commands; *c; c++) {
    char head[96];
    int n;
    if ((*c)->flags & CMD_HIDDEN)
      continue;
    n = snprintf(head, sizeof(head), "  %s %s", (*c)->name,
                 (*c)->args_usage ? (*c)->args_usage : "");
    fputs(head, out);
    if (n >= HELP_COLUMN)
      fprintf(out, "\n%*s", HELP_COLUMN, "");
    else
      fprintf(out, "%*s", HELP_COLUMN - n, "");
    wrap(out, (*c)->summary, HELP_COLUMN, HELP_COLUMN);
  }
  print_group(out, &opt_group_common);
  print_group(out, &opt_group_viewer);
  fputs("\nRun 'etwcap COMMAND /?' for a command's qualifiers.\n", out);
}

/* 1 when a command's groups hold the qualifier `name`. */
static int takes(const struct command *cmd, const char *name)
{
  const struct opt_group *const *g;
  size_t i;
  for (g = cmd->groups; g && *g; g++)
    for (i = 0; i < (*g)->count; i++)
      if (!strcmp((*g)->defs[i].name, name))
        return 1;
  return 0;
}

/* The names a keyword qualifier takes, from the table that parses them. */
static void print_keyword_names(FILE *out, const struct keyword_set *set)
{
  char text[4096];
  size_t i, n = 0;
  n += (size_t)snprintf(text + n, sizeof(text) - n, "Names for /%s:", set->qualifier);
  for (i = 0; i < set->composite_count && n < sizeof(text); i++)
    n += (size_t)snprintf(text + n, sizeof(text) - n, " %s", set->composites[i].name);
  for (i = 0; i < set->bit_count && n < sizeof(text); i++)
    n += (size_t)snprintf(text + n, sizeof(text) - n, " %s", set->bits[i].name);
  fputc('\n', out);
  wrap(out, text, 0, 0);
}

void cli_print_command_help(FILE *out, const struct command *cmd)
{
  const struct opt_group *const *g;
  if (cmd->flags & CMD_REST_IS_ARGS) /* its arguments end the line */
    fprintf(out, "Usage: etwcap [qualifiers] %s %s\n\n", cmd->name, cmd->args_usage);
  else
    fprintf(out, "Usage: etwcap %s%s%s [qualifiers]\n\n", cmd->name, cmd->args_usage ? " " : "",
            cmd->args_usage ? cmd->args_usage : "");
  wrap(out, cmd->description, 0, 0);
  if (cmd->help_extra)
    cmd->help_extra(out);
  if (cmd->flags & CMD_NEEDS_WINDOWS)
    fputs("\nRuns on Windows only (it talks to the operating system's ETW).\n", out);
  if (cmd->flags & CMD_NEEDS_ADMIN)
    fputs("Needs an elevated (Administrator) prompt.\n", out);
  for (g = cmd->groups; g && *g; g++)
    print_group(out, *g);
  print_group(out, &opt_group_common);
  fputs("\nPerfView's viewer, symbol and analysis settings (/NoView, /SafeMode, ...) are accepted "
        "with every command and do nothing: 'etwcap /?' lists them.\n", out);
  if (takes(cmd, "KernelEvents"))
    print_keyword_names(out, &keywords_kernel);
  if (takes(cmd, "ClrEvents"))
    print_keyword_names(out, &keywords_clr);
  if (takes(cmd, "TplEvents"))
    print_keyword_names(out, &keywords_tpl);
}
