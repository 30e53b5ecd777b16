/* What `etwcap report` learns from kernel events: the processes (Process
 * Start/DCStart/Stop/DCStop: pid, image name, command line, lifetime), CPU
 * samples per process (PerfInfo SampleProf, attributed through the thread
 * intervals of Thread Start/DCStart/End by the samples' times, as TraceLog
 * does), context switches, and the images seen with
 * whether KernelTraceControl's identity events (ImageID, DbgID_RSDS) came
 * with them, i.e. whether their symbols can be found on another machine.
 * Memory is bounded by the caps below; what does not fit is counted. */
#ifndef ETWCAP_REPORT_KERNEL_H
#define ETWCAP_REPORT_KERNEL_H

#include "etw/event/etw_event.h"
#include "etw/stacks/stack_frames.h"
#include "etw/stacks/stack_join.h"
#include "src/report/report_idmap.h"
#include "src/report/report_images.h"

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_PROCESSES 65536
#define REPORT_MAX_CPUS 256
/* Thread intervals kept (32 bytes each), and CPU samples held back before
 * they are charged (16 bytes each): see struct report_kernel. */
#define REPORT_MAX_THREADS (1u << 19)
#define REPORT_SAMPLE_WINDOW (1u << 20)
#define REPORT_PROCESS_NAME_MAX 64
#define REPORT_COMMAND_LINE_MAX 1024

/* Kernel groups and opcodes (hook ids) of the events counted on the
 * timeline (TraceEvent's KernelTraceEventParser: CSwitch 0x0524,
 * SampleProf 0x0F2E). */
#define REPORT_GROUP_THREAD 0x05
#define REPORT_OPCODE_CSWITCH 36
#define REPORT_GROUP_PERFINFO 0x0F
#define REPORT_OPCODE_SAMPLE 46
/* PerfInfo SetInterval, CollectionStart, CollectionEnd (0x0F48-0x0F4A):
 * the sampling interval of a profile source (docs/stacks.md). */
#define REPORT_OPCODE_SET_INTERVAL 72
#define REPORT_OPCODE_COLLECTION_START 73
#define REPORT_OPCODE_COLLECTION_END 74
#define REPORT_MAX_INTERVALS 64  /* changes of the timer's interval kept */
#define REPORT_DEFAULT_INTERVAL 10000 /* 1 ms in 100 ns: when the trace gives none */
#define REPORT_GROUP_STACKWALK 0x18

struct report_process {
  uint32_t pid;
  char name[REPORT_PROCESS_NAME_MAX];
  char *command_line;       /* allocated, may be NULL */
  int64_t start_filetime;   /* Process/Start; 0 when it ran before the trace (DCStart) */
  int64_t end_filetime;     /* Process/Stop; 0 when still running at the end */
  uint64_t cpu_samples;
};

struct bi_event;

/* A Process or Thread event's layout and the indexes of the fields read
 * (-1: absent), remembered by (group, opcode, version). */
struct report_kernel_row {
  int known;
  uint8_t group, opcode, version;
  const struct bi_event *row; /* NULL: no layout */
  int pid_at, tid_at, name_at, command_at;
};
#define REPORT_ROW_MEMO 16

/* One life of a thread id: from its Start (or, for a DCStart, from before
 * the trace) to its End.  The intervals of one id are chained, latest
 * first. */
#define REPORT_BEFORE_TRACE INT64_MIN
#define REPORT_STILL_RUNNING INT64_MAX
struct report_thread {
  int64_t start, end;
  uint32_t pid;
  uint32_t process; /* index in processes + 1 when the thread event came, or 0 */
  uint32_t prev;    /* index + 1 of the id's interval seen before, or 0 */
  /* index + 1 of the id's interval that starts last, as of this one (of
   * equal starts, the one seen last) */
  uint32_t latest;
};

/* A change of the timer's sampling interval (profile source 0), in 100 ns
 * units: `before` was in effect up to filetime, `after` from then on. */
struct report_interval {
  int64_t filetime;
  uint32_t before, after;
};

/* An answer of the charging rules for a thread id, which holds for any
 * time in [lo, hi]: once the pass is over, the intervals no longer change,
 * and a sample's thread is most often that of its CPU's sample before. */
#define REPORT_CHARGE_MEMO 64
struct report_charge_memo {
  int64_t lo, hi;
  uint32_t tid, process; /* tid 0: empty */
};

