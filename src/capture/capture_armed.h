/* A collect that stays armed after a fire (capture_cmd_collect.c's
 * helper): snapshots of the in-memory rings (/SnapshotOnTrigger, `etwcap
 * snapshot`) and a capture that rotates its files into segments with
 * retention (/SegmentSec, /SegmentMB, /KeepSegments, /KeepDays,
 * /MaxDiskMB).  Either way the sessions never stop for a fire: a snapshot
 * writes the rings and goes on, a fire marks the segment that holds it.
 * What each writes is merged and zipped in the background
 * (capture_background.h).
 *
 * The two do not combine: snapshots come from in-memory rings, segments
 * from files, and a session is one or the other. */
#ifndef ETWCAP_CAPTURE_ARMED_H
#define ETWCAP_CAPTURE_ARMED_H

#include "etw/plan/plan.h"
#include "src/base/log_memory.h"
#include "src/capture/capture_background.h"
#include "src/capture/collection.h"
#include "src/capture/periodic_rundown_files.h"
#include "src/finish/capture_manifest.h"
#include "triggers/trigger_engine.h"

struct cli;
struct qualifier_values;

struct capture_armed {
  const struct cli *cli;
  const struct collection_env *env;
  const struct trigger_engine *engine;
  const char *base;             /* the DataFile, as the plan normalises it */
  struct collection *c;         /* while the collection runs */
  const struct log_memory *log;
  struct background_job job;
  /* snapshots */
  int snapshots_on_fire, ring;
  unsigned snapshots, snapshot_next, snapshot_max;
  uint64_t snapshot_ms, cooldown_ms;
  /* segments */
  int segments;
  int64_t segment_sec, segment_mb;
  struct plan *plan;            /* the segment being written (capture's plan) */
  uint64_t segment_ms;          /* when it began (env's monotonic clock) */
  struct manifest_trigger_copy segment_fire;
  int segment_fired;
  /* /RundownPeriodSec (the plan's periodic_rundown) */
  uint64_t rundown_period_ms, rundown_ms;
  unsigned rundowns;            /* kernel rundown files written so far */
  struct periodic_rundown_files kept; /* the newest of them */
};

/* Do the qualifiers combine?  0, or ETWCAP_E_USAGE with the reason
 * logged (collect and plan refuse the same lines). */
int capture_armed_check(const struct qualifier_values *q);
/* Checks the qualifiers and sets `a` up; the engine's options are changed
 * to fire without end (snapshots and segments count the fires).  0, or
 * ETWCAP_E_USAGE with the reason logged. */
int capture_armed_setup(struct capture_armed *a, const struct cli *cli,
                        const struct collection_env *env, struct trigger_options *engine_options);
/* The least time between two snapshots: /SnapshotCooldownSec, else
 * DelayAfterTriggerSec. */
int64_t capture_armed_cooldown_sec(const struct qualifier_values *q);
/* Stays the capture armed after a stop fire? */
int capture_armed_active(const struct capture_armed *a);

/* The first segment's DataFile (X.<UTC start>.etl) into out.  0 or
 * ETWCAP_E_RANGE. */
int capture_armed_first_segment(struct capture_armed *a, char *out, size_t cap);

/* A stop fire: a snapshot (outside the cooldown), or the mark of the
 * segment being written.  Returns 1 when the capture should end now
 * (/CollectMultiple snapshots written). */
int capture_armed_fire(struct capture_armed *a, const struct manifest_trigger *fired);
/* Each turn of the wait: the periodic rundown when it is due, and the next
 * segment when this one is due. */
void capture_armed_turn(struct capture_armed *a);
/* 'etwcap snapshot' (a collection_wait_options.snapshot callback). */
void capture_armed_snapshot_request(void *ctx);
/* The collection is ending: waits for the background merge (its log goes
 * into the capture's LogFile.txt, written next). */
void capture_armed_finish(struct capture_armed *a);
/* After the last segment is written: the retention once more. */
void capture_armed_retain(struct capture_armed *a);
/* The fire that marks the segment being written, for the final zip's
 * manifest, or NULL. */
const struct manifest_trigger *capture_armed_segment_fire(const struct capture_armed *a);

#endif
