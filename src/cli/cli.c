/* The qualifier parser (syntax in options.h) and the help generator. */
#include "src/cli/cli.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"
#include "src/cli/response_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 79

static void set_error(struct cli *cli, const char *fmt, ...) LOG_PRINTF(2, 3);

static void set_error(struct cli *cli, const char *fmt, ...)
{
  char buf[1024];
  va_list ap;
  if (cli->error)
    return; /* the first error is the one worth reporting */
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  cli->error = etwcap_strdup(buf);
}

/* --- looking up definitions -------------------------------------------- */

static int def_has_name(const struct opt_def *d, const char *name, size_t len)
{
  return (strlen(d->name) == len && str_ncaseeq(d->name, name, len)) ||
         (d->alias && strlen(d->alias) == len && str_ncaseeq(d->alias, name, len));
}

static const struct opt_def *find_in_groups(const struct opt_group *const *groups,
                                            const char *name, size_t len)
{
  size_t i;
  for (; groups && *groups; groups++)
    for (i = 0; i < (*groups)->count; i++)
      if (def_has_name(&(*groups)->defs[i], name, len))
        return &(*groups)->defs[i];
  return NULL;
}

static const struct opt_def *find_def_n(const char *name, size_t len)
{
  const struct command *const *c;
  const struct opt_def *d = find_in_groups(opt_groups_common, name, len);
  for (c = etwcap_commands; !d && *c; c++)
    d = find_in_groups((*c)->groups, name, len);
  return d;
}

const struct opt_def *cli_find_def(const char *name)
{
  return find_def_n(name, strlen(name));
}

static int group_holds(const struct opt_group *const *groups, const struct opt_def *def)
{
  size_t i;
  for (; groups && *groups; groups++)
    for (i = 0; i < (*groups)->count; i++)
      if (&(*groups)->defs[i] == def)
        return 1;
  return 0;
}

int cli_command_accepts(const struct command *cmd, const struct opt_def *def)
{
  return group_holds(opt_groups_common, def) || (cmd && group_holds(cmd->groups, def));
}

/* --- "did you mean" ------------------------------------------------------ */

static size_t edit_distance(const char *a, size_t la, const char *b)
{
  size_t lb = strlen(b), i, j, prev[64], cur[64];
  if (la >= 63 || lb >= 63)
    return 99;
  for (j = 0; j <= lb; j++)
    prev[j] = j;
  for (i = 1; i <= la; i++) {
    cur[0] = i;
    for (j = 1; j <= lb; j++) {
      size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      size_t best = prev[j - 1] + cost;
      if (prev[j] + 1 < best)
        best = prev[j] + 1;
      if (cur[j - 1] + 1 < best)
        best = cur[j - 1] + 1;
      cur[j] = best;
    }
    memcpy(prev, cur, (lb + 1) * sizeof(size_t));
  }
  return prev[lb];
}

static void consider(const char *candidate, const char *name, size_t len, const char **best,
                     size_t *best_dist)
{
  size_t d;
  if (!candidate)
    return;
  d = edit_distance(name, len, candidate);
  /* A prefix of a long name ("/Circ" for "/CircularMB") is a good hint too. */
  if (len >= 3 && strlen(candidate) > len && str_ncaseeq(candidate, name, len))
    d = 1;
  if (d < *best_dist) {
    *best_dist = d;
    *best = candidate;
  }
}

static void consider_groups(const struct opt_group *const *g, const char *name, size_t len,
                            const char **best, size_t *best_dist)
{
  size_t i;
  for (; g && *g; g++)
    for (i = 0; i < (*g)->count; i++) {
      if ((*g)->defs[i].rejected)
        continue;
      consider((*g)->defs[i].name, name, len, best, best_dist);
      consider((*g)->defs[i].alias, name, len, best, best_dist);
    }
}

/* The nearest qualifier name of any command: the command may come later on
 * the line, and a name from another command is still the likely intent. */
