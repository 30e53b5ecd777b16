/* See report_gc.h.  Payload layouts come from trigger_builtin's CLR table
 * (ClrEtwAll.man templates), read with its field decoder. */
#include "src/report/report_gc.h"

#include "etw/event/builtin_events.h"
#include "etw/event/payload_layout.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SuspendEEStart reasons that begin a GC's pause (ClrEtwAll.man
 * GCSuspendEEReasonMap: SuspendForGC = 1, SuspendForGCPrep = 6); TraceEvent
 * starts the pause clock only for these. */
#define SUSPEND_FOR_GC 1u

/* The names of enum report_gc_field in ClrEtwAll.man's templates. */
static const char *const field_names[GC_FIELDS] = {
  "Count", "Depth", "Reason", "Type",
  "GenerationSize0", "GenerationSize1", "GenerationSize2", "GenerationSize3", "GenerationSize4",
  "TotalPromotedSize0", "TotalPromotedSize1", "TotalPromotedSize2", "TotalPromotedSize3",
  "TotalPromotedSize4"
};

/* The layout of ev's id at ev's version, found once for each. */
static const struct report_gc_layout *layout_of(struct report_gcs *g, const struct etw_event *ev)
{
  struct report_gc_layout *m = &g->layouts[ev->id][ev->version % 4];
  size_t i;
  if (m->known && m->version == ev->version)
    return m;
  memset(m, 0, sizeof(*m));
  m->known = 1;
  m->version = ev->version;
  m->row = bi_lookup(BI_CLR, ev);
  for (i = 0; i < GC_FIELDS; i++) {
    int at = m->row ? tf_index(&m->row->layout, field_names[i]) : -1;
    m->at[i] = (int8_t)(at >= 0 && at < INT8_MAX ? at : -1);
    if (m->at[i] >= m->walk)
      m->walk = (uint8_t)(m->at[i] + 1);
  }
  return m;
}

/* The wanted fields of ev as numbers, in one walk of its layout; a field
 * the layout lacks, or past the payload's end, is 0. */
static void read_fields(const struct report_gc_layout *m, const struct etw_event *ev,
                        uint64_t out[GC_FIELDS])
{
  uint64_t value[INT8_MAX];
  struct pl_cursor c;
  struct tv_value v;
  size_t i;
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  for (i = 0; i < m->walk; i++) {
    value[i] = 0;
    if (tf_read(&c, m->row->layout.fields[i].kind, &v) != 0)
      continue;
    if (v.type == TV_INT)
      value[i] = (uint64_t)v.i;
    else if (v.type == TV_UINT || v.type == TV_BOOL)
      value[i] = v.u;
  }
  for (i = 0; i < GC_FIELDS; i++)
    out[i] = m->at[i] >= 0 ? value[m->at[i]] : 0;
}

static int decode(struct report_gcs *g, const struct etw_event *ev,
                  struct report_gc_record *rec)
{
  const struct report_gc_layout *m = layout_of(g, ev);
  uint64_t f[GC_FIELDS];
  size_t i;
  if (!m->row)
    return 0;
  read_fields(m, ev, f);
  switch (ev->id) {
  case CLR_ID_GC_SUSPEND_EE_START:
    rec->kind = REPORT_GC_SUSPEND_START;
    rec->reason = (uint32_t)f[GC_REASON];
    return 1;
  case CLR_ID_GC_START:
    rec->kind = REPORT_GC_START;
    rec->number = (uint32_t)f[GC_COUNT];
    rec->generation = (uint8_t)f[GC_DEPTH];
    rec->reason = (uint32_t)f[GC_REASON];
    rec->type = (uint32_t)f[GC_TYPE];
    return 1;
  case CLR_ID_GC_STOP:
    rec->kind = REPORT_GC_STOP;
    rec->number = (uint32_t)f[GC_COUNT];
    return 1;
  case 4: /* GC/HeapStats: generations 0-3 and (in newer runtimes) 4, the
           * pinned object heap; TraceEvent's TotalHeapSize and
           * TotalPromoted are these sums. */
    if (m->at[GC_SIZE0] < 0)
      return 0;
    rec->kind = REPORT_GC_HEAP_STATS;
    for (i = 0; i < 5; i++) {
      rec->heap_after += f[GC_SIZE0 + i];
      rec->promoted += f[GC_PROMOTED0 + i];
    }
    return 1;
  case CLR_ID_GC_RESTART_EE_STOP:
    rec->kind = REPORT_GC_RESTART_STOP;
    return 1;
  }
  return 0;
}

