/* The CLR session of the demo (DEMO.etl): Microsoft-Windows-DotNETRuntime
 * events of OrderService.exe (.NET 8) from its start.  Ids, versions,
 * tasks, opcodes, keywords and levels are the <event> rows of
 * dotnet/runtime src/coreclr/vm/ClrEtwAll.man; each payload follows the
 * template named at its builder:
 *   RuntimeInformationStart 187 v0 (RuntimeInformation), AppDomainLoad_V1 156
 *   (AppDomainLoadUnload_V1), AssemblyLoad_V1 154 (AssemblyLoadUnload_V1),
 *   ModuleLoad_V2 152 (ModuleLoadUnload_V2), MethodJittingStarted_V1 145,
 *   MethodLoadVerbose_V2 143 (MethodLoadUnloadVerbose_V2), GCTriggered 35,
 *   GCSuspendEEBegin_V1 9 (GCSuspendEE_V1), GCSuspendEEEnd_V1 8 and
 *   GCRestartEEBegin_V1 7 / GCRestartEEEnd_V1 3 (GCNoUserData), GCStart_V2 1,
 *   GCEnd_V1 2, GCHeapStats_V2 4, GCAllocationTick_V3 10,
 *   GCCreateConcurrentThread_V1 11, ExceptionThrown_V1 80 (Exception),
 *   ContentionStart_V1 81 (Contention), ContentionStop_V1 91,
 *   ThreadPoolWorkerThreadStart 50 (ThreadPoolWorkerThread),
 *   ThreadPoolWorkerThreadAdjustmentSample 54 / Adjustment 55. */
#include "tests/tools/demo_script.h"
#include "tests/tools/demo_tables.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct etw_guid clr_guid = { 0xe13c0d23, 0xccbc, 0x4e12,
                                          { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };

#define CLR_INSTANCE 8u /* what .NET Core runtimes log (the gcevents sample) */

/* Keywords (ClrEtwAll.man <keywords>). */
#define KW_GC 0x1ull
#define KW_LOADER 0x8ull
#define KW_JIT 0x10ull
#define KW_NGEN 0x20ull
#define KW_CONTENTION 0x4000ull
#define KW_EXCEPTION 0x8000ull
#define KW_THREADING 0x10000ull
#define KW_PERFTRACK 0x20000000ull
#define KW_MONITORING 0x200000000ull

/* Levels. */
#define LVL_ERROR 2u
#define LVL_INFO 4u
#define LVL_VERBOSE 5u

/* Tasks. */
#define TASK_GC 1u
#define TASK_EXCEPTION 7u
#define TASK_CONTENTION 8u
#define TASK_METHOD 9u
#define TASK_LOADER 10u
#define TASK_TP_WORKER 16u
#define TASK_TP_ADJUST 18u
#define TASK_RUNTIME_INFO 19u

/* The events, as their manifest rows define them. */
static const struct demo_manifest_event
  ev_gc_start = { &clr_guid, 1, 2, LVL_INFO, 1, TASK_GC, KW_GC },
  ev_gc_end = { &clr_guid, 2, 1, LVL_INFO, 2, TASK_GC, KW_GC },
  ev_restart_end = { &clr_guid, 3, 1, LVL_INFO, 132, TASK_GC, KW_GC },
  ev_heap_stats = { &clr_guid, 4, 2, LVL_INFO, 133, TASK_GC, KW_GC },
  ev_restart_begin = { &clr_guid, 7, 1, LVL_INFO, 136, TASK_GC, KW_GC },
  ev_suspend_end = { &clr_guid, 8, 1, LVL_INFO, 137, TASK_GC, KW_GC },
  ev_suspend_begin = { &clr_guid, 9, 1, LVL_INFO, 10, TASK_GC, KW_GC },
  ev_alloc_tick = { &clr_guid, 10, 3, LVL_VERBOSE, 11, TASK_GC, KW_GC },
  ev_create_bgc_thread = { &clr_guid, 11, 1, LVL_INFO, 12, TASK_GC, KW_GC | KW_THREADING },
  ev_gc_triggered = { &clr_guid, 35, 0, LVL_INFO, 35, TASK_GC, KW_GC },
  ev_tp_worker_start = { &clr_guid, 50, 0, LVL_INFO, 1, TASK_TP_WORKER, KW_THREADING },
  ev_tp_sample = { &clr_guid, 54, 0, LVL_INFO, 100, TASK_TP_ADJUST, KW_THREADING },
  ev_tp_adjust = { &clr_guid, 55, 0, LVL_INFO, 101, TASK_TP_ADJUST, KW_THREADING },
  ev_exception = { &clr_guid, 80, 1, LVL_ERROR, 1, TASK_EXCEPTION, KW_EXCEPTION | KW_MONITORING },
  ev_contention_start = { &clr_guid, 81, 1, LVL_INFO, 1, TASK_CONTENTION, KW_CONTENTION },
  ev_contention_stop = { &clr_guid, 91, 1, LVL_INFO, 2, TASK_CONTENTION, KW_CONTENTION },
  ev_method_load = { &clr_guid, 143, 2, LVL_INFO, 37, TASK_METHOD, KW_JIT | KW_NGEN },
  ev_jitting = { &clr_guid, 145, 1, LVL_VERBOSE, 42, TASK_METHOD, KW_JIT },
  ev_module_load = { &clr_guid, 152, 2, LVL_INFO, 33, TASK_LOADER, KW_LOADER | KW_PERFTRACK },
  ev_assembly_load = { &clr_guid, 154, 1, LVL_INFO, 37, TASK_LOADER, KW_LOADER },
  ev_appdomain_load = { &clr_guid, 156, 1, LVL_INFO, 41, TASK_LOADER, KW_LOADER },
  ev_runtime_info = { &clr_guid, 187, 0, LVL_INFO, 1, TASK_RUNTIME_INFO, 0 };

