/* The run the demo collection depicts (demo_kernel.c and demo_clr.c tell
 * it, demo_tables.c holds the templates): its fixed constants, shared with make_demo_trace's
 * --describe and mirrored by tests/e2e/test_demo_trace.py, and the two
 * functions that add the kernel and the CLR sessions' events. */
#ifndef ETWCAP_DEMO_SCRIPT_H
#define ETWCAP_DEMO_SCRIPT_H

#include "tests/tools/demo_events.h"

#include <stdint.h>

/* Clock: QPC at 10 MHz, so a raw tick is 100 ns and FILETIME = raw + boot. */
#define DEMO_PERF_FREQ 10000000ll
#define DEMO_QPC_BASE 1234500000000ull        /* raw ticks when the kernel session starts */
#define DEMO_START_FILETIME 133601526000000000ll /* 2024-05-14T09:30:00Z */
#define DEMO_USER_START_US 2500u               /* the CLR session starts 2.5 ms later */
#define DEMO_RUN_US 60000000u                  /* 60 s of run */
#define DEMO_CPUS 4u

/* Times are microseconds after the kernel session's start. */
#define DEMO_RAW(us) (DEMO_QPC_BASE + 10ull * (uint64_t)(us))

#define DEMO_SERVICE_PID 6412u
#define DEMO_SURGE_START_US 42000000u   /* inventory.internal starts refusing connections */
#define DEMO_SURGE_END_US 48000000u     /* ... and is back */
#define DEMO_BLACKOUT_START_US 44300000u /* nothing is scheduled on the grids here: */
#define DEMO_BLACKOUT_END_US 45900000u   /* the long blocking gen2 owns the process */

/* The long blocking gen2 (Reason AllocLarge): triggered, then 310 ms to
 * suspend the runtime, 870 ms of GC, then the restart. */
#define DEMO_LONG_GC_TRIGGER_US 44500000u
#define DEMO_LONG_GC_SUSPEND_US 44500010u
#define DEMO_LONG_GC_SUSPENDED_US 44810010u
#define DEMO_LONG_GC_START_US 44810030u
#define DEMO_LONG_GC_END_US 45680030u
#define DEMO_LONG_GC_RESTART_US 45680060u
#define DEMO_LONG_GC_RESTARTED_US 45680300u

/* The first System.Net.Http.HttpRequestException: the symptom's instant. */
#define DEMO_FIRST_HTTP_EXCEPTION_US DEMO_SURGE_START_US

int demo_script_kernel(struct demo_session *s);
int demo_script_clr(struct demo_session *s);

#endif
