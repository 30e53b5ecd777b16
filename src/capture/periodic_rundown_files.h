/* The periodic kernel rundown files of one ring or segment
 * (/RundownPeriodSec on the group-mask route): X.kernelRundown.<n>.etl
 * beside X.etl, each written by the kernel rundown session started and
 * stopped at once, merged with X.etl as its siblings.  Only the newest
 * PERIODIC_RUNDOWN_FILES_KEPT are kept: a capture of any length leaves a
 * bounded number of them, and its merge (at most ETL_MERGE_MAX_INPUTS
 * files) succeeds.  Why that many is enough for what a ring holds:
 * docs/win32-contract.md §8.5.
 *
 * Only what etwcap wrote is deleted: each file's identity is taken when it
 * is written and a file that has taken its name since is left alone
 * (os_remove_same). */
#ifndef ETWCAP_PERIODIC_RUNDOWN_FILES_H
#define ETWCAP_PERIODIC_RUNDOWN_FILES_H

#include "etw/merge/etl_merge.h"
#include "etw/plan/plan.h"
#include "etw/session/controller.h"
#include "src/base/os/os_file.h"

#include <stddef.h>

/* Half of what one merge takes: the other half is for the capture's own
 * session files (at most five: X.etl, .kernel, .clrRundown, .kernelRundown,
 * .userheap) and anything else named like them. */
#define PERIODIC_RUNDOWN_FILES_KEPT PLAN_PERIODIC_RUNDOWN_FILES_KEPT
_Static_assert(PERIODIC_RUNDOWN_FILES_KEPT * 2 <= ETL_MERGE_MAX_INPUTS,
               "the periodic rundown files kept leave half of a merge's inputs");

struct periodic_rundown_files {
  char data_file[CONTROLLER_PATH_MAX]; /* X.etl, whose files these are */
  unsigned number[PERIODIC_RUNDOWN_FILES_KEPT]; /* oldest first */
  struct os_file_id id[PERIODIC_RUNDOWN_FILES_KEPT];
  size_t count;
};

/* X.kernelRundown.<n>.etl for X.etl into out.  0 or ETWCAP_E_RANGE. */
int periodic_rundown_file_name(const char *data_file, unsigned n, char *out, size_t cap);

/* File n of data_file has been written: it is kept, and beyond
 * PERIODIC_RUNDOWN_FILES_KEPT the oldest is deleted.  The files of another
 * data file (a segment closed since, a collection of /CollectMultiple
 * ended) are forgotten, not deleted: that one's merge takes them.  A file
 * that is not there (the rundown failed) changes nothing. */
void periodic_rundown_files_written(struct periodic_rundown_files *f, const char *data_file,
                                    unsigned n);

/* Copies the kept files of data_file beside `to` (a snapshot's X.<k>.etl)
 * as to.kernelRundown.<n>.etl, its siblings, so that its merge takes them
 * and deletes the copies while the originals stay for the next snapshot and
 * the final merge.  A copy that fails is a warning; returns how many were
 * copied. */
size_t periodic_rundown_files_copy(const struct periodic_rundown_files *f,
                                   const char *data_file, const char *to);

#endif
