/* Which process-isolated container each process of a trace ran in, for
 * `info` and `report` (docs/etl.md section 4.4, "Containers of a trace").
 * Two sources, both from the host's user session with
 * /EnableSourceContainerTracking: every event emitted inside a container
 * carries the container's ID item, so its header's process is in that
 * container; and Microsoft-Windows-Kernel-Process ProcessStart is logged by
 * the creating process, inside the creator's container, so the new process
 * (the payload's ProcessID) is in the same one.  ProcessStart and
 * ProcessStop also bound each life of a process id, so a reused id is
 * joined by time.  Kernel events carry no item: the report joins them to
 * containers through their process with etl_containers_find.  Processes
 * never seen with an ID (the host's own) are in no container.
 *
 * Memory is bounded: ETL_CONTAINERS_MAX IDs and ETL_CONTAINER_RECORDS_MAX
 * facts are kept, the rest counted.  Lifetime: init, event for each event
 * (any order; facts are sorted by time in finish), finish, then the
 * queries; release frees. */
#ifndef ETWCAP_ETL_CONTAINERS_H
#define ETWCAP_ETL_CONTAINERS_H

#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

#define ETL_CONTAINERS_MAX 256
#define ETL_CONTAINER_RECORDS_MAX (1u << 20)

/* The ends of a life that began before the trace or outlived it. */
#define ETL_LIFE_BEFORE_TRACE INT64_MIN
#define ETL_LIFE_STILL_RUNNING INT64_MAX

struct etl_container {
  char id[ETW_CONTAINER_ID_SIZE]; /* as the first item spelled it */
  uint64_t events;                /* events that carried the ID */
  uint32_t *pids;                 /* after finish: its processes, ascending */
  size_t pid_count, pid_cap;
};

/* One life of a process id (after finish): [start, end] as FILETIMEs, and
 * its container's index + 1 (0: none known). */
struct etl_process_life {
  int64_t start, end;
  uint32_t pid;
  uint32_t container;
};

struct etl_container_fact;
struct etl_container_seen;

struct etl_containers {
  struct etl_container *list; /* in order of first appearance */
  size_t count, cap;
  uint64_t events_dropped;    /* events whose ID found no room */
  uint64_t invalid_items;     /* CONTAINER_ID items that are no GUID */
  struct etl_container_fact *facts;
  size_t fact_count, fact_cap;
  uint64_t facts_dropped;
  struct etl_container_seen *seen; /* the last ID fact of each pid slot */
  struct etl_process_life *lives;  /* after finish: by pid, then start */
  size_t life_count;
  int err; /* sticky: ETWCAP_E_NOMEM */
};

void etl_containers_init(struct etl_containers *c);
/* Looks at one event at `filetime`.  Never fails: an allocation failure
 * is kept for finish. */
void etl_containers_event(struct etl_containers *c, const struct etw_event *ev, int64_t filetime);
/* Orders the facts into lives and lists each container's processes.
 * 0, or the sticky ETWCAP_E_NOMEM. */
int etl_containers_finish(struct etl_containers *c);
void etl_containers_release(struct etl_containers *c);

/* The container (an index in list) of the life of `pid` that overlaps
 * [from, to], or -1 when none does or that life had no ID. */
int etl_containers_find(const struct etl_containers *c, uint32_t pid, int64_t from, int64_t to);

#endif