static const char *suggest(const char *name, size_t len)
{
  const struct command *const *c;
  const char *best = NULL;
  size_t best_dist = len / 3 + 2;
  consider_groups(opt_groups_common, name, len, &best, &best_dist);
  for (c = etwcap_commands; *c; c++)
    consider_groups((*c)->groups, name, len, &best, &best_dist);
  return best;
}

static const char *suggest_command(const char *word)
{
  const struct command *const *c;
  const char *best = NULL;
  size_t best_dist = strlen(word) / 3 + 2;
  for (c = etwcap_commands; *c; c++)
    consider((*c)->name, word, strlen(word), &best, &best_dist);
  return best;
}

/* --- typed values ---------------------------------------------------------- */

static int parse_bool_text(const char *text, int *out)
{
  if (!text || !*text) { /* PerfView: /X: (empty) means false */
    *out = text ? 0 : 1;
    return 0;
  }
  if (str_caseeq(text, "true")) {
    *out = 1;
    return 0;
  }
  if (str_caseeq(text, "false")) {
    *out = 0;
    return 0;
  }
  return -1;
}

static int convert_value(struct cli *cli, struct opt_value *v, const char *shown)
{
  const struct opt_def *d = v->def;
  switch (d->type) {
  case OPT_BOOL:
  case OPT_TRISTATE:
    if (parse_bool_text(v->text, &v->bool_value) != 0) {
      set_error(cli, "qualifier %s: '%s' is not a boolean (use true or false)", shown, v->text);
      return ETWCAP_E_USAGE;
    }
    return 0;
  case OPT_INT:
    if (!v->text || str_parse_int64(v->text, &v->int_value) != 0) {
      set_error(cli, "qualifier %s: '%s' is not an integer (decimal, or hex with 0x)", shown,
                v->text ? v->text : "");
      return ETWCAP_E_USAGE;
    }
    if ((d->min || d->max) && (v->int_value < d->min || v->int_value > d->max)) {
      set_error(cli, "qualifier %s: %lld is out of range (%lld to %lld)", shown,
                (long long)v->int_value, (long long)d->min, (long long)d->max);
      return ETWCAP_E_USAGE;
    }
    return 0;
  case OPT_FLOAT:
    if (!v->text || str_parse_double(v->text, &v->float_value) != 0 ||
        !isfinite(v->float_value)) {
      set_error(cli, "qualifier %s: '%s' is not a number", shown, v->text ? v->text : "");
      return ETWCAP_E_USAGE;
    }
    if ((d->min || d->max) && (v->float_value < (double)d->min || v->float_value > (double)d->max)) {
      set_error(cli, "qualifier %s: %g is out of range (%lld to %lld)", shown, v->float_value,
                (long long)d->min, (long long)d->max);
      return ETWCAP_E_USAGE;
    }
    return 0;
  case OPT_OPTIONAL_STRING:
    if (!v->text && !(v->text = etwcap_strdup("")))
      return ETWCAP_E_NOMEM;
    return 0;
  case OPT_STRING:
    if (!v->text || strlen(v->text) < (size_t)d->min) {
      set_error(cli, "qualifier %s needs a value: %s:%s", shown, shown,
                d->value_name ? d->value_name : "VALUE");
      return ETWCAP_E_USAGE;
    }
    return 0;
  case OPT_LIST:
    return 0;
  }
  return ETWCAP_E_INTERNAL;
}

