/* Which files make up one collection, by PerfView's naming: for X.etl the
 * user session's X.etl and every X.kernel*.etl, X.clr*.etl and X.user*.etl
 * beside it (X.kernel.etl, X.kernelRundown.etl, X.clrRundown.etl,
 * X.userheap.etl, ...; perfview-collect.md §8.1).  Pure name matching is
 * separate from the folder listing so the rules are tested on their own. */
#ifndef ETWCAP_MERGE_INPUTS_H
#define ETWCAP_MERGE_INPUTS_H

#include <stddef.h>

struct merge_inputs {
  char **paths; /* the main file first, then siblings in name order */
  size_t count;
};

/* Does `name` (a file name, no folder) belong to the collection whose main
 * file's name is `main_name`?  The main file itself does not count here. */
int merge_inputs_is_sibling(const char *main_name, const char *name);

/* Finds the collection's files for `main_path` (which must exist).
 * ETWCAP_E_NOENT when it does not; the list is released by
 * merge_inputs_release. */
int merge_inputs_find(const char *main_path, struct merge_inputs *out);
void merge_inputs_release(struct merge_inputs *in);

#endif
