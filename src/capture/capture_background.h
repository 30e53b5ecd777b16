/* A capture's merge, zip and verification on a thread of its own, at low
 * priority, while the sessions go on: for a snapshot of the in-memory
 * rings (/SnapshotOnTrigger, `etwcap snapshot`) and for a closed segment
 * of a rotating capture (/SegmentSec, /SegmentMB).  One at a time: the
 * next waits for the one before, which bounds the CPU and memory a
 * week-long capture spends beside its machine's work.
 *
 * WPR's `-flush` and UIforETW's "save trace buffers" write a ring without
 * stopping (docs/perfview-collection.md §12); PerfView stops its sessions
 * instead. */
#ifndef ETWCAP_CAPTURE_BACKGROUND_H
#define ETWCAP_CAPTURE_BACKGROUND_H

#include "etw/session/controller.h"
#include "src/base/log_memory.h"
#include "src/base/os/os_thread.h"
#include "src/finish/capture_finish.h"
#include "src/finish/capture_manifest.h"

struct background_job {
  os_thread thread;
  int running;
  char data_file[CONTROLLER_PATH_MAX];
  struct manifest_trigger_copy trigger;
  int has_trigger;
  struct log_memory log;   /* the capture's log up to now */
  char *command_line;
  int rc;
  char why[1024];
  struct capture_finish_result result;
  /* Called on the main thread by background_wait once the zip is written
   * (NULL: nothing): a rotating capture applies its retention then. */
  void (*written)(void *ctx, const char *zip);
  void *written_ctx;
};

/* Starts merging `data_file`'s session files (written and closed, their
 * rundown done) into data_file.zip, named for `fired` (may be NULL), with
 * `log` and `command_line` for its LogFile.txt and manifest.  Waits for
 * the job's previous capture first.  0 once the thread runs; an error
 * (logged) otherwise, the files left for 'etwcap merge'. */
int background_finish(struct background_job *job, const char *data_file,
                      const struct manifest_trigger *fired, const struct log_memory *log,
                      const char *command_line);

/* Waits for the job's capture, if one is being merged, and logs what it
 * wrote.  Returns its result (0 when there was none). */
int background_wait(struct background_job *job);

#endif