static int append_items(struct cli *cli, struct opt_value *v, const char *text, const char *shown)
{
  const char *p = text, *comma;
  if (!text || !*text) {
    set_error(cli, "qualifier %s needs a value: %s:%s", shown, shown,
              v->def->value_name ? v->def->value_name : "VALUE");
    return ETWCAP_E_USAGE;
  }
  for (;;) {
    char **grown;
    comma = strchr(p, ',');
    grown = etwcap_reallocarray(v->items, v->item_count + 1, sizeof(char *));
    if (!grown)
      return ETWCAP_E_NOMEM;
    v->items = grown;
    v->items[v->item_count] = comma ? etwcap_strndup(p, (size_t)(comma - p)) : etwcap_strdup(p);
    if (!v->items[v->item_count])
      return ETWCAP_E_NOMEM;
    v->item_count++;
    if (!comma)
      return 0;
    p = comma + 1;
  }
}

/* --- tokens ------------------------------------------------------------------ */

static int is_help_token(const char *t)
{
  return !strcmp(t, "/?") || !strcmp(t, "-?") || !strcmp(t, "-h") || !strcmp(t, "--help") ||
         str_caseeq(t, "/help") || str_caseeq(t, "-help");
}

/* A qualifier is '/' or '-' and a name made of letters and digits, then the
 * end or ':' or '='.  Anything else ("/tmp/x.etl", "-", "-5") is positional:
 * on POSIX systems paths start with '/'. */
static int qualifier_name(const char *t, size_t *len)
{
  size_t n = 0;
  if ((t[0] != '/' && t[0] != '-') || !isalpha((unsigned char)t[1]))
    return 0;
  while (isalnum((unsigned char)t[1 + n]) || t[1 + n] == '_' ||
         (t[1 + n] == '.' && isalnum((unsigned char)t[2 + n])))
    n++;
  if (t[1 + n] != '\0' && t[1 + n] != ':' && t[1 + n] != '=')
    return 0;
  *len = n;
  return 1;
}

static struct opt_value *value_for(struct cli *cli, const struct opt_def *def)
{
  size_t i;
  struct opt_value *grown;
  for (i = 0; i < cli->value_count; i++)
    if (cli->values[i].def == def)
      return &cli->values[i];
  grown = etwcap_reallocarray(cli->values, cli->value_count + 1, sizeof(*grown));
  if (!grown)
    return NULL;
  cli->values = grown;
  memset(&grown[cli->value_count], 0, sizeof(*grown));
  grown[cli->value_count].def = def;
  return &grown[cli->value_count++];
}

static int add_arg(struct cli *cli, const char *arg)
{
  char **grown = etwcap_reallocarray(cli->args, cli->arg_count + 1, sizeof(char *));
  if (!grown)
    return ETWCAP_E_NOMEM;
  cli->args = grown;
  cli->args[cli->arg_count] = etwcap_strdup(arg);
  if (!cli->args[cli->arg_count])
    return ETWCAP_E_NOMEM;
  cli->arg_count++;
  return 0;
}

/* Records one qualifier occurrence.  *consumed_next is set when the value was
 * the following token (/Name value). */
static int take_qualifier(struct cli *cli, char **tok, size_t ntok, size_t i, size_t name_len,
                          int *consumed_next)
{
  const char *t = tok[i];
  const struct opt_def *def = find_def_n(t + 1, name_len);
  const char *inline_value = t[1 + name_len] ? t + 2 + name_len : NULL;
  struct opt_value *v;
  char shown[80];

  snprintf(shown, sizeof(shown), "%c%.*s", t[0], (int)name_len, t + 1);
  *consumed_next = 0;
  if (!def) {
    const char *hint = suggest(t + 1, name_len);
    if (hint)
      set_error(cli, "unknown qualifier '%s' (argument %zu). Did you mean '/%s'?", shown, i + 1,
                hint);
    else
      set_error(cli, "unknown qualifier '%s' (argument %zu). Run 'etwcap /?' for the list.",
                shown, i + 1);
    return ETWCAP_E_USAGE;
  }
  if (def->rejected) {
    set_error(cli, "qualifier '%s' (argument %zu) is not supported by etwcap: %s", shown, i + 1,
              def->rejected);
    return ETWCAP_E_USAGE;
  }
  v = value_for(cli, def);
  if (!v)
    return ETWCAP_E_NOMEM;
  if (def->type != OPT_BOOL && def->type != OPT_TRISTATE && def->type != OPT_OPTIONAL_STRING &&
      !inline_value && i + 1 < ntok &&
      tok[i + 1][0] != '/' && tok[i + 1][0] != '-' && !is_help_token(tok[i + 1])) {
    inline_value = tok[i + 1];
    *consumed_next = 1;
  }
  if (def->type == OPT_LIST) {
    if (!v->position)
      v->position = (int)i + 1;
    return append_items(cli, v, inline_value, shown);
  }
  if (v->position) {
    set_error(cli, "qualifier '%s' (argument %zu) was specified more than once", shown, i + 1);
    return ETWCAP_E_USAGE;
  }
  v->position = (int)i + 1;
  if (inline_value && !(v->text = etwcap_strdup(inline_value)))
    return ETWCAP_E_NOMEM;
  return convert_value(cli, v, shown);
}