#define SERVICE_PATH "C:\\Services\\OrderService\\"
#define FX_PATH "C:\\Program Files\\dotnet\\shared\\Microsoft.NETCore.App\\8.0.4\\"
#define APPDOMAIN_ID 0x1F3BFE31A20ull

struct clr {
  struct demo_session *s;
  struct demo_rng rng;
  struct demo_payload p;
  /* Heap sizes the GCHeapStats events report, in bytes. */
  uint64_t gen2, loh;
};

static int emit(struct clr *c, uint32_t t, uint32_t tid, const struct demo_manifest_event *e)
{
  return demo_add_event(c->s, demo_cpu_of(tid), DEMO_RAW(t), DEMO_SERVICE_PID, tid, e, &c->p);
}

/* The thread-pool workers alive at t, in creation order. */
static size_t workers_at(uint32_t t, uint32_t *out, size_t cap)
{
  size_t i, n = 0;
  for (i = 0; i < demo_thread_count && n < cap; i++)
    if (demo_threads[i].pool_worker && demo_threads[i].created_us <= t)
      out[n++] = demo_threads[i].tid;
  return n;
}

static uint32_t worker(uint32_t t, uint32_t k)
{
  uint32_t w[16];
  size_t n = workers_at(t, w, 16);
  return n ? w[k % n] : DEMO_MAIN_TID;
}

/* --- startup: runtime, domain, assemblies ----------------------------------------- */

