/* The Containers section of `etwcap report`: for each container ID of the
 * trace (etw/etl/etl_containers.h) its processes, CPU samples, GCs and
 * exceptions, and the container of each process of the process table.
 * Kernel events carry no container ID: they are joined through their
 * process, whose lives etl_containers_find knows.  CPU samples are the
 * processes' own, charged by the report's thread-to-process attribution
 * (report_kernel.c); nothing is attributed a second way here.
 *
 * Lifetime: report_containers_collect fills it from a finished report
 * (report_model.c calls it); report_containers_release frees. */
#ifndef ETWCAP_REPORT_CONTAINERS_H
#define ETWCAP_REPORT_CONTAINERS_H

#include "etw/etl/etl_containers.h"

#include <stddef.h>
#include <stdint.h>

struct report;

struct report_container {
  const struct etl_container *id; /* its ID, events and processes */
  uint64_t cpu_samples, gcs, exceptions;
};

struct report_containers {
  struct report_container *list; /* in the order of r->summary.containers.list */
  size_t count;
  int *process_container; /* per r->kernel.processes[i]: index in list, -1: none */
};

/* 0 or ETWCAP_E_NOMEM. */
int report_containers_collect(struct report_containers *c, const struct report *r);
void report_containers_release(struct report_containers *c);

/* The container of process table row i, or NULL (a host process). */
const struct report_container *report_process_container(const struct report *r, size_t i);

/* The name of container i, or NULL when the capture does not name it.
 * The one place a name comes from: the capture manifest's host inventory
 * (the HCS compute system whose processes the container shares) fills it. */
const char *report_container_name(const struct report *r, size_t i);

#endif
