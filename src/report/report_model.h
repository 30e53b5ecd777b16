/* The model behind `etwcap report`: everything the page and its embedded
 * JSON show, collected in one streaming pass over a trace (.etl, or every
 * .etl member of a zip, in file order) plus the zip's capture manifest.
 * Memory is bounded whatever the trace's size: the summary, the timeline
 * and every table have fixed caps (see each part's header); what does not
 * fit is counted and the report says so.
 *
 * Lifetime: report_collect fills a report; report_release frees it. */
#ifndef ETWCAP_REPORT_MODEL_H
#define ETWCAP_REPORT_MODEL_H

#include "etw/etl/etl_summary.h"
#include "etw/stacks/stack_frames.h"
#include "etw/stacks/stack_join.h"
#include "src/report/report_containers.h"
#include "src/report/report_cpu.h"
#include "src/report/report_exceptions.h"
#include "src/report/report_gc.h"
#include "src/report/report_kernel.h"
#include "src/report/report_manifest.h"
#include "src/report/report_timeline.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_SESSIONS 64

/* One .etl of the trace (a zip may hold several): its logger and what its
 * header and buffers say about losses. */
struct report_session {
  char file[2048];  /* display name: PATH or ARCHIVE!MEMBER */
  char logger[260];
  uint64_t events, bytes;
  uint32_t events_lost, buffers_lost;  /* logfile header */
  uint64_t buffers_flagged_lost;       /* buffers flagged EVENTS_LOST/BUFFER_LOST */
};

/* A timeline series that follows one provider (a row of the summary). */
struct report_series_key {
  int used;
  int is_kernel;
  uint8_t group;
  struct etw_guid guid;
};

struct report {
  char trace[1024];        /* the path as given */
  /* Only what the CPU stacks need (`convert`): the summary, the timeline,
   * GCs, exceptions and containers stay empty. */
  int stacks_only;
  struct etl_summary summary;
  /* Allocated as files come: 64 in place would be 150 KB to clear for the
   * one or two most traces have. */
  struct report_session *sessions;
  size_t session_count, session_cap;
  uint64_t sessions_dropped;
  int64_t base_filetime;   /* the first file's logfile StartTime: "ms" count from here */
  int have_times;
  int64_t first_filetime, last_filetime; /* of the events */
  struct report_gcs gcs;
  struct report_exceptions exceptions;
  struct report_kernel kernel;
  struct report_containers containers; /* after the pass: see report_containers.h */
  struct stack_join stacks;
  struct stack_frames frames;
  struct report_cpu_select cpu_select;
  struct report_cpu cpu;
  struct report_timeline timeline;
  struct report_series_key series[REPORT_TIMELINE_PROVIDERS];
  struct report_manifest manifest;
  char manifest_problem[512]; /* why a manifest present in the zip was not read */
};

/* Reads `path` in one pass.  0, or the reader's error (ETWCAP_E_FORMAT,
 * TRUNCATED, CORRUPT, NOENT, ...) with the same message `dump` gives in
 * err.  Release r in every case. */
int report_collect(struct report *r, const char *path, char *err, size_t errcap);
/* The same over bytes in memory (tests, fuzzing); no manifest is read. */
int report_collect_memory(struct report *r, const void *data, size_t len, const char *label,
                          char *err, size_t errcap);
/* report_collect with the CPU stacks of the processes sel chooses (the
 * others: REPORT_CPU_BUSIEST busiest), for `convert`: with sel, only what
 * the stacks need is collected (stacks_only). */
int report_collect_cpu(struct report *r, const char *path, const struct report_cpu_select *sel,
                       char *err, size_t errcap);
void report_release(struct report *r);

/* Milliseconds from the trace's start (base_filetime) to filetime. */
double report_ms(const struct report *r, int64_t filetime);

#endif