static int check_against_command(struct cli *cli)
{
  size_t i;
  for (i = 0; i < cli->value_count; i++) {
    const struct opt_def *d = cli->values[i].def;
    if (!cli_command_accepts(cli->cmd, d)) {
      /* The command may declare its own definition of this name. */
      const struct opt_def *own = find_in_groups(cli->cmd->groups, d->name, strlen(d->name));
      if (own && own->type == d->type && !own->rejected) {
        cli->values[i].def = own;
        continue;
      }
      set_error(cli, "qualifier '/%s' (argument %d) does not apply to '%s'. Run 'etwcap %s /?' "
                     "for the qualifiers it takes.",
                d->name, cli->values[i].position, cli->cmd->name, cli->cmd->name);
      return ETWCAP_E_USAGE;
    }
  }
  if (cli->arg_count < cli->cmd->min_args) {
    set_error(cli, "'%s' needs %s. Usage: etwcap %s %s", cli->cmd->name,
              cli->cmd->args_usage, cli->cmd->name, cli->cmd->args_usage);
    return ETWCAP_E_USAGE;
  }
  if (cli->arg_count > cli->cmd->max_args) {
    set_error(cli, "'%s' takes %s; unexpected argument '%s'. Usage: etwcap %s %s",
              cli->cmd->name, cli->cmd->max_args ? cli->cmd->args_usage : "no arguments",
              cli->args[cli->cmd->max_args], cli->cmd->name,
              cli->cmd->args_usage ? cli->cmd->args_usage : "");
    return ETWCAP_E_USAGE;
  }
  return 0;
}

static int parse_tokens(struct cli *cli, char **tok, size_t ntok)
{
  size_t i;
  int rc, only_positionals = 0;

  for (i = 0; i < ntok; i++) {
    const char *t = tok[i];
    size_t len;
    int consumed = 0;

    if (!only_positionals && !strcmp(t, "--")) {
      only_positionals = 1;
      continue;
    }
    if (!only_positionals && is_help_token(t)) {
      cli->help = 1;
      continue;
    }
    if (!only_positionals && qualifier_name(t, &len)) {
      rc = take_qualifier(cli, tok, ntok, i, len, &consumed);
      if (rc)
        return rc;
      i += (size_t)consumed;
      continue;
    }
    if (!cli->cmd) {
      cli->cmd = command_find(t);
      /* run's command line follows, qualifiers and all (`run /?` is help). */
      if (cli->cmd && (cli->cmd->flags & CMD_REST_IS_ARGS) && i + 1 < ntok &&
          !is_help_token(tok[i + 1]))
        only_positionals = 1;
      if (!cli->cmd) {
        const char *hint = suggest_command(t), *why = command_perfview_only(t);
        if (why)
          set_error(cli, "'%s' is a PerfView command etwcap does not have: %s.", t, why);
        else if (str_ends_with_case(t, ".etl") || str_ends_with_case(t, ".etl.zip"))
          set_error(cli, "'%s' is a trace, not a command: etwcap has no viewer. Open it in "
                    "PerfView or WPA; 'etwcap info %s' or 'etwcap report %s' summarizes it here.",
                    t, t, t);
        else if (hint)
          set_error(cli, "unknown command '%s'. Did you mean '%s'?", t, hint);
        else
          set_error(cli, "unknown command '%s'. Run 'etwcap /?' for the list of commands.", t);
        return ETWCAP_E_USAGE;
      }
      continue;
    }
    rc = add_arg(cli, t);
    if (rc)
      return rc;
  }
  if (!cli->cmd) {
    if (cli->help)
      return 0;
    set_error(cli, "no command given. Run 'etwcap /?' for the list of commands.");
    return ETWCAP_E_USAGE;
  }
  return cli->help ? 0 : check_against_command(cli);
}

