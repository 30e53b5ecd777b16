/* The end of every capture: merge the session files into one ETL, zip it
 * with LogFile.txt and the capture manifest, verify the zip, and only then
 * delete the session files (PerfView's /Merge and /Zip defaults).  With
 * /Zip the merge and the compression are one pass: the merged ETL is
 * compressed as it is written and never written out on its own.  `merge`,
 * `stop`, `collect` and `replay /Out` all end here.
 *
 * Without /Zip the merged ETL replaces X.etl (written under a temporary name, renamed
 * over X.etl, then the other session files are deleted).  On any failure
 * nothing is left under the final name and no input is deleted. */
#ifndef ETWCAP_CAPTURE_FINISH_H
#define ETWCAP_CAPTURE_FINISH_H

#include "etw/merge/etl_merge.h"
#include "etw/merge/identity_inject.h"
#include "etw/merge/merge_inputs.h"
#include "src/base/log_memory.h"
#include "src/containers/container_capture.h"
#include "src/finish/capture_manifest.h"
#include "src/finish/ngen_pdb.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct capture_finish_params {
  const char *data_file;    /* X.etl: the user session's file */
  int zip;                  /* write X.etl.zip; else a merged X.etl */
  int low_priority;         /* one deflate thread, below normal priority */
  const char *command_line; /* for the manifest */
  const struct manifest_trigger *trigger;
  const struct capture_health *health; /* a live capture's self-check; NULL none */
  const struct log_memory *log; /* becomes LogFile.txt; NULL = none */
  struct identity_injector *identity; /* image identity; NULL = none */
  /* The host's containers as the capture saw them (for the manifest), NULL
   * none. */
  const struct container_capture *containers;
  /* NGEN PDBs (ngen_pdb.h) made with this ngen, into the zip, or without
   * one into X.etl.ngenpdb (/Wpr); NULL = none (/NoNGenPdbs, /NoRundown, or
   * neither a zip nor /Wpr). */
  const struct ngen_runner *ngen;
  FILE *console;            /* progress on this console, or NULL for log lines */
  /* The session files to merge and then delete, data_file first (replay
   * /Out's own); NULL: data_file and its siblings, found by name. */
  const struct merge_inputs *inputs;
};

struct capture_finish_result {
  char output[1024];        /* X.etl.zip or X.etl */
  size_t inputs;
  uint64_t in_bytes, out_bytes, events;
  int zipped;
  double merge_seconds;  /* merging, and compressing as it goes when zipped */
  double verify_seconds; /* the zip's other members, its verification, rename */
};

int capture_finish(const struct capture_finish_params *p, struct capture_finish_result *r,
                   char *why, size_t why_size);

/* "Wrote X.etl.zip: ... ; merge and compress 5.1 s, verify 0.6 s." */
void capture_finish_print(const struct capture_finish_result *r);

#endif
