/* The call stacks of CPU samples for `etwcap report` and `convert`: each
 * kernel SampledProfile event joined to the stack events that belong to it,
 * by TraceLog's rules (microsoft/perfview src/TraceEvent/TraceLog.cs, the
 * StackWalk handlers and IncompleteStack; docs/stacks.md):
 *   - a StackWalk event (opcode 32) or a StackKeyKernel/StackKeyUser
 *     reference (37, 38) names its event by EventTimeStamp and thread, and
 *     is logged on the same CPU right after it;
 *   - a reference is resolved by the next definition of its key (KeyDelete
 *     35, KeyRundown 36), kernel or user by the definition's last frame;
 *   - a part that ends in kernel mode waits for the thread's next user part
 *     (a StackWalk that starts in user mode, or any StackKeyUser), which the
 *     kernel logs when the thread returns to user mode; processes 0 and 4
 *     have no user part;
 *   - an EVENT_HEADER_EXT_TYPE_STACK_TRACE32/64 item is a stack of its own
 *     event, and the EventTracing provider's user-mode stack event (id 18,
 *     opcode 24) is such a user part.
 * Events may come in file order (each CPU's buffers apart), so nothing here
 * depends on the order across CPUs: a stack event is matched at once to
 * the recent samples of its CPU, or else at the end to any sample; a
 * reference takes the first definition of its key at or after its time;
 * the waiting parts are given their user part at the end, thread by thread
 * in time order.  Memory is bounded by the caps below; samples and
 * stack frames past them are counted as dropped.
 *
 * Lifetime: stack_join_init, events, stack_join_finish, then the
 * samples are read; stack_join_release frees everything. */
#ifndef ETWCAP_STACK_JOIN_H
#define ETWCAP_STACK_JOIN_H

#include "etw/etl/etl_clock.h"
#include "etw/event/etw_event.h"
#include "etw/stacks/stack_keymap.h"

#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_SAMPLES (1u << 22)
#define STACK_MAX_ADDRESSES (1u << 22)
#define STACK_CPUS 256
#define STACK_RECENT 8 /* samples remembered per CPU for their stack events */

/* One CPU sample, or one context switch (STACK_SAMPLE_CSWITCH: tid is the
 * thread switched in, whose stack it carries, ip the thread switched out).
 * kern and user are parts: 0 none, STACK_PART_FRAGMENT | index of a
 * fragment, or a reference's index + 1 (stack_join_part follows it). */
#define STACK_PART_FRAGMENT 0x80000000u
struct stack_sample {
  int64_t filetime;
  uint64_t ip;        /* InstructionPointer */
  uint32_t tid;
  uint32_t kern, user;
  uint32_t flags;     /* enum stack_sample_flags */
};

enum stack_sample_flags {
  STACK_SAMPLE_WAITS = 1,   /* its kernel part waits for the thread's next user part */
  STACK_SAMPLE_NO_USER = 2, /* process 0 or 4: the kernel part is the whole stack */
  STACK_SAMPLE_CSWITCH = 4, /* a context switch, not a CPU sample */
};

/* A run of addresses in the pool, leaf first. */
struct stack_fragment {
  uint32_t first, count;
};

/* A use of a stack key (StackKeyKernel or StackKeyUser) at a time, and the
 * fragment of the first definition of that key at or after it (finish). */
struct stack_ref {
  uint64_t key;
  int64_t filetime;
  uint32_t kind;
  uint32_t part;
};

/* A definition of a key (KeyDelete, KeyRundown); sorted by key, kind and
 * time at the end. */
struct stack_def {
  uint64_t key;
  int64_t filetime;
  uint32_t kind, part;
};

/* A stack event whose event was not among the CPU's recent samples: a
 * user part logged when the thread left the kernel, or the stack of
 * another kind of event.  Matched to the samples at the end. */
struct stack_late {
  int64_t filetime; /* of the EventTimeStamp, on the trace's clock */
  uint32_t tid, pid, part, is_kernel;
  uint32_t next;    /* at the end: index + 1 of another late part of the same sample */
};

/* A user part at a time on a thread, for the parts that wait. */
struct stack_flush {
  int64_t filetime;
  uint32_t tid, part;
};

struct stack_join_recent {
  uint64_t timestamp; /* raw */
  uint32_t tid, sample; /* sample 0: the CPU's idle sample held back */
};

