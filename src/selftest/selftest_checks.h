/* What `etwcap selftest` checks, as one table: each check's NAME, what it
 * checks (the `selftest /?` listing is generated from it) and the function
 * that judges it PASS, FAIL or SKIP.  The judges read facts gathered in one
 * pass over the trace the selftest wrote and read back (any .etl or
 * .etl.zip, through the ETL reader) and what the selftest saw outside the
 * trace (the capture's result, the manifest's trigger and losses, the
 * sessions still running).  Portable: tested natively on real samples and
 * hand-built events; the Windows workload is in selftest_os_win32.c.
 *
 * Lifetime: selftest_facts_init / selftest_facts_release around the facts
 * (they hold the timestamps used to pair events with their stacks). */
#ifndef ETWCAP_SELFTEST_CHECKS_H
#define ETWCAP_SELFTEST_CHECKS_H

#include "etw/event/etw_event.h"
#include "etw/event/guid.h"

#include <stddef.h>
#include <stdint.h>

enum selftest_verdict { SELFTEST_PASS, SELFTEST_FAIL, SELFTEST_SKIP };

/* The kernel events whose stacks are checked. */
enum selftest_kernel_kind {
  SELFTEST_CSWITCH,        /* Thread group 5, opcode 36 */
  SELFTEST_READY_THREAD,   /* Thread group 5, opcode 50 */
  SELFTEST_SAMPLED_PROFILE,/* PerfInfo group 15, opcode 46 */
  SELFTEST_KERNEL_KINDS
};

/* What the workload did, so the trace can be searched for it. */
struct selftest_expect {
  uint32_t child_pid;        /* the child process; 0: any Process/Start and End */
  uint32_t self_pid;         /* etwcap's own process; 0: any, for the start rundown */
  uint32_t busy_tid;         /* the thread that spun; 0: none known */
  uint32_t dotnet_pid;       /* the .NET child; 0: none started */
  const char *dll_name;      /* base name of the DLL loaded; NULL: any image load */
  struct etw_guid own_provider;
  unsigned own_events;       /* events written under own_provider, Seq 1..N */
  const char *own_last_name; /* the name of event N (the trigger's) */
};

/* What a phase's trace holds (selftest_phases.h), counted as the main
 * trace's facts are. */
struct selftest_census {
  int read;                  /* a trace was read */
  char name[128];            /* its file (base name), or why it was not read */
  uint64_t events;
  uint64_t cswitch, ready_thread, samples;
  uint64_t process_start, process_dcstart, process_dcend;
  uint64_t image_load, image_dcstart;
  uint64_t clr_rundown;
};

#define SELFTEST_MAX_SEGMENTS 4
#define SELFTEST_SEGMENT_SEC 5
#define SELFTEST_SEGMENTS_RUN_MS 12000u /* two whole segments and part of a third */
#define SELFTEST_ROUTES_BUILD 20348u    /* the System Providers route's first build */

/* One phase: the capture's result and the census of each trace it left
 * (the snapshot: one; segments: each, oldest first; a route: its zip). */
struct selftest_phase {
  int ran;                   /* attempted */
  int capture_rc;
  char why[256];             /* what went wrong, "" none */
  struct selftest_census census[SELFTEST_MAX_SEGMENTS];
  size_t census_count;
};

/* What the selftest saw outside the trace. */
struct selftest_outcome {
  int capture_rc;              /* the capture's result (0 or ETWCAP_E_*) */
  char capture_detail[256];    /* what failed, or what was written */
  int child_rc, dll_rc, events_rc; /* the workload's steps (0 done) */
  char workload_why[256];      /* the first of its steps that failed */
  int threads_rc;              /* the thread switches and the spin */
  int dotnet_rc;               /* the .NET child; ETWCAP_E_NOENT: no .NET on the host */
  char dotnet_what[64];
  char dotnet_why[256];
  int busy_cpu_known;          /* busy_cpu_100ns was measured */
  uint64_t busy_cpu_100ns;     /* the CPU time the spin took */
  uint32_t sample_interval_100ns; /* the CPU sampling interval the capture set */
  const char *trigger_expected;/* e.g. "StopOnEtwEvent" */
  char trigger_fired[64];      /* the manifest's trigger name; "" none */
  int manifest_read;           /* the capture manifest was read back */
  uint64_t sessions_events_lost, sessions_buffers_lost; /* the manifest's sessions */
  size_t health_warnings;      /* the manifest's health warnings */
  char health_first[256];      /* the first of them */
  int sessions_listed;         /* the controller's list answered */
  size_t sessions_left;
  char left_names[256];
  unsigned os_build;           /* the Windows build; 0 unknown */
  struct selftest_phase snapshot, segments;
  struct selftest_phase routes[2]; /* groupMask, systemProviders */
};

