/* Snapshots of a running in-memory capture (/SnapshotOnTrigger, `etwcap
 * snapshot`): the rings are written to X.N.etl and X.N.kernel.etl while the
 * sessions go on (collection_flush_to), the CLR and kernel rundown run
 * into X.N's rundown files, and X.N.etl.zip is merged, zipped and verified
 * on a thread of its own at low priority, so the trigger engine keeps
 * watching.  One snapshot is merged at a time: the next waits for it.
 *
 * WPR's `-flush` and UIforETW's "save trace buffers" write a ring the same
 * way (reference/anchors.md); PerfView stops its sessions instead. */
#ifndef ETWCAP_COLLECTION_SNAPSHOT_H
#define ETWCAP_COLLECTION_SNAPSHOT_H

#include "capture_finish.h"
#include "capture_manifest.h"
#include "collection.h"
#include "log_memory.h"
#include "os_thread.h"
#include "plan.h"

struct snapshot_job {
  os_thread thread;
  int running;
  char data_file[CONTROLLER_PATH_MAX];
  char trigger_name[64], trigger_detail[512];
  struct manifest_trigger trigger;
  struct log_memory log;   /* the capture's log up to the snapshot */
  char *command_line;
  int rc;
  char why[1024];
  struct capture_finish_result result;
};

/* Takes a snapshot of `c` into plan's DataFile (X.N.etl; the plan is made
 * for that name, so its rundown sessions write X.N's files), named for
 * `fired`, with `log` and `command_line` for its LogFile.txt and manifest.
 * Waits for the job's previous snapshot first.  0 once the merge is under
 * way; an error (logged) when no ring could be written. */
int snapshot_take(struct snapshot_job *job, struct collection *c, const struct plan *plan,
                  const struct manifest_trigger *fired, const struct log_memory *log,
                  const char *command_line);

/* Waits for the job's snapshot, if one is being merged, and logs what it
 * wrote.  Returns its result (0 when there was none). */
int snapshot_wait(struct snapshot_job *job);

#endif
