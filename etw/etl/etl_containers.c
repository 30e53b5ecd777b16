/* See etl_containers.h.  Events come in file order, which an ETL keeps per
 * CPU, not in time: the facts are kept as they come and sorted by time in
 * finish, where each process id's lives are built. */
#include "etw/etl/etl_containers.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

/* Microsoft-Windows-Kernel-Process {22FB2CD6-0E7B-422B-A0C7-2FAD1FD0E716}:
 * event 1 ProcessStart, 2 ProcessStop, each starting with ProcessID
 * (win:UInt32) in every version of its templates (ProcessStartArgs,
 * ProcessStartArgs_V1/V2, ProcessRundownArgs_V1, ProcessStopArgs; the
 * provider's manifest, e.g. `wevtutil gp Microsoft-Windows-Kernel-Process /ge /gm`). */
static const struct etw_guid kernel_process = {
  0x22fb2cd6, 0x0e7b, 0x422b, { 0xa0, 0xc7, 0x2f, 0xad, 0x1f, 0xd0, 0xe7, 0x16 }
};
#define KP_PROCESS_START 1
#define KP_PROCESS_STOP 2

/* The kinds of fact, in the order they apply at one instant: a process
 * starts, is seen, stops. */
enum fact_kind { FACT_START, FACT_SEEN, FACT_STOP };

struct etl_container_fact {
  int64_t filetime;
  uint32_t pid;
  uint32_t container; /* index + 1, or 0 */
  uint32_t seq;       /* arrival order, for a stable sort */
  uint8_t kind;
};

/* A process seen in a container repeats with each of its events: a fact
 * already kept for that pid and container, at or before this time, with
 * no start or stop of the pid since, is not kept again. */
#define SEEN_SLOTS 4096u
struct etl_container_seen {
  uint32_t pid;
  uint32_t container; /* 0: the slot is empty */
  int64_t filetime;
};

void etl_containers_init(struct etl_containers *c)
{
  memset(c, 0, sizeof(*c));
}

void etl_containers_release(struct etl_containers *c)
{
  size_t i;
  for (i = 0; i < c->count; i++)
    etwcap_free(c->list[i].pids);
  etwcap_free(c->list);
  etwcap_free(c->facts);
  etwcap_free(c->seen);
  etwcap_free(c->lives);
  memset(c, 0, sizeof(*c));
}

/* The index + 1 of the container with this ID (added when new), or 0. */
static uint32_t container_of(struct etl_containers *c, const char *id)
{
  size_t i;
  for (i = 0; i < c->count; i++)
    if (!strcmp(c->list[i].id, id))
      return (uint32_t)i + 1;
  if (c->count >= ETL_CONTAINERS_MAX)
    return 0;
  if (etwcap_grow((void **)&c->list, &c->cap, c->count, sizeof(*c->list), 4) != 0) {
    c->err = ETWCAP_E_NOMEM;
    return 0;
  }
  memset(&c->list[c->count], 0, sizeof(c->list[0]));
  memcpy(c->list[c->count].id, id, ETW_CONTAINER_ID_SIZE);
  return (uint32_t)++c->count;
}

static void add_fact(struct etl_containers *c, enum fact_kind kind, uint32_t pid,
                     uint32_t container, int64_t filetime)
{
  struct etl_container_fact *f;
  if (c->fact_count >= ETL_CONTAINER_RECORDS_MAX) {
    c->facts_dropped++;
    return;
  }
  if (etwcap_grow((void **)&c->facts, &c->fact_cap, c->fact_count, sizeof(*c->facts), 256) !=
      0) {
    c->err = ETWCAP_E_NOMEM;
    return;
  }
  f = &c->facts[c->fact_count];
  f->filetime = filetime;
  f->pid = pid;
  f->container = container;
  f->seq = (uint32_t)c->fact_count++;
  f->kind = (uint8_t)kind;
}

static void seen(struct etl_containers *c, uint32_t pid, uint32_t container, int64_t filetime)
{
  struct etl_container_seen *s;
  if (!c->seen && !(c->seen = etwcap_calloc(SEEN_SLOTS, sizeof(*c->seen)))) {
    c->err = ETWCAP_E_NOMEM;
    return;
  }
  s = &c->seen[pid % SEEN_SLOTS];
  if (s->container == container && s->pid == pid && s->filetime <= filetime)
    return;
  s->pid = pid;
  s->container = container;
  s->filetime = filetime;
  add_fact(c, FACT_SEEN, pid, container, filetime);
}

