/* See report_containers.h. */
#include "src/report/report_containers.h"

#include "etw/image/image_identity.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/report/report_model.h"

#include <stdlib.h>
#include <string.h>

/* The container of pid over [from, to] (0: that end unknown), or -1. */
static int container_at(const struct report *r, uint32_t pid, int64_t from, int64_t to)
{
  return etl_containers_find(&r->summary.containers, pid, from ? from : ETL_LIFE_BEFORE_TRACE,
                             to ? to : ETL_LIFE_STILL_RUNNING);
}

/* A row of the process table, for the search by pid and time. */
struct row {
  uint32_t pid, index;
  int64_t start, end; /* 0: before the trace / after it */
};

static int by_pid_start(const void *a, const void *b)
{
  const struct row *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The container of the event of `pid` at `filetime`: that of the process
 * row that holds the time (the kernel's Process events bound it, and an
 * image is loaded after its process's Start), else the ID facts' own
 * lives.  rows: n rows sorted by pid, then start. */
static int event_container(const struct report_containers *c, const struct report *r,
                           const struct row *rows, size_t n, uint32_t pid, int64_t filetime)
{
  size_t lo = 0, hi = n;
  int index = -1;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rows[mid].pid < pid)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < n && rows[lo].pid == pid; lo++)
    if (rows[lo].start <= filetime && (!rows[lo].end || filetime <= rows[lo].end))
      index = (int)rows[lo].index;
  return index >= 0 ? c->process_container[index] : container_at(r, pid, filetime, filetime);
}

int report_containers_image(struct report_containers *c, const struct etw_event *ev,
                            int64_t filetime)
{
  struct image_event img;
  if (image_identity_parse_image_fields(ev, &img) != 0 ||
      (img.opcode != IMAGE_EVENT_LOAD && img.opcode != IMAGE_EVENT_DCSTART))
    return 0;
  if (c->load_count >= REPORT_MAX_IMAGE_LOADS) {
    c->loads_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&c->loads, &c->load_cap, c->load_count, sizeof(*c->loads), 1024) != 0)
    return ETWCAP_E_NOMEM;
  c->loads[c->load_count].filetime = filetime;
  c->loads[c->load_count++].pid = img.process_id;
  return 0;
}

int report_containers_collect(struct report_containers *c, const struct report *r)
{
  const struct etl_containers *ids = &r->summary.containers;
  size_t i, n = r->kernel.process_count;
  struct row *rows;
  if (!ids->count)
    return 0;
  c->list = etwcap_calloc(ids->count, sizeof(*c->list));
  c->process_container = etwcap_calloc(n ? n : 1, sizeof(*c->process_container));
  if (!c->list || !c->process_container)
    return ETWCAP_E_NOMEM;
  c->count = ids->count;
  for (i = 0; i < c->count; i++)
    c->list[i].id = &ids->list[i];
  for (i = 0; i < n; i++) {
    const struct report_process *p = &r->kernel.processes[i];
    int k = container_at(r, p->pid, p->start_filetime, p->end_filetime);
    c->process_container[i] = k;
    if (k >= 0)
      c->list[k].cpu_samples += p->cpu_samples;
  }
  rows = etwcap_calloc(n ? n : 1, sizeof(*rows));
  if (!rows)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < n; i++) {
    rows[i].pid = r->kernel.processes[i].pid;
    rows[i].index = (uint32_t)i;
    rows[i].start = r->kernel.processes[i].start_filetime;
    rows[i].end = r->kernel.processes[i].end_filetime;
  }
  qsort(rows, n, sizeof(*rows), by_pid_start);
  for (i = 0; i < r->gcs.count; i++) {
    const struct report_gc *g = &r->gcs.gcs[i];
    int k = event_container(c, r, rows, n, g->pid, g->start_filetime);
    if (k >= 0)
      c->list[k].gcs++;
  }
  for (i = 0; i < r->exceptions.count; i++) {
    const struct report_exception *e = &r->exceptions.items[i];
    int k = event_container(c, r, rows, n, e->pid, e->first_filetime);
    if (k >= 0)
      c->list[k].exceptions += e->count;
  }
  for (i = 0; i < c->load_count; i++) {
    int k = event_container(c, r, rows, n, c->loads[i].pid, c->loads[i].filetime);
    if (k >= 0)
      c->list[k].image_loads++;
  }
  etwcap_free(rows);
  return 0;
}

void report_containers_release(struct report_containers *c)
{
  etwcap_free(c->list);
  etwcap_free(c->process_container);
  etwcap_free(c->loads);
  memset(c, 0, sizeof(*c));
}

const struct report_container *report_process_container(const struct report *r, size_t i)
{
  int k;
  if (!r->containers.process_container || i >= r->kernel.process_count)
    return NULL;
  k = r->containers.process_container[i];
  return k >= 0 ? &r->containers.list[k] : NULL;
}

/* 1 when container i holds pid: the trace's ID facts say so, or a process
 * row of that pid is joined to it. */
static int holds(const struct report *r, size_t i, uint32_t pid)
{
  const struct etl_container *id = r->containers.list[i].id;
  size_t k;
  for (k = 0; k < id->pid_count; k++)
    if (id->pids[k] == pid)
      return 1;
  for (k = 0; r->containers.process_container && k < r->kernel.process_count; k++)
    if (r->kernel.processes[k].pid == pid && r->containers.process_container[k] == (int)i)
      return 1;
  return 0;
}

/* The HCS compute system of the capture manifest whose host PIDs the
 * container shares most: whether the ETW container ID is HCS's RuntimeId
 * is documented nowhere (docs/containers.md), the processes both list are
 * what ties them. */
const char *report_container_name(const struct report *r, size_t i)
{
  const struct report_manifest *m = &r->manifest;
  const struct report_manifest_system *best = NULL;
  size_t s, k, most = 0;
  if (i >= r->containers.count)
    return NULL;
  for (s = 0; s < m->system_count; s++) {
    size_t shared = 0;
    for (k = 0; k < m->systems[s].pid_count; k++)
      shared += holds(r, i, m->systems[s].pids[k]);
    if (shared > most) {
      most = shared;
      best = &m->systems[s];
    }
  }
  return best ? (best->name[0] ? best->name : best->id) : NULL;
}