static int runtime_start(struct clr *c)
{
  struct demo_payload *p = &c->p;
  struct etw_guid none;
  size_t i;
  int rc;
  memset(&none, 0, sizeof(none));
  /* RuntimeInformation */
  dp_init(p);
  dp_u16(p, CLR_INSTANCE); /* ClrInstanceID */
  dp_u16(p, 2);            /* Sku: CoreCLR */
  dp_u16(p, 8);            /* BclMajorVersion */
  dp_u16(p, 0);            /* BclMinorVersion */
  dp_u16(p, 4);            /* BclBuildNumber */
  dp_u16(p, 0);            /* BclQfeNumber */
  dp_u16(p, 8);            /* VMMajorVersion */
  dp_u16(p, 0);            /* VMMinorVersion */
  dp_u16(p, 4);            /* VMBuildNumber */
  dp_u16(p, 0);            /* VMQfeNumber */
  dp_u32(p, 0x1);          /* StartupFlags: CONCURRENT_GC */
  dp_u8(p, 1);             /* StartupMode: ManagedExe */
  dp_utf16z(p, "\"" SERVICE_PATH "OrderService.exe\""); /* CommandLine */
  dp_guid(p, &none);                                    /* ComObjectGuid */
  dp_utf16z(p, FX_PATH "coreclr.dll");                  /* RuntimeDllPath */
  rc = emit(c, 1180000, DEMO_MAIN_TID, &ev_runtime_info);
  /* AppDomainLoadUnload_V1 */
  dp_init(p);
  dp_u64(p, APPDOMAIN_ID); /* AppDomainID */
  dp_u32(p, 0x3);          /* AppDomainFlags: Default | Executable */
  dp_utf16z(p, "clrhost"); /* AppDomainName */
  dp_u32(p, 1);            /* AppDomainIndex */
  dp_u16(p, CLR_INSTANCE);
  if (!rc)
    rc = emit(c, 1190000, DEMO_MAIN_TID, &ev_appdomain_load);
  for (i = 0; i < demo_module_count && !rc; i++) {
    const struct demo_module *m = &demo_modules[i];
    int framework = strncmp(m->path, FX_PATH, strlen(FX_PATH)) == 0;
    struct etw_guid pdb = { 0x6A3C0000u + (uint32_t)i * 0x1111u, 0x4D2E, 0x41B7,
                            { 0x9C, 0x21, 0x5E, 0x80, 0x11, 0x2F, (uint8_t)i, 0x4A } };
    const char *file = strrchr(m->path, '\\') + 1;
    char pdb_path[300];
    size_t n = strlen(file) - 4; /* without ".dll" */
    if (!m->assembly)
      continue;
    if (framework)
      snprintf(pdb_path, sizeof(pdb_path), "/_/artifacts/obj/%.*s/Release/net8.0/%.*s.pdb",
               (int)n, file, (int)n, file);
    else
      snprintf(pdb_path, sizeof(pdb_path), "D:\\a\\1\\s\\src\\%.*s\\obj\\Release\\net8.0\\%.*s.pdb",
               (int)n, file, (int)n, file);
    /* AssemblyLoadUnload_V1 */
    dp_init(p);
    dp_u64(p, 0x1F3C0A10000ull + i * 0x1000u); /* AssemblyID */
    dp_u64(p, APPDOMAIN_ID);                   /* AppDomainID */
    dp_u64(p, 0);                              /* BindingID */
    dp_u32(p, 0);                              /* AssemblyFlags */
    dp_utf16z(p, m->assembly);                 /* FullyQualifiedAssemblyName */
    dp_u16(p, CLR_INSTANCE);
    rc = emit(c, m->at_us + 200, DEMO_MAIN_TID, &ev_assembly_load);
    /* ModuleLoadUnload_V2 */
    dp_init(p);
    dp_u64(p, 0x7FFA1BE00000ull + i * 0x10000u); /* ModuleID */
    dp_u64(p, 0x1F3C0A10000ull + i * 0x1000u);   /* AssemblyID */
    dp_u32(p, framework ? 0x28 : 0x8);           /* ModuleFlags: Manifest (+ ReadyToRun) */
    dp_u32(p, 0);                                /* Reserved1 */
    dp_utf16z(p, m->path);                       /* ModuleILPath */
    dp_utf16z(p, "");                            /* ModuleNativePath */
    dp_u16(p, CLR_INSTANCE);
    dp_guid(p, &pdb);     /* ManagedPdbSignature */
    dp_u32(p, 1);         /* ManagedPdbAge */
    dp_utf16z(p, pdb_path); /* ManagedPdbBuildPath */
    dp_guid(p, &none);    /* NativePdbSignature */
    dp_u32(p, 0);         /* NativePdbAge */
    dp_utf16z(p, "");     /* NativePdbBuildPath */
    if (!rc)
      rc = emit(c, m->at_us + 230, DEMO_MAIN_TID, &ev_module_load);
  }
  return rc;
}

/* --- JIT ---------------------------------------------------------------------------- */

static const char *const jit_types[] = {
  "OrderService.Worker", "OrderService.OrderPipeline", "OrderService.Inventory.InventoryClient",
  "OrderService.Inventory.StockLevel", "Microsoft.Extensions.Hosting.Internal.Host",
  "System.Net.Http.HttpClient", "System.Net.Http.SocketsHttpHandler",
  "System.Text.Json.JsonSerializer", "Polly.ResiliencePipeline",
  "System.Collections.Concurrent.ConcurrentDictionary`2[System.__Canon,System.__Canon]",
};
static const char *const jit_names[] = {
  "ExecuteAsync", "ProcessBatchAsync", "GetStockAsync", "SendAsync", "Deserialize",
  "TryGetValue", "MoveNext", ".ctor", "StartAsync", "ExecuteCoreAsync", "get_Quantity",
  "ReserveAsync",
};
#define JIT_TYPES (sizeof(jit_types) / sizeof(jit_types[0]))
#define JIT_NAMES (sizeof(jit_names) / sizeof(jit_names[0]))