int report_gcs_event(struct report_gcs *g, const struct etw_event *ev, int64_t filetime)
{
  struct report_gc_record rec;
  if (ev->is_kernel || !(ev->has & ETW_HAS_PROVIDER) || ev->id > CLR_ID_GC_SUSPEND_EE_START ||
      !guid_equal(&ev->provider, &bi_guid_clr))
    return 0;
  memset(&rec, 0, sizeof(rec));
  if (!decode(g, ev, &rec))
    return 0;
  if (g->record_count >= REPORT_GC_MAX_RECORDS) {
    g->dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&g->records, &g->record_cap, g->record_count, sizeof(*g->records),
                  256) != 0)
    return ETWCAP_E_NOMEM;
  rec.filetime = filetime;
  rec.pid = ev->pid;
  rec.seq = g->record_count;
  g->records[g->record_count++] = rec;
  return 0;
}

static int by_pid_time(const void *a, const void *b)
{
  const struct report_gc_record *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->filetime != y->filetime)
    return x->filetime < y->filetime ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static double ms_between(int64_t from, int64_t to)
{
  return (double)(to - from) / 10000.0;
}

/* The GC state machine of one process, records [begin, end) in time order. */
struct gc_walk {
  struct report_gcs *g;
  size_t first;       /* this process's first GC in g->gcs */
  int suspended;
  int64_t suspend_at;
  size_t gcs_at_suspend; /* g->count when the suspension began */
};

static struct report_gc *find_number(struct gc_walk *w, uint32_t number)
{
  size_t i = w->g->count;
  while (i-- > w->first)
    if (w->g->gcs[i].number == number)
      return &w->g->gcs[i];
  return NULL;
}

static void walk_record(struct gc_walk *w, const struct report_gc_record *r)
{
  struct report_gcs *g = w->g;
  struct report_gc *gc;
  switch (r->kind) {
  case REPORT_GC_SUSPEND_START:
    if (r->reason == SUSPEND_FOR_GC || r->reason == CLR_SUSPEND_FOR_GC_PREP) {
      w->suspended = 1;
      w->suspend_at = r->filetime;
      w->gcs_at_suspend = g->count;
    }
    break;
  case REPORT_GC_START:
    gc = find_number(w, r->number);
    /* The second GCStart version .NET Framework logs for the same GC. */
    if (gc && gc->duration_ms < 0)
      break;
    gc = &g->gcs[g->count++];
    memset(gc, 0, sizeof(*gc));
    gc->pid = r->pid;
    gc->number = r->number;
    gc->generation = r->generation;
    gc->reason = r->reason;
    gc->type = r->type;
    gc->start_filetime = r->filetime;
    gc->pause_ms = -1;
    gc->duration_ms = -1;
    break;
  case REPORT_GC_STOP:
    gc = find_number(w, r->number);
    if (gc && gc->duration_ms < 0)
      gc->duration_ms = ms_between(gc->start_filetime, r->filetime);
    break;
  case REPORT_GC_HEAP_STATS:
    if (g->count > w->first && !g->gcs[g->count - 1].has_heap) {
      gc = &g->gcs[g->count - 1];
      gc->has_heap = 1;
      gc->heap_after = r->heap_after;
      gc->promoted = r->promoted;
    }
    break;
  case REPORT_GC_RESTART_STOP:
    if (!w->suspended)
      break;
    w->suspended = 0;
    if (g->count > w->gcs_at_suspend) {
      /* A GC began inside this suspension: the pause is its own. */
      gc = &g->gcs[w->gcs_at_suspend];
      if (gc->pause_ms < 0)
        gc->pause_ms = ms_between(w->suspend_at, r->filetime);
    } else if (g->count > w->first) {
      /* A suspension of a background GC still running (its final mark):
       * TraceEvent adds it to that GC's pause. */
      gc = &g->gcs[g->count - 1];
      if (gc->type == CLR_GC_TYPE_BACKGROUND && gc->duration_ms < 0)
        gc->pause_ms = (gc->pause_ms < 0 ? 0 : gc->pause_ms) +
                       ms_between(w->suspend_at, r->filetime);
    }
    break;
  }
}

