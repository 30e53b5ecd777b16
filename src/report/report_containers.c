/* See report_containers.h. */
#include "src/report/report_containers.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/report/report_model.h"

#include <string.h>

/* The container of pid over [from, to] (0: that end unknown), or -1. */
static int container_at(const struct report *r, uint32_t pid, int64_t from, int64_t to)
{
  return etl_containers_find(&r->summary.containers, pid, from ? from : ETL_LIFE_BEFORE_TRACE,
                             to ? to : ETL_LIFE_STILL_RUNNING);
}

int report_containers_collect(struct report_containers *c, const struct report *r)
{
  const struct etl_containers *ids = &r->summary.containers;
  size_t i;
  memset(c, 0, sizeof(*c));
  if (!ids->count)
    return 0;
  c->list = etwcap_calloc(ids->count, sizeof(*c->list));
  c->process_container = etwcap_calloc(r->kernel.process_count ? r->kernel.process_count : 1,
                                       sizeof(*c->process_container));
  if (!c->list || !c->process_container) {
    report_containers_release(c);
    return ETWCAP_E_NOMEM;
  }
  c->count = ids->count;
  for (i = 0; i < c->count; i++)
    c->list[i].id = &ids->list[i];
  for (i = 0; i < r->kernel.process_count; i++) {
    const struct report_process *p = &r->kernel.processes[i];
    int k = container_at(r, p->pid, p->start_filetime, p->end_filetime);
    c->process_container[i] = k;
    if (k >= 0)
      c->list[k].cpu_samples += p->cpu_samples;
  }
  for (i = 0; i < r->gcs.count; i++) {
    const struct report_gc *g = &r->gcs.gcs[i];
    int k = container_at(r, g->pid, g->start_filetime, g->start_filetime);
    if (k >= 0)
      c->list[k].gcs++;
  }
  for (i = 0; i < r->exceptions.count; i++) {
    const struct report_exception *e = &r->exceptions.items[i];
    int k = container_at(r, e->pid, e->first_filetime, e->last_filetime);
    if (k >= 0)
      c->list[k].exceptions += e->count;
  }
  return 0;
}

void report_containers_release(struct report_containers *c)
{
  etwcap_free(c->list);
  etwcap_free(c->process_container);
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

/* No name yet: the capture manifest holds no host inventory to take it
 * from.  Matching an ETW container ID to an HCS compute system goes by
 * the processes both list (docs/etl.md, "Containers of a trace"). */
const char *report_container_name(const struct report *r, size_t i)
{
  (void)r;
  (void)i;
  return NULL;
}