static int jit_method(struct clr *c, uint32_t t, uint32_t tid, uint32_t m, uint32_t flags,
                      uint64_t code)
{
  struct demo_payload *p = &c->p;
  const char *ns = jit_types[m % JIT_TYPES], *name = jit_names[(m / JIT_TYPES) % JIT_NAMES];
  const char *sig = "instance class System.Threading.Tasks.Task (value class "
                    "System.Threading.CancellationToken)";
  uint64_t method_id = 0x7FFA1C2A0000ull + m * 0x28u, module = 0x7FFA1BE00000ull +
                                                             (m % 24u) * 0x10000u;
  uint32_t il = 24 + demo_rng_below(&c->rng, 900);
  int rc;
  /* MethodJittingStarted_V1 */
  dp_init(p);
  dp_u64(p, method_id);     /* MethodID */
  dp_u64(p, module);        /* ModuleID */
  dp_u32(p, 0x06000000u + m); /* MethodToken */
  dp_u32(p, il);            /* MethodILSize */
  dp_utf16z(p, ns);         /* MethodNamespace */
  dp_utf16z(p, name);       /* MethodName */
  dp_utf16z(p, sig);        /* MethodSignature */
  dp_u16(p, CLR_INSTANCE);
  rc = emit(c, t, tid, &ev_jitting);
  /* MethodLoadUnloadVerbose_V2 */
  dp_init(p);
  dp_u64(p, method_id);          /* MethodID */
  dp_u64(p, module);             /* ModuleID */
  dp_u64(p, code);               /* MethodStartAddress */
  dp_u32(p, 0x40 + il / 2);      /* MethodSize */
  dp_u32(p, 0x06000000u + m);    /* MethodToken */
  dp_u32(p, flags);              /* MethodFlags */
  dp_utf16z(p, ns);
  dp_utf16z(p, name);
  dp_utf16z(p, sig);
  dp_u16(p, CLR_INSTANCE);
  dp_u64(p, 0);                  /* ReJITID */
  if (!rc)
    rc = emit(c, t + 250 + demo_rng_below(&c->rng, 2000), tid, &ev_method_load);
  return rc;
}

static int jit(struct clr *c)
{
  uint32_t i, t;
  int rc = 0;
  /* MethodFlags: Jitted (0x8) and the optimization tier in bits 7-9
   * (QuickJitted = 3, OptimizedTier1 = 4). */
  for (i = 0; i < DEMO_JIT_STARTUP && !rc; i++)
    rc = jit_method(c, DEMO_JIT_STARTUP_US + i * DEMO_JIT_STARTUP_STEP_US, DEMO_MAIN_TID, i,
                    0x8 | 3u << 7, 0x7FFA1C500000ull + i * 0x180u);
  for (i = 0, t = DEMO_TIER1_START_US; t < DEMO_TIER1_END_US && !rc; t += DEMO_TIER1_STEP_US, i++)
    rc = jit_method(c, t, DEMO_TIERED_TID, (i * 7u) % DEMO_JIT_STARTUP, 0x8 | 4u << 7,
                    0x7FFA1C800000ull + i * 0x400u);
  return rc;
}

/* --- the thread pool ------------------------------------------------------------------ */

static int tp_adjust(struct clr *c, uint32_t t, uint32_t count, uint32_t reason, double avg)
{
  /* ThreadPoolWorkerThreadAdjustmentAdjustment */
  dp_init(&c->p);
  dp_f64(&c->p, avg);    /* AverageThroughput */
  dp_u32(&c->p, count);  /* NewWorkerThreadCount */
  dp_u32(&c->p, reason); /* Reason (3 ClimbingMove, 6 Starvation) */
  dp_u16(&c->p, CLR_INSTANCE);
  return emit(c, t, DEMO_TIMER_TID, &ev_tp_adjust);
}

static int thread_pool(struct clr *c)
{
  uint32_t w[16], t, active = 0;
  size_t i;
  int rc = 0;
  for (i = 0; i < demo_thread_count && !rc; i++) {
    const struct demo_thread *th = &demo_threads[i];
    if (!th->pool_worker)
      continue;
    active++;
    if (th->created_us >= DEMO_SURGE_START_US)
      rc = tp_adjust(c, th->created_us - 100, active, 6, 38.5);
    /* ThreadPoolWorkerThread */
    dp_init(&c->p);
    dp_u32(&c->p, active); /* ActiveWorkerThreadCount */
    dp_u32(&c->p, 0);      /* RetiredWorkerThreadCount */
    dp_u16(&c->p, CLR_INSTANCE);
    if (!rc)
      rc = emit(c, th->created_us + 50, th->tid, &ev_tp_worker_start);
  }
  for (t = 10000000; t <= 50000000 && !rc; t += 10000000)
    rc = tp_adjust(c, t + 250000, (uint32_t)workers_at(t, w, 16), 3, 176.0);
  for (t = DEMO_TP_SAMPLE_START_US; t < DEMO_RUN_US && !rc; t += DEMO_TP_SAMPLE_STEP_US) {
    if (demo_in_blackout(t))
      continue; /* the managed hill climbing is suspended with everything else */
    /* ThreadPoolWorkerThreadAdjustmentSample */
    dp_init(&c->p);
    dp_f64(&c->p, (demo_in_surge(t) ? 35.0 : 170.0) + demo_rng_below(&c->rng, 2000) / 100.0);
    dp_u16(&c->p, CLR_INSTANCE);
    rc = emit(c, t, DEMO_TIMER_TID, &ev_tp_sample);
  }
  return rc;
}

