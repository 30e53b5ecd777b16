/* Where the CPU went, per process, for `etwcap report` and `convert`: each
 * CPU sample charged to its process (report_kernel_charged), its stack
 * (stack_join) named frame by frame at the sample's time
 * (stack_frames), and counted in a tree of calls (root first, one node
 * per distinct path) and per frame:
 *   self  the samples whose instruction pointer is in that frame, with or
 *         without a stack;
 *   total the samples with that frame anywhere in their stack, once per
 *         sample (a sample without a stack: its instruction pointer's).
 * With context switches (a /ThreadTime capture), the report also gets a
 * thread-time tree per process, as PerfView's thread time view counts it
 * (TraceEvent's ThreadTimeComputer): each CPU sample is the sampling
 * interval in effect at its time (report_kernel_interval) of CPU_TIME on
 * its stack, and a thread's time from its switch-out to its next
 * switch-in is BLOCKED_TIME on the stack of the switch-in (where it had
 * blocked), in 100 ns units.
 * Which processes: the busiest (report), or all or one (convert).  Memory
 * is bounded: past REPORT_MAX_CPU_NODES tree nodes, a sample's path is cut
 * where it does not fit, and the cut samples are counted.
 *
 * Lifetime: report_cpu_build fills it; report_cpu_release frees it. */
#ifndef ETWCAP_REPORT_CPU_H
#define ETWCAP_REPORT_CPU_H

#include "etw/stacks/stack_frames.h"
#include "etw/stacks/stack_join.h"
#include "src/report/report_kernel.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_CPU_NODES (1u << 22)
#define REPORT_CPU_BUSIEST 10 /* processes the report details */
#define REPORT_CPU_TOP 50     /* frames kept per process, by self and by total */

struct report_cpu_frame {
  uint32_t frame;
  uint64_t self, total;
};

/* A node of the call tree: a frame called from its parent's (node 0 is the
 * process, frame STACK_FRAME_UNKNOWN); weight counts the samples whose
 * stack ends here, time their CPU time (100 ns units: each sample the
 * sampling interval in effect at its time). */
struct report_cpu_node {
  uint32_t parent, frame;
  uint64_t weight, time;
};

struct report_cpu_process {
  uint32_t pid;
  char name[REPORT_PROCESS_NAME_MAX];
  uint64_t samples, with_stack;
  uint64_t cpu_time; /* its samples' CPU time, 100 ns units (as the nodes' time) */
  struct report_cpu_frame *top; /* by self, then total, descending (sel->tables) */
  size_t top_count;
  struct report_cpu_frame *top_total; /* by total, then self, descending */
  size_t top_total_count;
  struct report_cpu_node *nodes;
  size_t node_count, node_cap;
};

/* Which processes to build: the `busiest` with the most samples, or with
 * all set every process with samples, and with pid_given or name given
 * only that one (a name: every process of that image name, any case). */
struct report_cpu_select {
  size_t busiest;
  int thread_time; /* build the thread-time trees when the trace has context switches */
  int tables;      /* count self and total per frame for the top lists */
  int all;
  int pid_given;
  uint32_t pid;
  const char *name;
};

struct report_cpu {
  struct report_cpu_process *list; /* by samples, descending */
  size_t count;
  /* NULL, or count entries, list's processes in its order, whose trees
   * weigh CPU and blocked time (100 ns units): only nodes and their
   * weights are filled, and blocked (the BLOCKED_TIME in them). */
  struct report_cpu_process *thread_time;
  uint64_t *blocked;
  uint64_t samples, with_stack;    /* of the processes built */
  uint64_t paths_cut;
};

int report_cpu_build(struct report_cpu *c, const struct report_kernel *k,
                     const struct stack_join *s, struct stack_frames *f,
                     unsigned pointer_size, const struct report_cpu_select *sel);
void report_cpu_release(struct report_cpu *c);

/* The frames from the process down to node (root first, the process node
 * left out) into out: how many, at most cap (the ones nearest the root). */
size_t report_cpu_path(const struct report_cpu_process *p, uint32_t node, uint32_t *out,
                       size_t cap);

#endif
