/* The end of every capture: merge the session files into one ETL, zip it
 * with LogFile.txt and the capture manifest, verify the zip, and only then
 * delete the session files (PerfView's /Merge and /Zip defaults).  `merge`,
 * `stop`, `collect` and `replay /Out` all end here.
 *
 * Without /Zip the merged ETL replaces X.etl (written as X.etl.new, renamed
 * over X.etl, then the other session files are deleted).  On any failure
 * nothing is left under the final name and no input is deleted. */
#ifndef ETWCAP_CAPTURE_FINISH_H
#define ETWCAP_CAPTURE_FINISH_H

#include "capture_manifest.h"
#include "etl_merge.h"
#include "identity_inject.h"
#include "log_memory.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct capture_finish_params {
  const char *data_file;    /* X.etl: the user session's file */
  int zip;                  /* write X.etl.zip; else a merged X.etl */
  int low_priority;         /* one thread for deflate */
  const char *command_line; /* for the manifest */
  const struct manifest_trigger *trigger;
  const struct capture_health *health; /* a live capture's self-check; NULL none */
  const struct log_memory *log; /* becomes LogFile.txt; NULL = none */
  struct identity_injector *identity; /* image identity; NULL = none */
  FILE *console;            /* progress on this console, or NULL for log lines */
};

struct capture_finish_result {
  char output[1024];        /* X.etl.zip or X.etl */
  size_t inputs;
  uint64_t in_bytes, out_bytes, events;
  double merge_seconds, zip_seconds;
};

int capture_finish(const struct capture_finish_params *p, struct capture_finish_result *r,
                   char *why, size_t why_size);

#endif