/* --- GC --------------------------------------------------------------------------------- */

enum gc_kind { GC_EPHEMERAL, GC_BACKGROUND, GC_BLOCKING_GEN2 };

struct gc {
  uint32_t t;
  enum gc_kind kind;
  uint32_t depth, type, reason, tid, len;
};

static int gc_by_time(const void *a, const void *b)
{
  const struct gc *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

static int in_bgc(uint32_t t)
{
  return (t > DEMO_BGC1_US && t < DEMO_BGC1_US + DEMO_BGC1_LEN_US) ||
         (t > DEMO_BGC2_US && t < DEMO_BGC2_US + DEMO_BGC2_LEN_US);
}

/* Every GC of the run, in time order; *count gets how many. */
static struct gc *gc_schedule(struct clr *c, size_t *count)
{
  size_t cap = 400, n = 0;
  struct gc *g = etwcap_calloc(cap, sizeof(*g));
  uint32_t t, k = 0;
  if (!g)
    return NULL;
  for (t = DEMO_GC_GRID_START_US; t < DEMO_GC_GRID_END_US && n + 3 < cap;
       t = demo_grid_next(t, DEMO_GC_STEP_US, DEMO_GC_SURGE_STEP_US)) {
    if (demo_in_blackout(t))
      continue;
    g[n].t = t + demo_rng_below(&c->rng, 60000);
    g[n].kind = GC_EPHEMERAL;
    g[n].depth = k % 8 == 7 ? 1 : 0;
    g[n].type = in_bgc(g[n].t) ? 2 : 0; /* ForegroundGC during a background GC */
    g[n].reason = 0;                    /* AllocSmall */
    g[n].tid = worker(g[n].t, k);
    g[n].len = g[n].depth ? 5000 + demo_rng_below(&c->rng, 13000)
                          : 1500 + demo_rng_below(&c->rng, 4500);
    n++;
    k++;
  }
  g[n++] = (struct gc){ DEMO_BGC1_US, GC_BACKGROUND, 2, 1, 0, 6436, DEMO_BGC1_LEN_US };
  g[n++] = (struct gc){ DEMO_BGC2_US, GC_BACKGROUND, 2, 1, 0, 6436, DEMO_BGC2_LEN_US };
  g[n++] = (struct gc){ DEMO_LONG_GC_TRIGGER_US, GC_BLOCKING_GEN2, 2, 0, 4 /* AllocLarge */,
                        DEMO_LONG_GC_TID, DEMO_LONG_GC_END_US - DEMO_LONG_GC_START_US };
  qsort(g, n, sizeof(*g), gc_by_time);
  *count = n;
  return g;
}

static int triggered(struct clr *c, uint32_t t, uint32_t tid, uint32_t reason)
{
  /* GCTriggered */
  dp_init(&c->p);
  dp_u32(&c->p, reason); /* Reason */
  dp_u16(&c->p, CLR_INSTANCE);
  return emit(c, t, tid, &ev_gc_triggered);
}

static int suspend(struct clr *c, uint32_t t, uint32_t until, uint32_t tid, uint32_t reason,
                   uint32_t count)
{
  int rc;
  /* GCSuspendEE_V1 */
  dp_init(&c->p);
  dp_u32(&c->p, reason); /* Reason: 1 SuspendForGC, 6 SuspendForGCPrep */
  dp_u32(&c->p, count);  /* Count */
  dp_u16(&c->p, CLR_INSTANCE);
  rc = emit(c, t, tid, &ev_suspend_begin);
  /* GCNoUserData */
  dp_init(&c->p);
  dp_u16(&c->p, CLR_INSTANCE);
  return rc ? rc : emit(c, until, tid, &ev_suspend_end);
}

static int restart(struct clr *c, uint32_t t, uint32_t until, uint32_t tid)
{
  int rc;
  dp_init(&c->p); /* GCNoUserData, both */
  dp_u16(&c->p, CLR_INSTANCE);
  rc = emit(c, t, tid, &ev_restart_begin);
  return rc ? rc : emit(c, until, tid, &ev_restart_end);
}

static int gc_start(struct clr *c, uint32_t t, const struct gc *g, uint32_t count)
{
  /* GCStart_V2 */
  dp_init(&c->p);
  dp_u32(&c->p, count);    /* Count */
  dp_u32(&c->p, g->depth); /* Depth */
  dp_u32(&c->p, g->reason); /* Reason */
  dp_u32(&c->p, g->type);  /* Type: 0 NonConcurrent, 1 Background, 2 Foreground */
  dp_u16(&c->p, CLR_INSTANCE);
  dp_u64(&c->p, 0);        /* ClientSequenceNumber */
  return emit(c, t, g->tid, &ev_gc_start);
}

static int gc_end(struct clr *c, uint32_t t, uint32_t tid, uint32_t count, uint32_t depth)
{
  uint64_t gen0 = 180000 + demo_rng_below(&c->rng, 900000);
  int rc;
  /* GCEnd_V1 */
  dp_init(&c->p);
  dp_u32(&c->p, count); /* Count */
  dp_u32(&c->p, depth); /* Depth */
  dp_u16(&c->p, CLR_INSTANCE);
  rc = emit(c, t, tid, &ev_gc_end);
  /* GCHeapStats_V2 */
  dp_init(&c->p);
  dp_u64(&c->p, gen0);                        /* GenerationSize0 */
  dp_u64(&c->p, gen0 / 3);                    /* TotalPromotedSize0 */
  dp_u64(&c->p, 2400000 + gen0 * 2);          /* GenerationSize1 */
  dp_u64(&c->p, depth >= 1 ? 1100000 : 0);    /* TotalPromotedSize1 */
  dp_u64(&c->p, c->gen2);                     /* GenerationSize2 */
  dp_u64(&c->p, depth >= 2 ? c->gen2 : 0);    /* TotalPromotedSize2 */
  dp_u64(&c->p, c->loh);                      /* GenerationSize3 (LOH) */
  dp_u64(&c->p, depth >= 2 ? c->loh : 0);     /* TotalPromotedSize3 */
  dp_u64(&c->p, 4096);                        /* FinalizationPromotedSize */
  dp_u64(&c->p, 17);                          /* FinalizationPromotedCount */
  dp_u32(&c->p, 3 + demo_rng_below(&c->rng, 9)); /* PinnedObjectCount */
  dp_u32(&c->p, 41);                          /* SinkBlockCount */
  dp_u32(&c->p, 2230);                        /* GCHandleCount */
  dp_u16(&c->p, CLR_INSTANCE);
  dp_u64(&c->p, 1048576);                     /* GenerationSize4 (POH) */
  dp_u64(&c->p, depth >= 2 ? 1048576 : 0);    /* TotalPromotedSize4 */
  return rc ? rc : emit(c, t + 10, tid, &ev_heap_stats);
}

static const char *const tick_types[] = {
  "System.String", "System.Byte[]", "OrderService.Inventory.StockLevel",
  "System.Text.Json.JsonDocument+MetadataDb", "System.Threading.Tasks.Task`1[System.Int32]",
};

static int alloc_tick(struct clr *c, uint32_t t, uint32_t tid, int large, uint32_t amount)
{
  const char *type = large ? "System.Byte[]" : tick_types[demo_rng_below(&c->rng, 5)];
  /* GCAllocationTick_V3 */
  dp_init(&c->p);
  dp_u32(&c->p, amount);                /* AllocationAmount */
  dp_u32(&c->p, large ? 1 : 0);         /* AllocationKind: Small / Large */
  dp_u16(&c->p, CLR_INSTANCE);
  dp_u64(&c->p, amount);                /* AllocationAmount64 */
  dp_u64(&c->p, 0x7FFA1C1F4E60ull + (uint64_t)(type[7] & 0x1F) * 0x1C0u); /* TypeID */
  dp_utf16z(&c->p, type);               /* TypeName */
  dp_u32(&c->p, 0);                     /* HeapIndex */
  dp_u64(&c->p, (large ? 0x1F3D0000000ull : 0x1F3C8000000ull) +
                  demo_rng_below(&c->rng, 0x4000000)); /* Address */
  return emit(c, t, tid, &ev_alloc_tick);
}

static int ephemeral(struct clr *c, const struct gc *g, uint32_t count, uint32_t since)
{
  uint32_t j, susp = 40 + demo_rng_below(&c->rng, 360), t = g->t;
  int rc = 0;
  /* The 4 MB of allocations that used up the gen0 budget, from many threads. */
  for (j = 0; j < DEMO_ALLOC_TICKS_PER_GC && !rc; j++) {
    uint32_t at = since + (uint32_t)((uint64_t)(t - since) * (j + 1) / (DEMO_ALLOC_TICKS_PER_GC + 1));
    int large = demo_in_surge(at) && j % 5 == 4; /* buffered retry responses */
    rc = alloc_tick(c, at, worker(at, j), large, large ? 85000 + demo_rng_below(&c->rng, 400000)
                                                       : 102400 + demo_rng_below(&c->rng, 4000));
  }
  if (!rc)
    rc = triggered(c, t, g->tid, g->reason);
  if (!rc)
    rc = suspend(c, t + 5, t + 5 + susp, g->tid, 1, count);
  t += 25 + susp;
  if (!rc)
    rc = gc_start(c, t, g, count);
  c->gen2 += g->depth ? (demo_in_surge(t) ? 6000000 : 1200000) : 0;
  c->loh += demo_in_surge(t) ? 9000000 : 400000;
  if (!rc)
    rc = gc_end(c, t + g->len, g->tid, count, g->depth);
  t += g->len + 40;
  return rc ? rc : restart(c, t, t + 200, g->tid);
}

static int background(struct clr *c, const struct gc *g, uint32_t count, int first)
{
  uint32_t t = g->t, end = g->t + g->len;
  int rc = triggered(c, t, g->tid, g->reason);
  /* The initial pause on the allocating thread, then the concurrent mark on
   * the background GC thread and its final pause. */
  if (!rc)
    rc = suspend(c, t + 5, t + 155, g->tid, 6, count);
  if (!rc)
    rc = gc_start(c, t + 175, g, count);
  if (!rc && first) {
    dp_init(&c->p); /* GCCreateConcurrentThread */
    dp_u16(&c->p, CLR_INSTANCE);
    rc = emit(c, t + 190, g->tid, &ev_create_bgc_thread);
  }
  if (!rc)
    rc = restart(c, t + 900, t + 1100, g->tid);
  if (!rc)
    rc = suspend(c, end - 4000, end - 3880, DEMO_BGC_TID, 6, count);
  if (!rc)
    rc = restart(c, end - 400, end - 200, DEMO_BGC_TID);
  c->gen2 = c->gen2 * 7 / 10;
  return rc ? rc : gc_end(c, end, DEMO_BGC_TID, count, 2);
}

static int blocking_gen2(struct clr *c, const struct gc *g, uint32_t count)
{
  /* A 4 MB buffer for a retried response tips the LOH budget. */
  int rc = alloc_tick(c, DEMO_LONG_GC_TRIGGER_US - 50, g->tid, 1, 4194328);
  if (!rc)
    rc = triggered(c, DEMO_LONG_GC_TRIGGER_US, g->tid, g->reason);
  if (!rc) /* one worker spins in a loop for 310 ms before it can be suspended */
    rc = suspend(c, DEMO_LONG_GC_SUSPEND_US, DEMO_LONG_GC_SUSPENDED_US, g->tid, 1, count);
  if (!rc)
    rc = gc_start(c, DEMO_LONG_GC_START_US, g, count);
  c->gen2 = 41000000;
  c->loh = 12500000;
  if (!rc)
    rc = gc_end(c, DEMO_LONG_GC_END_US, g->tid, count, 2);
  return rc ? rc : restart(c, DEMO_LONG_GC_RESTART_US, DEMO_LONG_GC_RESTARTED_US, g->tid);
}

static int gcs(struct clr *c)
{
  size_t n, i;
  uint32_t since = 1600000; /* the workers start allocating */
  int rc = 0, first_bgc = 1;
  struct gc *g = gc_schedule(c, &n);
  if (!g)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < n && !rc; i++) {
    uint32_t count = (uint32_t)i + 1; /* the service's GCs, counted from its start */
    switch (g[i].kind) {
    case GC_EPHEMERAL:
      rc = ephemeral(c, &g[i], count, since);
      since = g[i].t + g[i].len + 300;
      break;
    case GC_BACKGROUND:
      rc = background(c, &g[i], count, first_bgc);
      first_bgc = 0;
      break;
    case GC_BLOCKING_GEN2:
      rc = blocking_gen2(c, &g[i], count);
      since = DEMO_LONG_GC_RESTARTED_US;
      break;
    }
  }
  etwcap_free(g);
  return rc;
}