void etl_containers_event(struct etl_containers *c, const struct etw_event *ev, int64_t filetime)
{
  char id[ETW_CONTAINER_ID_SIZE];
  uint32_t container = 0;
  int rc = etw_event_container_id(ev, id);
  if (rc < 0)
    c->invalid_items++;
  if (rc > 0) {
    container = container_of(c, id);
    if (container)
      c->list[container - 1].events++;
    else
      c->events_dropped++;
  }
  if (container && (ev->has & ETW_HAS_PID_TID))
    seen(c, ev->pid, container, filetime);
  if ((ev->has & ETW_HAS_DESCRIPTOR) && (ev->id == KP_PROCESS_START || ev->id == KP_PROCESS_STOP) &&
      ev->user_len >= 4 && guid_equal(&ev->provider, &kernel_process)) {
    uint32_t pid = etl_le32(ev->user_data);
    if (c->seen && c->seen[pid % SEEN_SLOTS].pid == pid)
      c->seen[pid % SEEN_SLOTS].container = 0;
    if (ev->id == KP_PROCESS_START)
      add_fact(c, FACT_START, pid, container, filetime);
    else
      add_fact(c, FACT_STOP, pid, 0, filetime);
  }
}

static int by_pid_time(const void *a, const void *b)
{
  const struct etl_container_fact *x = a, *y = b;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  if (x->filetime != y->filetime)
    return x->filetime < y->filetime ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct etl_process_life *new_life(struct etl_containers *c, uint32_t pid, int64_t start,
                                         uint32_t container)
{
  struct etl_process_life *l = &c->lives[c->life_count++];
  l->pid = pid;
  l->start = start;
  l->end = ETL_LIFE_STILL_RUNNING;
  l->container = container;
  return l;
}

/* The facts of one pid, in time order, into lives.  A start opens a life
 * (closing the one before), a stop closes it, and an ID seen while a life
 * is open names its container unless it has one; an ID seen with no life
 * open, or a stop with none, is a life of its own from the end of the one
 * before (or from before the trace).  At most one life per fact. */
static void build_lives(struct etl_containers *c, const struct etl_container_fact *f, size_t n)
{
  struct etl_process_life *open = NULL;
  int64_t last_end = ETL_LIFE_BEFORE_TRACE;
  size_t i;
  for (i = 0; i < n; i++) {
    switch (f[i].kind) {
    case FACT_START:
      if (open)
        open->end = f[i].filetime;
      open = new_life(c, f[i].pid, f[i].filetime, f[i].container);
      break;
    case FACT_SEEN:
      if (!open)
        open = new_life(c, f[i].pid, last_end, 0);
      if (!open->container)
        open->container = f[i].container;
      break;
    default: /* FACT_STOP */
      if (!open)
        open = new_life(c, f[i].pid, last_end, 0);
      open->end = last_end = f[i].filetime;
      open = NULL;
      break;
    }
  }
}

/* Each container's distinct pids, from the lives: sorted by pid, so each
 * list comes out ascending. */
static int list_processes(struct etl_containers *c)
{
  size_t i;
  for (i = 0; i < c->life_count; i++) {
    const struct etl_process_life *l = &c->lives[i];
    struct etl_container *k;
    if (!l->container)
      continue;
    k = &c->list[l->container - 1];
    if (k->pid_count && k->pids[k->pid_count - 1] == l->pid)
      continue;
    if (etwcap_grow((void **)&k->pids, &k->pid_cap, k->pid_count, sizeof(*k->pids), 8) != 0)
      return ETWCAP_E_NOMEM;
    k->pids[k->pid_count++] = l->pid;
  }
  return 0;
}

int etl_containers_finish(struct etl_containers *c)
{
  size_t i, run;
  if (c->err)
    return c->err;
  if (!c->count)
    return 0; /* no container: every process is the host's */
  qsort(c->facts, c->fact_count, sizeof(*c->facts), by_pid_time);
  c->lives = etwcap_calloc(c->fact_count ? c->fact_count : 1, sizeof(*c->lives));
  if (!c->lives)
    return c->err = ETWCAP_E_NOMEM;
  for (i = 0; i < c->fact_count; i = run) {
    for (run = i + 1; run < c->fact_count && c->facts[run].pid == c->facts[i].pid; run++) {
    }
    build_lives(c, c->facts + i, run - i);
  }
  etwcap_free(c->facts);
  c->facts = NULL;
  c->fact_count = c->fact_cap = 0;
  if (list_processes(c) != 0)
    return c->err = ETWCAP_E_NOMEM;
  return 0;
}

/* Of the lives of pid that overlap [from, to], the latest that starts at
 * or before `from` (a start closes the life before at the same instant),
 * else the first. */
int etl_containers_find(const struct etl_containers *c, uint32_t pid, int64_t from, int64_t to)
{
  const struct etl_process_life *best = NULL;
  size_t lo = 0, hi = c->life_count;
  while (lo < hi) { /* the first life of pid */
    size_t mid = lo + (hi - lo) / 2;
    if (c->lives[mid].pid < pid)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < c->life_count && c->lives[lo].pid == pid; lo++) {
    const struct etl_process_life *l = &c->lives[lo];
    if (l->start > to || from > l->end)
      continue;
    if (!best || l->start <= from)
      best = l;
  }
  return best && best->container ? (int)best->container - 1 : -1;
}
