/* See merge_hooks.h. */
#include "etw/merge/merge_hooks.h"

int merge_hooks_inject(void *ctx, const struct etw_event *ev, struct etl_writer *w)
{
  struct merge_hooks *h = ctx;
  int rc = h->ngen ? ngen_modules_observe(h->ngen, ev) : 0;
  return rc ? rc : h->identity ? identity_inject(h->identity, ev, w) : 0;
}
