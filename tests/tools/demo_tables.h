/* What both sessions of the demo share: the service's threads and modules,
 * the schedule grids, the seeded random numbers (demo_tables.c).  The
 * tables are the script: tests/e2e/test_demo_trace.py mirrors them. */
#ifndef ETWCAP_DEMO_TABLES_H
#define ETWCAP_DEMO_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64 from a fixed seed: the same run on every machine. */
struct demo_rng {
  uint64_t state;
};

void demo_rng_init(struct demo_rng *r, uint64_t seed);
uint64_t demo_rng_next(struct demo_rng *r);
/* Uniform in [0, n). */
uint32_t demo_rng_below(struct demo_rng *r, uint32_t n);

/* Every thread runs on CPU (tid / 4) % 4 (Windows thread ids are multiples
 * of 4), so a thread's events stay on one CPU's buffers. */
uint16_t demo_cpu_of(uint32_t tid);

/* The service's threads in the order the runtime creates them. */
struct demo_thread {
  uint32_t tid;
  uint32_t created_us;
  uint32_t creator_tid; /* header thread of the kernel Thread/Start */
  int pool_worker;      /* 1 for thread-pool workers (ThreadPoolWorkerThread/Start) */
  const char *role;
};
extern const struct demo_thread demo_threads[];
extern const size_t demo_thread_count;

#define DEMO_MAIN_TID 6416u
#define DEMO_TIMER_TID 6428u  /* the thread-pool gate / timer thread */
#define DEMO_TIERED_TID 6424u /* tiered compilation's background worker */
#define DEMO_BGC_TID 6448u
#define DEMO_LONG_GC_TID 6444u /* the worker whose LOH allocation triggers the gen2 */
#define DEMO_STUCK_TID 6440u   /* the worker the runtime waits 310 ms to suspend */

/* Images the service maps.  `assembly` is NULL for native modules; managed
 * ones are loaded by the CLR loader as well (AssemblyLoad + ModuleLoad). */
struct demo_module {
  const char *path;
  const char *assembly; /* fully qualified name, or NULL */
  uint32_t size;
  uint32_t at_us;       /* kernel Image/Load time */
};
extern const struct demo_module demo_modules[];
extern const size_t demo_module_count;

/* The schedule grids: from `t`, the next point (normal step outside the
 * surge, surge step inside it).  Grid points in the blackout are skipped by
 * the callers, never moved. */
uint32_t demo_grid_next(uint32_t t, uint32_t normal_step, uint32_t surge_step);
int demo_in_blackout(uint32_t t);
int demo_in_surge(uint32_t t);

/* The GC grid: ephemeral GCs from 2.0 s every 400 ms (200 ms in the surge),
 * the 8th of each eight a gen1, until 59.8 s. */
#define DEMO_GC_GRID_START_US 2000000u
#define DEMO_GC_GRID_END_US 59800000u
#define DEMO_GC_STEP_US 400000u
#define DEMO_GC_SURGE_STEP_US 200000u
/* Two background gen2s (concurrent, so no trigger counts their length). */
#define DEMO_BGC1_US 15310000u
#define DEMO_BGC1_LEN_US 186000u
#define DEMO_BGC2_US 33770000u
#define DEMO_BGC2_LEN_US 243000u
#define DEMO_ALLOC_TICKS_PER_GC 40u /* one per 100 KB of a 4 MB gen0 budget */

/* Contention: one lock wait a second, every 100 ms in the surge. */
#define DEMO_CONT_START_US 3000000u
#define DEMO_CONT_END_US 59800000u
#define DEMO_CONT_STEP_US 1000000u
#define DEMO_CONT_SURGE_STEP_US 100000u

/* The HttpRequestException burst: 120 slots 50 ms apart from the surge's
 * start, the ones in the blackout not thrown; each one follows its
 * SocketException by 300 us on the same thread. */
#define DEMO_HTTP_SLOTS 120u
#define DEMO_HTTP_STEP_US 50000u

/* JIT: 600 methods at startup, then a tier-1 rejit every 250 ms. */
#define DEMO_JIT_STARTUP 600u
#define DEMO_JIT_STARTUP_US 1300000u
#define DEMO_JIT_STARTUP_STEP_US 4000u
#define DEMO_TIER1_START_US 4000000u
#define DEMO_TIER1_END_US 59800000u
#define DEMO_TIER1_STEP_US 250000u

/* Thread-pool hill climbing: a sample every 500 ms from 2 s. */
#define DEMO_TP_SAMPLE_START_US 2000000u
#define DEMO_TP_SAMPLE_STEP_US 500000u

#endif