/* The kernel routes ROUTES compares, as /KernelRoute names them. */
extern const char *const selftest_route_names[2];

#define SELFTEST_MAX_TIMES (4u * 1024u * 1024u) /* timestamps kept per kind */
#define SELFTEST_MAX_OWN 64u

struct selftest_times {
  uint64_t *ts;
  size_t count, cap;
};

/* Gathered from the trace by selftest_scan_event. */
struct selftest_facts {
  struct selftest_expect expect;
  int scanned;                   /* a trace was read */
  char scan_error[256];
  uint64_t events;
  uint64_t process_start, process_end;
  uint64_t process_dcstart;      /* Process/DCStart of self_pid (any when 0) */
  uint64_t process_dcend;        /* Process/DCEnd, any process */
  uint64_t image_dcstart, ntdll_dcstart; /* Image/DCStart: all; ntdll.dll in self_pid */
  uint64_t busy_samples, busy_with_ext_stack; /* SampledProfile of busy_tid */
  /* The .NET child's CLR events (by the header's process id): Loader
   * (151..157), MethodLoad (141, 143), and the rundown's MethodDCEnd (142, 144). */
  uint64_t dotnet_loader, dotnet_methods, dotnet_dcend;
  struct selftest_times busy_times;  /* their timestamps, when no extended stack */
  uint64_t image_loads, image_loads_identified;
  uint64_t kinds[SELFTEST_KERNEL_KINDS];
  uint64_t kinds_with_ext_stack[SELFTEST_KERNEL_KINDS];
  struct selftest_times times[SELFTEST_KERNEL_KINDS];
  struct selftest_times stack_times; /* EventTimeStamp of StackWalk events */
  uint64_t own_events, own_foreign; /* own provider: as expected; with a Seq out of range */
  uint64_t own_ts[SELFTEST_MAX_OWN + 2];
  unsigned own_count[SELFTEST_MAX_OWN + 2];
  int own_last_named;            /* event N carried own_last_name */
  uint64_t clr_images, clr_runtime_events, clr_rundown_events;
  uint64_t events_lost, buffers_lost; /* logfile headers */
  uint64_t identity_ts[256];     /* per CPU: the last ImageID event's time + 1 */
};

void selftest_facts_init(struct selftest_facts *f, const struct selftest_expect *x);
void selftest_facts_release(struct selftest_facts *f);

/* One event of the trace, in file order. */
void selftest_scan_event(struct selftest_facts *f, const struct etw_event *ev);
/* Losses a logfile header records. */
void selftest_scan_losses(struct selftest_facts *f, uint32_t events_lost, uint32_t buffers_lost);
/* Every ETL in `path` (an .etl or .etl.zip).  0, or ETWCAP_E_* with the
 * reader's message in f->scan_error. */
int selftest_scan_file(struct selftest_facts *f, const char *path);
/* The same over a whole .etl or .zip in memory (tests, fuzzing). */
int selftest_scan_memory(struct selftest_facts *f, const void *data, size_t len);

/* The census of scanned facts (a phase's trace, read with no expectation). */
void selftest_census_of(const struct selftest_facts *f, struct selftest_census *c);
/* Scans `path` into c (c->read 0 and c->name the reader's message when it
 * cannot be read).  0 or ETWCAP_E_*. */
int selftest_census_file(const char *path, struct selftest_census *c);

struct selftest_result {
  enum selftest_verdict verdict;
  char detail[320];
};

struct selftest_check {
  const char *name;
  const char *what;
  void (*judge)(const struct selftest_facts *f, const struct selftest_outcome *o,
                struct selftest_result *r);
};

/* The table, in the order the checks run and print. */
extern const struct selftest_check selftest_checks[];
extern const size_t selftest_check_count;

/* Runs every check, in table order, into results[selftest_check_count]. */
void selftest_judge_all(struct selftest_facts *f, const struct selftest_outcome *o,
                        struct selftest_result *results);

/* The check `name` (case-insensitive), or NULL. */
const struct selftest_check *selftest_check_find(const char *name);

/* "PASS", "FAIL", "SKIP". */
const char *selftest_verdict_name(enum selftest_verdict v);

#endif