/* --- exceptions ---------------------------------------------------------------------------- */

static const struct {
  uint32_t t;
  const char *type, *message;
  uint32_t hresult;
  uint16_t flags; /* 0x1 HasInnerException, 0x10 CLSCompliant */
} ordinary_exceptions[] = {
  { 6200000, "System.Threading.Tasks.TaskCanceledException", "A task was canceled.",
    0x8013153B, 0x10 },
  { 12900000, "System.TimeoutException", "The operation has timed out.", 0x80131505, 0x10 },
  { 21450000, "System.Threading.Tasks.TaskCanceledException",
    "The request was canceled due to the configured HttpClient.Timeout of 10 seconds elapsing.",
    0x8013153B, 0x11 },
  { 29800000, "System.OperationCanceledException", "The operation was canceled.", 0x8013153B,
    0x10 },
  { 36100000, "System.TimeoutException", "The operation has timed out.", 0x80131505, 0x10 },
  { 39750000, "System.Threading.Tasks.TaskCanceledException", "A task was canceled.", 0x8013153B,
    0x10 },
  { 52000000, "System.Threading.Tasks.TaskCanceledException", "A task was canceled.", 0x8013153B,
    0x10 },
  { 57300000, "System.TimeoutException", "The operation has timed out.", 0x80131505, 0x10 },
};

