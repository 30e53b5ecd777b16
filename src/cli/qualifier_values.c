/* See qualifier_values.h. */
#include "src/cli/qualifier_values.h"

#include <string.h>

void qualifier_values_init(struct qualifier_values *v)
{
  memset(v, 0, sizeof(*v));
  plan_options_init(&v->plan);
  trigger_options_init(&v->triggers);
  v->snapshot_cooldown_sec = -1;
}
