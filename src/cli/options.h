/* Qualifiers declared as data and parsed by one parser, PerfView style
 * (docs/perfview-collection.md §2).  The same tables generate `/?` help,
 * so help cannot drift from what the parser accepts.
 *
 * Forms accepted: /Name, -Name, /Name:value, /Name=value, /Name value (not
 * for booleans; a value starting with '-' or '/' must use ':' or '='), names
 * case-insensitive, booleans as /Flag, /Flag:true, /Flag:false or /Flag:
 * (empty = false).  Scalars given twice are an error; list qualifiers may be
 * repeated and their values are split on ',' and concatenated.  `--` ends
 * qualifiers, so a POSIX path such as /tmp can still be a positional.
 *
 * One qualifier name has one type in every command that declares it, so
 * "/Name value" can be decided before the command is known; a command may
 * still declare its own definition (its own help and bounds) of a name. */
#ifndef ETWCAP_OPTIONS_H
#define ETWCAP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

enum opt_type {
  OPT_BOOL,     /* /X, /X:false */
  OPT_TRISTATE, /* bool? in PerfView: unset is distinct from false (/Merge, /Zip) */
  OPT_INT,      /* decimal or 0x hex */
  OPT_FLOAT,    /* decimal */
  OPT_STRING,   /* one value */
  OPT_OPTIONAL_STRING, /* a value that may be left out: /Name alone means "" */
  OPT_LIST      /* comma-separated, repeatable */
};

#define OPT_NO_FIELD ((size_t)-1)

/* A row of a qualifier table.  Rows are written with the BIND_* macros of
 * qualifier_values.h, which give the type and the field together. */
struct opt_def {
  const char *name;         /* PerfView's spelling */
  const char *alias;        /* a second accepted name, or NULL */
  enum opt_type type;
  size_t field;             /* offset of its value in struct qualifier_values,
                             * or OPT_NO_FIELD: it sets nothing */
  size_t count_field;       /* OPT_LIST: offset of the item count */
  const char *value_name;   /* shown in help: /Name:VALUE_NAME */
  /* Help's words for the default when the field's initial value does not
   * say it (an unset value that means something); NULL: help prints the
   * field's initial value, when it is not zero. */
  const char *default_text;
  const char *help;
  int64_t min, max;         /* OPT_INT and OPT_FLOAT bounds (both 0 = no bounds);
                             * OPT_STRING: min is the shortest value (1 = not empty) */
  const char *rejected;     /* non-NULL: a PerfView qualifier etwcap refuses, and why */
};

struct opt_group {
  const char *title;
  const struct opt_def *defs;
  size_t count;
};

#define OPT_GROUP(title, array) { title, array, sizeof(array) / sizeof((array)[0]) }

struct opt_value {
  const struct opt_def *def;
  int position;         /* index in argv, for messages */
  char *text;           /* the value as given (scalars); NULL for a bare flag */
  char **items;         /* OPT_LIST items */
  size_t item_count;
  int bool_value;
  int64_t int_value;
  double float_value;
};

#endif