static int exception(struct clr *c, uint32_t t, uint32_t tid, const char *type, const char *msg,
                     uint32_t hresult, uint16_t flags)
{
  /* Exception */
  dp_init(&c->p);
  dp_utf16z(&c->p, type);                                   /* ExceptionType */
  dp_utf16z(&c->p, msg);                                    /* ExceptionMessage */
  dp_u64(&c->p, 0x7FFB1B1C4E10ull + demo_rng_below(&c->rng, 0x200)); /* ExceptionEIP */
  dp_u32(&c->p, hresult);                                   /* ExceptionHRESULT */
  dp_u16(&c->p, flags);                                     /* ExceptionFlags */
  dp_u16(&c->p, CLR_INSTANCE);
  return emit(c, t, tid, &ev_exception);
}

static int exceptions(struct clr *c)
{
  size_t i;
  uint32_t k;
  int rc = 0;
  for (i = 0; i < sizeof(ordinary_exceptions) / sizeof(ordinary_exceptions[0]) && !rc; i++)
    rc = exception(c, ordinary_exceptions[i].t, worker(ordinary_exceptions[i].t, (uint32_t)i),
                   ordinary_exceptions[i].type, ordinary_exceptions[i].message,
                   ordinary_exceptions[i].hresult, ordinary_exceptions[i].flags);
  /* The symptom: inventory.internal refuses connections.  Each request
   * fails first in the socket layer, then as the HttpRequestException that
   * wraps it; the first one is exactly at the surge's start. */
  for (k = 0; k < DEMO_HTTP_SLOTS && !rc; k++) {
    uint32_t nominal = DEMO_SURGE_START_US + k * DEMO_HTTP_STEP_US;
    uint32_t t = nominal + (k ? demo_rng_below(&c->rng, 20000) : 0), tid = worker(t, k);
    if (demo_in_blackout(nominal))
      continue;
    rc = exception(c, t - 300, tid, "System.Net.Sockets.SocketException",
                   "No connection could be made because the target machine actively refused it.",
                   0x80004005, 0x10);
    if (!rc)
      rc = exception(c, t, tid, "System.Net.Http.HttpRequestException",
                     "No connection could be made because the target machine actively refused "
                     "it. (inventory.internal:443)",
                     0x80131500, 0x11);
  }
  return rc;
}

