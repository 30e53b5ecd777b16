/* The Containers section of `etwcap report`: for each container ID of the
 * trace (etw/etl/etl_containers.h) its processes, CPU samples, GCs,
 * exceptions and image loads, and the container of each process of the
 * process table.
 * Kernel events carry no container ID: they are joined through their
 * process, whose lives etl_containers_find knows.  CPU samples are the
 * processes' own, charged by the report's thread-to-process attribution
 * (report_kernel.c); nothing is attributed a second way here.
 *
 * Lifetime: zeroed with the report; report_containers_image takes each
 * image event during the pass (their processes are known only at the
 * end); report_containers_collect fills the rest from the finished report
 * (report_model.c calls both); report_containers_release frees. */
#ifndef ETWCAP_REPORT_CONTAINERS_H
#define ETWCAP_REPORT_CONTAINERS_H

#include "etw/etl/etl_containers.h"
#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

struct report;

/* Image loads (Load and DCStart events) kept, 16 bytes each. */
#define REPORT_MAX_IMAGE_LOADS (1u << 20)

struct report_container {
  const struct etl_container *id; /* its ID, events and processes */
  uint64_t cpu_samples, gcs, exceptions, image_loads;
};

struct report_image_load {
  int64_t filetime;
  uint32_t pid;
};

struct report_containers {
  struct report_container *list; /* in the order of r->summary.containers.list */
  size_t count;
  int *process_container; /* per r->kernel.processes[i]: index in list, -1: none */
  struct report_image_load *loads; /* during the pass */
  size_t load_count, load_cap;
  uint64_t loads_dropped;
};

/* Keeps a kernel image Load or DCStart event's process and time.  0, or
 * ETWCAP_E_NOMEM. */
int report_containers_image(struct report_containers *c, const struct etw_event *ev,
                            int64_t filetime);
/* 0 or ETWCAP_E_NOMEM. */
int report_containers_collect(struct report_containers *c, const struct report *r);
void report_containers_release(struct report_containers *c);

/* The container of process table row i, or NULL (a host process). */
const struct report_container *report_process_container(const struct report *r, size_t i);

/* The name of container i, or NULL when the capture does not name it: the
 * HCS compute system of the capture manifest's host inventory whose
 * processes the container shares most (its Name, else its Id). */
const char *report_container_name(const struct report *r, size_t i);

#endif