/* Writes each qualifier given into its field (options.h).  After parsing,
 * so a list's items have stopped moving. */
static void store_values(struct cli *cli)
{
  size_t i;
  for (i = 0; i < cli->value_count; i++) {
    const struct opt_value *v = &cli->values[i];
    char *field = (char *)&cli->q + v->def->field;
    if (v->def->field == OPT_NO_FIELD)
      continue;
    switch (v->def->type) {
    case OPT_BOOL:
    case OPT_TRISTATE:
      *(int *)field = v->bool_value;
      break;
    case OPT_INT:
      *(int64_t *)field = v->int_value;
      break;
    case OPT_FLOAT:
      *(double *)field = v->float_value;
      break;
    case OPT_STRING:
    case OPT_OPTIONAL_STRING:
      *(const char **)field = v->text;
      break;
    case OPT_LIST:
      *(char *const **)field = v->items;
      *(size_t *)((char *)&cli->q + v->def->count_field) = v->item_count;
      break;
    }
  }
}

/* "etwcap a "b c"": arguments joined, those with spaces quoted. */
static char *join_command_line(int argc, char **argv)
{
  size_t len = strlen("etwcap") + 1;
  char *s, *p;
  int i;
  for (i = 1; i < argc; i++)
    len += strlen(argv[i]) + 3;
  s = etwcap_malloc(len);
  if (!s)
    return NULL;
  p = s + sprintf(s, "etwcap");
  for (i = 1; i < argc; i++)
    p += sprintf(p, strchr(argv[i], ' ') ? " \"%s\"" : " %s", argv[i]);
  return s;
}

int cli_parse(struct cli *cli, int argc, char **argv)
{
  struct token_list tokens;
  char where[512];
  int rc;

  memset(cli, 0, sizeof(*cli));
  qualifier_values_init(&cli->q);
  cli->command_line = join_command_line(argc, argv);
  if (!cli->command_line)
    return ETWCAP_E_NOMEM;
  rc = response_expand(&tokens, argc - 1, argv + 1, where, sizeof(where));
  if (rc) {
    set_error(cli, "%s", where);
    return rc;
  }
  rc = parse_tokens(cli, tokens.items, tokens.count);
  token_list_release(&tokens);
  if (rc == 0)
    store_values(cli);
  if (rc && !cli->error)
    set_error(cli, "%s", etwcap_strerror(rc));
  return rc;
}

void cli_release(struct cli *cli)
{
  size_t i, j;
  for (i = 0; i < cli->arg_count; i++)
    etwcap_free(cli->args[i]);
  etwcap_free(cli->args);
  for (i = 0; i < cli->value_count; i++) {
    etwcap_free(cli->values[i].text);
    for (j = 0; j < cli->values[i].item_count; j++)
      etwcap_free(cli->values[i].items[j]);
    etwcap_free(cli->values[i].items);
  }
  etwcap_free(cli->values);
  etwcap_free(cli->error);
  etwcap_free(cli->command_line);
  memset(cli, 0, sizeof(*cli));
}
