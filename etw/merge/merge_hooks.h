/* What a merge does with each event besides writing it: note what the NGEN
 * PDBs need (ngen_modules.h), then write image identity before it
 * (identity_inject.h).  Either may be NULL.  Used by the capture's merge
 * and by `merge /ImageIDsOnly`. */
#ifndef ETWCAP_MERGE_HOOKS_H
#define ETWCAP_MERGE_HOOKS_H

#include "etw/etl/etl_writer.h"
#include "etw/event/etw_event.h"
#include "etw/image/ngen_modules.h"
#include "etw/merge/identity_inject.h"

struct merge_hooks {
  struct ngen_modules *ngen;
  struct identity_injector *identity;
};

/* An etl_merge_inject_fn: ctx is a struct merge_hooks. */
int merge_hooks_inject(void *ctx, const struct etw_event *ev, struct etl_writer *w);

#endif
