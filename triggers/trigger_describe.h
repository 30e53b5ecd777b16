/* The triggers of a command line as data, for `etwcap plan`: every trigger
 * trigger_engine_create builds from the options (so the same parsing, the
 * same defaults and the same errors as collect), and MaxCollectSec, each as
 * an ordered list of named fields.  The table and the JSON (the "triggers"
 * array of docs/plan-json.md) are both printed from that list, so they
 * show the same fields under the same names.  Pure: prints nothing, knows
 * nothing of the command line or of the plan it is shown with.
 *
 * Lifetime: trigger_describe fills a list the caller releases with
 * trigger_descs_release; the strings it returns are the caller's to
 * etwcap_free. */
#ifndef ETWCAP_TRIGGER_DESCRIBE_H
#define ETWCAP_TRIGGER_DESCRIBE_H

#include "triggers/trigger_engine.h"
#include "triggers/trigger_options.h"

#include <stddef.h>

enum trigger_field_type {
  TRIGGER_FIELD_STRING,  /* text */
  TRIGGER_FIELD_NUMBER,  /* number */
  TRIGGER_FIELD_BOOL,    /* flag */
  TRIGGER_FIELD_STRINGS  /* text: the items, each ended by '\n' ("" = none) */
};

struct trigger_field {
  const char *key;       /* the JSON name, e.g. "threshold" (static) */
  enum trigger_field_type type;
  char *text;            /* owned */
  double number;
  int flag;
};

#define TRIGGER_DESC_FIELDS_MAX 32

/* One trigger.  Its first fields are always "qualifier", "role" ("start",
 * "stop" or "limit"), "spec" (the value as given) and "kind"
 * ("perfCounter", "etwEvent", "eventCounter", "eventLog", "timeLimit"). */
struct trigger_desc {
  struct trigger_field fields[TRIGGER_DESC_FIELDS_MAX];
  size_t count;
};

struct trigger_descs {
  struct trigger_desc *items;
  size_t count;
};

/* Describes the triggers engine `e` built from `o` (trigger_engine_create
 * parsed them and reported any malformed spec).  0 or ETWCAP_E_NOMEM.  No
 * triggers and no MaxCollectSec gives an empty list. */
int trigger_describe(const struct trigger_options *o, const struct trigger_engine *e,
                     struct trigger_descs *out);
void trigger_descs_release(struct trigger_descs *d);

/* The field named key of a trigger, or NULL. */
const struct trigger_field *trigger_desc_field(const struct trigger_desc *d, const char *key);

/* The list as a JSON array, its items on lines indented by `indent`
 * spaces (the closing bracket by indent - 2).  0 or ETWCAP_E_NOMEM. */
int trigger_descs_to_json(const struct trigger_descs *d, int indent, char **out);
/* The list as a table block for people: "Triggers (N):", then per trigger
 * a heading line and one "key value" line per field.  "" when empty. */
int trigger_descs_to_text(const struct trigger_descs *d, char **out);

#endif