/* A CPU sample not yet charged: its thread id and time. */
struct report_sample {
  int64_t filetime;
  uint32_t tid;
};

struct report_kernel {
  struct report_process *processes; /* in order of appearance */
  size_t process_count, process_cap;
  uint64_t processes_dropped;
  struct report_kernel_row rows[REPORT_ROW_MEMO]; /* by (group * 8 + opcode) % REPORT_ROW_MEMO */
  struct report_idmap pid_to_process; /* pid -> latest index in processes */
  /* An ETL stores each CPU's buffers apart, so a sample can come before
   * the Start (or the rundown) of its thread in file order.  Samples are
   * held in a window of REPORT_SAMPLE_WINDOW, oldest charged first, the
   * rest at the end, against the thread intervals known then. */
  struct report_thread *threads;
  size_t thread_count, thread_cap;
  struct report_idmap tid_to_thread; /* tid -> index of its latest interval */
  struct report_sample *window;      /* a ring once full; oldest at window_head */
  size_t window_count, window_cap, window_head;
  /* The process each sample of the stacks was charged to (index + 1, or
   * 0), in their order, for the CPU stacks (report_cpu.c). */
  uint32_t *charges;
  size_t charge_count, charge_cap;
  int idle_known;        /* at the end: the process thread 0 is charged to */
  uint32_t idle_process;
  struct report_charge_memo charge_memo[REPORT_CHARGE_MEMO]; /* at the end, by tid */
  /* The kernel group of the provider of the last event not logged by the
   * kernel itself (bi_kernel_group compares it with every kernel task). */
  int last_provider_known;
  struct etw_guid last_provider;
  unsigned last_provider_group;
  uint64_t threads_dropped;
  /* The timer's interval changes, by time once finished. */
  struct report_interval intervals[REPORT_MAX_INTERVALS];
  size_t interval_count;
  uint64_t intervals_dropped;
  uint64_t cpu_samples, samples_unattributed, context_switches;
  struct report_images images;
  struct stack_frames *frames; /* also told of the image events, when set */
  /* When set, CPU samples go to these stacks, and those they keep are
   * charged from there at the end (the window holds only the others). */
  struct stack_join *stacks;
  uint64_t identity_events;
  /* The identity events KernelTraceControl writes just before an image
   * event, on the same CPU: the ImageBase they named. */
  uint64_t pending_id_base[REPORT_MAX_CPUS], pending_pdb_base[REPORT_MAX_CPUS];
};

int report_kernel_init(struct report_kernel *k);
void report_kernel_release(struct report_kernel *k);
/* What report_kernel_event saw, for the timeline. */
enum report_kernel_seen { REPORT_SAW_OTHER, REPORT_SAW_CSWITCH, REPORT_SAW_CPU_SAMPLE };
/* Looks at one event (not one of the CLR's).  A report_kernel_seen, or
 * ETWCAP_E_NOMEM. */
int report_kernel_event(struct report_kernel *k, const struct etw_event *ev, int64_t filetime);
/* 1 when a process of this pid is known (k: a struct report_kernel; the
 * form stack_frames_finish asks for). */
int report_kernel_knows(void *k, uint32_t pid);
/* The latest process with this pid, or NULL. */
const struct report_process *report_kernel_process(const struct report_kernel *k, uint32_t pid);
/* The process (index in processes + 1) a CPU sample of thread tid at
 * filetime is charged to, or 0: the rules of charged_process in
 * report_kernel.c.  Meaningful once all thread events are in. */
uint32_t report_kernel_charged(const struct report_kernel *k, uint32_t tid, int64_t filetime);
/* The timer's sampling interval (100 ns units) in effect at filetime: the
 * `after` of the latest change at or before it, else the `before` of the
 * first change; REPORT_DEFAULT_INTERVAL when the trace gives none.  Once
 * finished. */
uint32_t report_kernel_interval(const struct report_kernel *k, int64_t filetime);
/* 1 when the interval is the same over the whole trace (also when the trace
 * gives none). */
int report_kernel_interval_fixed(const struct report_kernel *k);
/* Names the images in UTF-8 and sorts them by name, for the report: 0, or
 * ETWCAP_E_NOMEM.  No more events after it. */
int report_kernel_finish(struct report_kernel *k);

#endif
