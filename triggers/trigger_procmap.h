/* Process names to process ids for the triggers' process filters
 * (/Process, Process=NAME).  Like PerfView, a name is mapped when a kernel
 * Process/Start or Process/DCStart event with that image name is seen (the
 * last one wins) and unmapped when that process stops; until then events
 * are dropped.  In a recorded trace the kernel rundown (DCStart) at its
 * start maps the processes already running.  Without kernel events, the
 * CLR's RuntimeInformation/Start event (its CommandLine) maps the .NET
 * processes.  Names compare case-insensitively, with or without ".exe". */
#ifndef ETWCAP_TRIGGER_PROCMAP_H
#define ETWCAP_TRIGGER_PROCMAP_H

#include "etw/event/etw_event.h"
#include "triggers/trigger_spec.h"

#include <stddef.h>
#include <stdint.h>

#define TRIGGER_PROCMAP_MAX 32

struct trigger_procmap {
  struct {
    char name[TRIGGER_NAME_MAX];
    uint32_t pid;
    int mapped;
    int ever; /* was mapped at least once (for the replay's report) */
  } slots[TRIGGER_PROCMAP_MAX];
  size_t count;
};

/* The slot for a name (existing or new); -1 when the table is full. */
int trigger_procmap_add(struct trigger_procmap *m, const char *name);
/* Looks at one event: kernel Process start/stop, CLR RuntimeInformation. */
void trigger_procmap_event(struct trigger_procmap *m, const struct etw_event *ev);
/* 1 with *pid when the slot's name is mapped now. */
int trigger_procmap_pid(const struct trigger_procmap *m, int slot, uint32_t *pid);
/* Does `image` (a file name, maybe with a path) name `filter`? */
int trigger_procmap_name_matches(const char *filter, const char *image);

#endif