/* --- lock contention -------------------------------------------------------------------------- */

static int contention(struct clr *c)
{
  uint32_t t, k = 0;
  int rc = 0;
  for (t = DEMO_CONT_START_US; t < DEMO_CONT_END_US && !rc;
       t = demo_grid_next(t, DEMO_CONT_STEP_US, DEMO_CONT_SURGE_STEP_US)) {
    uint32_t tid, at, ns;
    if (demo_in_blackout(t))
      continue;
    tid = worker(t, k++);
    at = t + demo_rng_below(&c->rng, 1000);
    ns = demo_in_surge(t) ? 2000000 + demo_rng_below(&c->rng, 28000000)
                          : 20000 + demo_rng_below(&c->rng, 180000);
    /* Contention (start, V1) */
    dp_init(&c->p);
    dp_u8(&c->p, 0); /* ContentionFlags: managed */
    dp_u16(&c->p, CLR_INSTANCE);
    rc = emit(c, at, tid, &ev_contention_start);
    /* ContentionStop_V1 */
    dp_init(&c->p);
    dp_u8(&c->p, 0);
    dp_u16(&c->p, CLR_INSTANCE);
    dp_f64(&c->p, (double)ns); /* DurationNs */
    if (!rc)
      rc = emit(c, at + ns / 1000, tid, &ev_contention_stop);
  }
  return rc;
}

int demo_script_clr(struct demo_session *s)
{
  struct clr c;
  int rc;
  memset(&c, 0, sizeof(c));
  c.s = s;
  demo_rng_init(&c.rng, 0xC1A55EEDull);
  c.gen2 = 38000000;
  c.loh = 8000000;
  rc = runtime_start(&c);
  if (!rc)
    rc = jit(&c);
  if (!rc)
    rc = thread_pool(&c);
  if (!rc)
    rc = gcs(&c);
  if (!rc)
    rc = exceptions(&c);
  if (!rc)
    rc = contention(&c);
  return rc;
}
