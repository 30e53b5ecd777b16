/* Which files make up one collection, by PerfView's naming: for X.etl the
 * user session's X.etl and every X.kernel*.etl, X.clr*.etl and X.user*.etl
 * beside it (X.kernel.etl, X.kernelRundown.etl, X.clrRundown.etl,
 * X.userheap.etl, ...; docs/perfview-collection.md §8.1).  Pure name
 * matching is separate from the folder listing so the rules are tested on
 * their own. */
#ifndef ETWCAP_MERGE_INPUTS_H
#define ETWCAP_MERGE_INPUTS_H

#include <stddef.h>

struct os_file_id;

struct merge_inputs {
  char **paths; /* the main file first, then siblings in name order */
  size_t count;
  /* What each file was when the merge opened it (os_file.h), so that only
   * the files merged are deleted: filled by the merge, NULL before. */
  struct os_file_id *ids;
};

/* Does `name` (a file name, no folder) belong to the collection whose main
 * file's name is `main_name`?  The main file itself does not count here. */
int merge_inputs_is_sibling(const char *main_name, const char *name);

/* Finds the collection's files for `main_path` (which must exist).
 * ETWCAP_E_NOENT when it does not; the list is released by
 * merge_inputs_release. */
int merge_inputs_find(const char *main_path, struct merge_inputs *out);
void merge_inputs_release(struct merge_inputs *in);
/* For a list built by hand (replay /Out names the files it wrote): appends
 * a copy of path; merge_inputs_sort then puts the siblings after the first
 * in name order, as merge_inputs_find leaves them. */
int merge_inputs_add(struct merge_inputs *in, const char *path);
void merge_inputs_sort(struct merge_inputs *in);

#endif