/* Idle's samples (thread 0) without a stack, one run per CPU and address
 * in file order (each CPU's samples come in time order): an idle machine
 * logs millions, at a few dozen addresses.  A run is named at its first
 * time: the images of the kernel do not change within it. */
struct stack_idle_run {
  int64_t first, last;
  uint64_t ip, count;
};

/* An idle sample held back until the CPU's next sample shows whether a
 * stack came with it (the kernel logs it right after, on its CPU). */
struct stack_idle_held {
  int64_t filetime;
  uint64_t timestamp, ip;
  int held;
  int open;                  /* runs[run] is this CPU's run still growing */
  size_t run;
};

struct stack_join {
  const struct etl_clock *clock; /* of the file being read: set before its events */
  struct stack_sample *samples;
  size_t sample_count, sample_cap;
  uint64_t *addresses;
  size_t address_count, address_cap;
  struct stack_fragment *fragments;
  size_t fragment_count, fragment_cap;
  struct stack_ref *refs;
  size_t ref_count, ref_cap;
  struct stack_def *defs;
  size_t def_count, def_cap;
  struct stack_late *lates;
  size_t late_count, late_cap;
  struct stack_flush *flushes;
  size_t flush_count, flush_cap;
  uint32_t *waiting; /* samples given a kernel part that waits (some may have had their user part since) */
  size_t waiting_count, waiting_cap;
  struct stack_keymap fragment_by_hash;
  struct stack_join_recent recent[STACK_CPUS][STACK_RECENT];
  uint8_t recent_next[STACK_CPUS];
  struct stack_idle_held idle[STACK_CPUS];
  struct stack_idle_run *runs;
  size_t run_count, run_cap;
  uint64_t idle_run_samples; /* the samples in runs */
  uint64_t samples_dropped, frames_dropped, stack_events, orphan_stack_events;
  uint64_t cswitches; /* context switches seen */
  uint64_t stack_records_dropped; /* references, definitions, late parts past their caps */
};

int stack_join_init(struct stack_join *s);
void stack_join_release(struct stack_join *s);
/* A SampledProfile event (the caller has recognised it) at filetime:
 * STACK_KEPT (among the samples), STACK_KEPT_IDLE (thread 0's, held
 * back or in a run: charged to Idle), STACK_NOT_KEPT (short or past the
 * cap), or ETWCAP_E_NOMEM. */
enum { STACK_NOT_KEPT, STACK_KEPT, STACK_KEPT_IDLE };
int stack_join_sample(struct stack_join *s, const struct etw_event *ev, int64_t filetime);
/* A kernel CSwitch event (the caller has recognised it: NewThreadId,
 * OldThreadId, ...; TraceEvent's CSwitchTraceData), kept with the CPU
 * samples for the thread-time view: 0 or ETWCAP_E_NOMEM. */
int stack_join_cswitch(struct stack_join *s, const struct etw_event *ev, int64_t filetime);
/* A kernel StackWalk event (group 24): 0 or ETWCAP_E_NOMEM. */
int stack_join_walk(struct stack_join *s, const struct etw_event *ev, int64_t filetime);
/* The STACK_TRACE items of any event; is_sample says whether ev is the
 * sample just given to stack_join_sample.  0 or ETWCAP_E_NOMEM. */
int stack_join_ext(struct stack_join *s, const struct etw_event *ev, int64_t filetime,
                      int is_sample);
/* Puts the idle samples still held back into their runs (at the end of
 * the trace, before the samples are charged): 0 or ETWCAP_E_NOMEM. */
int stack_join_settle(struct stack_join *s);
/* Closes the idle runs and gives the waiting kernel parts their user
 * parts: 0 or ETWCAP_E_NOMEM. */
int stack_join_finish(struct stack_join *s);

/* A part followed to its fragment: the fragment, or NULL when its key was
 * never defined. */
const struct stack_fragment *stack_join_part(const struct stack_join *s, uint32_t part);
/* The sample's stack, leaf first, as up to two fragments (kernel then user;
 * *n_out of them): 1, or 0 when it has none (TraceLog's rules give it none:
 * no stack event, a key never defined, or a kernel part whose user part
 * never came). */
int stack_join_of(const struct stack_join *s, const struct stack_sample *x,
                     const struct stack_fragment *out[2], unsigned *n_out);

/* TraceLog's IsWindowsKernelAddress. */
int stack_is_kernel_address(uint64_t address, unsigned pointer_size);

#endif
