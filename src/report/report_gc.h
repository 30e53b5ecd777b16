/* PerfView's GCStats for `etwcap report`: every garbage collection of every
 * process, from the CLR runtime provider's GC events, computed the way
 * TraceEvent's GC analysis (TraceManagedProcess.cs, TraceGC) does:
 *   pause    = RestartEEStop - the SuspendEEStart that began it,
 *   duration = GCStop - GCStart,
 *   heap after / promoted = the GC's HeapStats (generation sizes and
 *   promoted bytes summed over generations 0-4).
 * .NET Framework logs each GCStart twice (versions 1 and 2, same Count):
 * they are one GC.
 *
 * Events arrive in file order (per-CPU buffers), not in time order, so each
 * GC event is kept as a small record and the GCs are built at the end, per
 * process, in time order.  Memory is bounded: at most REPORT_GC_MAX_RECORDS
 * records are kept, later ones are counted in `dropped`. */
#ifndef ETWCAP_REPORT_GC_H
#define ETWCAP_REPORT_GC_H

#include "etw/event/builtin_events.h"
#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_GC_MAX_RECORDS (1u << 21)

enum report_gc_kind {
  REPORT_GC_SUSPEND_START,
  REPORT_GC_START,
  REPORT_GC_STOP,
  REPORT_GC_HEAP_STATS,
  REPORT_GC_RESTART_STOP
};

/* One GC event, reduced to what the statistics need. */
struct report_gc_record {
  int64_t filetime;
  uint32_t pid;
  uint8_t kind;       /* enum report_gc_kind */
  uint8_t generation; /* GCStart Depth */
  uint32_t number;    /* GCStart/GCStop Count */
  uint32_t reason;    /* GCStart/SuspendEEStart Reason */
  uint32_t type;      /* GCStart Type */
  uint64_t heap_after, promoted; /* HeapStats */
  uint64_t seq;       /* file order, to keep ties stable */
};

/* One GC as the report shows it.  pause_ms / duration_ms are < 0 when the
 * trace does not hold the events that bound them; has_heap when a
 * HeapStats event followed it. */
struct report_gc {
  uint32_t pid;
  uint32_t number;
  uint8_t generation;
  uint32_t type, reason;
  int64_t start_filetime;
  double pause_ms, duration_ms;
  int has_heap;
  uint64_t heap_after, promoted;
};

/* The fields of GC events the report reads (report_gc.c's field names). */
enum report_gc_field {
  GC_COUNT, GC_DEPTH, GC_REASON, GC_TYPE,
  GC_SIZE0, GC_SIZE1, GC_SIZE2, GC_SIZE3, GC_SIZE4,
  GC_PROMOTED0, GC_PROMOTED1, GC_PROMOTED2, GC_PROMOTED3, GC_PROMOTED4,
  GC_FIELDS
};

/* Where those fields sit in the layout of one GC event id at one version. */
struct report_gc_layout {
  int known;
  uint8_t version;
  const struct bi_event *row;  /* NULL: no layout for it */
  int8_t at[GC_FIELDS];        /* field index, or -1 */
  uint8_t walk;                /* fields to decode: 1 + the highest index wanted */
};

struct report_gcs {
  /* By event id (GCStart 1 ... SuspendEEStart 9) and version modulo 4: a
   * layout is looked up once, not for every GC event, even when versions
   * alternate (.NET Framework's GCStart v1 and v2). */
  struct report_gc_layout layouts[CLR_ID_GC_SUSPEND_EE_START + 1][4];
  struct report_gc_record *records;
  size_t record_count, record_cap;
  uint64_t dropped;
  struct report_gc *gcs; /* after report_gcs_finish: by pid, then start time */
  size_t count;
};

/* Looks at one event (any event; only CLR GC events are kept).  filetime is
 * the event's time.  0, or ETWCAP_E_NOMEM. */
int report_gcs_event(struct report_gcs *g, const struct etw_event *ev, int64_t filetime);
/* Builds g->gcs from the records (and frees them).  0 or ETWCAP_E_NOMEM. */
int report_gcs_finish(struct report_gcs *g);
void report_gcs_release(struct report_gcs *g);

/* Pause histogram buckets; report_gc_pause_bounds holds their upper bounds
 * in ms (the last bucket is open). */
#define REPORT_GC_PAUSE_BUCKETS 8

/* The totals of one process's GCs (GCStats' per-process summary). */
struct report_gc_totals {
  uint32_t pid;
  size_t first, count;           /* its GCs are gcs[first .. first+count) */
  double max_pause_ms, total_pause_ms;
  uint64_t pause_hist[REPORT_GC_PAUSE_BUCKETS]; /* GCs per pause bucket */
};
extern const double report_gc_pause_bounds[REPORT_GC_PAUSE_BUCKETS - 1];

/* The totals of the process whose GCs start at index i (after
 * report_gcs_finish); returns the index after them. */
size_t report_gc_totals_at(const struct report_gcs *g, size_t i, struct report_gc_totals *t);

/* PerfView's names for the GCStart Reason and Type fields (ClrEtwAll.man
 * GCReason / GCType maps); "Reason N" style for values it does not know. */
const char *report_gc_reason_name(uint32_t reason, char *buf, size_t cap);
const char *report_gc_type_name(uint32_t type, char *buf, size_t cap);

#endif