int report_gcs_finish(struct report_gcs *g)
{
  size_t i, starts = 0;
  struct gc_walk w;
  memset(&w, 0, sizeof(w));
  if (g->record_count) /* records is NULL until the first */
    qsort(g->records, g->record_count, sizeof(*g->records), by_pid_time);
  for (i = 0; i < g->record_count; i++)
    starts += g->records[i].kind == REPORT_GC_START;
  g->gcs = etwcap_calloc(starts ? starts : 1, sizeof(*g->gcs));
  if (!g->gcs)
    return ETWCAP_E_NOMEM;
  w.g = g;
  for (i = 0; i < g->record_count; i++) {
    if (i == 0 || g->records[i].pid != g->records[i - 1].pid) {
      w.first = g->count;
      w.suspended = 0;
    }
    walk_record(&w, &g->records[i]);
  }
  etwcap_free(g->records);
  g->records = NULL;
  g->record_count = g->record_cap = 0;
  return 0;
}

void report_gcs_release(struct report_gcs *g)
{
  etwcap_free(g->records);
  etwcap_free(g->gcs);
  memset(g, 0, sizeof(*g));
}

const double report_gc_pause_bounds[REPORT_GC_PAUSE_BUCKETS - 1] = { 0.1, 0.5, 1,  5,
                                                                     10,  50,  100 };

size_t report_gc_totals_at(const struct report_gcs *g, size_t i, struct report_gc_totals *t)
{
  memset(t, 0, sizeof(*t));
  if (i >= g->count)
    return i;
  t->pid = g->gcs[i].pid;
  t->first = i;
  for (; i < g->count && g->gcs[i].pid == t->pid; i++) {
    double p = g->gcs[i].pause_ms;
    size_t b = 0;
    t->count++;
    if (p < 0)
      continue;
    t->total_pause_ms += p;
    if (p > t->max_pause_ms)
      t->max_pause_ms = p;
    while (b < REPORT_GC_PAUSE_BUCKETS - 1 && p >= report_gc_pause_bounds[b])
      b++;
    t->pause_hist[b]++;
  }
  return i;
}

const char *report_gc_reason_name(uint32_t reason, char *buf, size_t cap)
{
  /* ClrEtwAll.man, GCReasonMap. */
  static const char *const names[] = {
    "AllocSmall",       "Induced",          "LowMemory",     "Empty",
    "AllocLarge",       "OutOfSpaceSOH",    "OutOfSpaceLOH", "InducedNotForced",
    "Internal",         "InducedLowMemory", "InducedCompacting", "LowMemoryHost",
    "PMFullGC",         "LowMemoryHostBlocking"
  };
  if (reason < sizeof(names) / sizeof(names[0]))
    return names[reason];
  snprintf(buf, cap, "Reason %u", (unsigned)reason);
  return buf;
}

const char *report_gc_type_name(uint32_t type, char *buf, size_t cap)
{
  /* ClrEtwAll.man, GCTypeMap. */
  static const char *const names[] = { "NonConcurrentGC", "BackgroundGC", "ForegroundGC" };
  if (type < sizeof(names) / sizeof(names[0]))
    return names[type];
  snprintf(buf, cap, "Type %u", (unsigned)type);
  return buf;
}
