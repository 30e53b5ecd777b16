/* The selftest's checks over a trace (see selftest_checks.h).  Event
 * identities are the kernel's classic hooks (group << 8 | opcode, from the
 * MOF classes TraceEvent's KernelTraceEventParser decodes): Process 3
 * (Start 1, End 2), Thread 5 (CSwitch 36, ReadyThread 50), PerfInfo 15
 * (SampledProfile 46), Image/Load 0x030A (image_identity.h), StackWalk 24 (Stack
 * 32; StackKeyKernel 37 and StackKeyUser 38 with /StackCompression).  A
 * StackWalk event names the event it belongs to by its EventTimeStamp
 * (its first field) — TraceEvent pairs them the same way. */
#include "src/selftest/selftest_checks.h"

#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_source.h"
#include "etw/event/builtin_events.h"
#include "etw/event/tracelogging.h"
#include "etw/image/image_identity.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_PROCESS 3
#define GROUP_THREAD 5
#define GROUP_PERFINFO 15
#define GROUP_STACKWALK 24
#define OP_PROCESS_START 1
#define OP_PROCESS_END 2
#define OP_PROCESS_DCSTART 3
#define OP_PROCESS_DCEND 4
#define OP_CSWITCH 36
#define OP_READY_THREAD 50
#define OP_SAMPLED_PROFILE 46
#define OP_STACK 32
#define OP_STACK_KEY_KERNEL 37
#define OP_STACK_KEY_USER 38
/* Event ids of the CLR runtime provider: MethodLoad, MethodLoadVerbose,
 * and Loader's DomainModuleLoad (151) .. AppDomainUnload (157); of the
 * rundown provider: MethodDCEnd, MethodDCEndVerbose. */
#define CLR_METHOD_LOAD 141
#define CLR_METHOD_LOAD_VERBOSE 143
#define CLR_LOADER_FIRST 151
#define CLR_LOADER_LAST 157
#define CLR_RUNDOWN_METHOD_DCEND 142
#define CLR_RUNDOWN_METHOD_DCEND_VERBOSE 144

/* Classic kernel events that came with their MOF class GUID instead of a
 * system header (a real-time or FULL header copy): the group they belong
 * to.  GUIDs from evntrace.h (ProcessGuid, ThreadGuid, PerfInfoGuid,
 * StackWalkGuid). */
static const struct {
  struct etw_guid guid;
  uint8_t group;
} class_groups[] = {
  { { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, 3 },
  { { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }, 5 },
  { { 0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } }, 15 },
  { { 0xdef2fe46, 0x7bd6, 0x4b80, { 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } }, 24 },
};

/* The images a .NET process loads: the runtime of .NET Framework 4
 * (clr.dll), 2 (mscorwks.dll) and .NET Core (coreclr.dll). */
static const char *const clr_images[] = { "clr.dll", "coreclr.dll", "mscorwks.dll" };

void selftest_facts_init(struct selftest_facts *f, const struct selftest_expect *x)
{
  memset(f, 0, sizeof(*f));
  if (x)
    f->expect = *x;
}

void selftest_facts_release(struct selftest_facts *f)
{
  size_t k;
  for (k = 0; k < SELFTEST_KERNEL_KINDS; k++)
    etwcap_free(f->times[k].ts);
  etwcap_free(f->stack_times.ts);
  etwcap_free(f->busy_times.ts);
  memset(f->times, 0, sizeof(f->times));
  memset(&f->stack_times, 0, sizeof(f->stack_times));
  memset(&f->busy_times, 0, sizeof(f->busy_times));
}

static void keep_time(struct selftest_times *t, uint64_t ts)
{
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 1024;
    uint64_t *grown;
    if (cap > SELFTEST_MAX_TIMES)
      return; /* enough to judge by */
    grown = etwcap_reallocarray(t->ts, cap, sizeof(*grown));
    if (!grown)
      return;
    t->ts = grown;
    t->cap = cap;
  }
  t->ts[t->count++] = ts;
}

/* The classic kernel group of ev, or -1. */
static int kernel_group(const struct etw_event *ev)
{
  size_t i;
  if (ev->is_kernel)
    return ev->group;
  if (!(ev->has & ETW_HAS_PROVIDER) || (ev->has & ETW_HAS_DESCRIPTOR))
    return -1;
  for (i = 0; i < sizeof(class_groups) / sizeof(class_groups[0]); i++)
    if (guid_equal(&ev->provider, &class_groups[i].guid))
      return class_groups[i].group;
  return -1;
}

static int has_ext_stack(const struct etw_event *ev)
{
  unsigned i;
  for (i = 0; i < ev->ext_count; i++)
    if (ev->ext[i].type == ETW_EXT_STACK_TRACE32 || ev->ext[i].type == ETW_EXT_STACK_TRACE64)
      return 1;
  return 0;
}

/* Process_V1..V4: UniqueProcessKey (a pointer), then ProcessId. */
static uint32_t process_id(const struct etw_event *ev)
{
  unsigned p = ev->pointer_size == 4 ? 4 : 8;
  if (ev->version >= 1 && ev->user_data && ev->user_len >= p + 4)
    return etl_le32(ev->user_data + p);
  return ev->pid;
}

/* PerfInfo SampledProfile: InstructionPointer (a pointer), ThreadId. */
static void scan_busy_sample(struct selftest_facts *f, const struct etw_event *ev)
{
  unsigned p = ev->pointer_size == 4 ? 4 : 8;
  if (!f->expect.busy_tid || !ev->user_data || ev->user_len < p + 4 ||
      etl_le32(ev->user_data + p) != f->expect.busy_tid)
    return;
  f->busy_samples++;
  if (has_ext_stack(ev))
    f->busy_with_ext_stack++;
  else
    keep_time(&f->busy_times, ev->timestamp);
}

static void scan_kernel(struct selftest_facts *f, const struct etw_event *ev, int group)
{
  int kind = -1;
  if (group == GROUP_PROCESS && ev->opcode == OP_PROCESS_DCEND) {
    f->process_dcend++;
    return;
  }
  if (group == GROUP_PROCESS && ev->opcode == OP_PROCESS_DCSTART) {
    if (!f->expect.self_pid || process_id(ev) == f->expect.self_pid)
      f->process_dcstart++;
    return;
  }
  if (group == GROUP_PROCESS &&
      (ev->opcode == OP_PROCESS_START || ev->opcode == OP_PROCESS_END)) {
    if (f->expect.child_pid && process_id(ev) != f->expect.child_pid)
      return;
    if (ev->opcode == OP_PROCESS_START)
      f->process_start++;
    else
      f->process_end++;
    return;
  }
  if (group == GROUP_STACKWALK) {
    if ((ev->opcode == OP_STACK || ev->opcode == OP_STACK_KEY_KERNEL ||
         ev->opcode == OP_STACK_KEY_USER) &&
        ev->user_data && ev->user_len >= 8)
      keep_time(&f->stack_times, etl_le64(ev->user_data));
    return;
  }
  if (group == GROUP_THREAD && ev->opcode == OP_CSWITCH)
    kind = SELFTEST_CSWITCH;
  else if (group == GROUP_THREAD && ev->opcode == OP_READY_THREAD)
    kind = SELFTEST_READY_THREAD;
  else if (group == GROUP_PERFINFO && ev->opcode == OP_SAMPLED_PROFILE) {
    kind = SELFTEST_SAMPLED_PROFILE;
    scan_busy_sample(f, ev);
  }
  if (kind < 0)
    return;
  f->kinds[kind]++;
  if (has_ext_stack(ev))
    f->kinds_with_ext_stack[kind]++;
  else
    keep_time(&f->times[kind], ev->timestamp);
}

/* The UTF-16LE path's last component equals `name` (ASCII, any case). */
static int base_name_is(const uint8_t *path, size_t bytes, const char *name)
{
  size_t i, start = 0, n = strlen(name);
  for (i = 0; i + 1 < bytes; i += 2)
    if (path[i + 1] == 0 && (path[i] == '\\' || path[i] == '/'))
      start = i + 2;
  if ((bytes - start) / 2 != n)
    return 0;
  for (i = 0; i < n; i++) {
    uint8_t lo = path[start + 2 * i], hi = path[start + 2 * i + 1];
    char a = (char)lo, b = name[i];
    if (hi)
      return 0;
    if (a >= 'A' && a <= 'Z')
      a = (char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z')
      b = (char)(b - 'A' + 'a');
    if (a != b)
      return 0;
  }
  return 1;
}

static void scan_image(struct selftest_facts *f, const struct etw_event *ev)
{
  struct image_event img;
  size_t i;
  if (image_identity_parse_image_event(ev, &img) != 0)
    return;
  for (i = 0; i < sizeof(clr_images) / sizeof(clr_images[0]); i++)
    if (base_name_is(img.file_name, img.file_name_bytes, clr_images[i]))
      f->clr_images++;
  if (img.opcode == IMAGE_EVENT_DCSTART) {
    f->image_dcstart++;
    if ((!f->expect.self_pid || img.process_id == f->expect.self_pid) &&
        base_name_is(img.file_name, img.file_name_bytes, "ntdll.dll"))
      f->ntdll_dcstart++;
    return;
  }
  if (img.opcode != IMAGE_EVENT_LOAD)
    return;
  if (f->expect.dll_name && !base_name_is(img.file_name, img.file_name_bytes, f->expect.dll_name))
    return;
  f->image_loads++;
  /* The merge writes the identity events just before the image event, in
   * its CPU's stream, with its timestamp (image_identity.h). */
  if (f->identity_ts[ev->cpu % 256] == ev->timestamp + 1)
    f->image_loads_identified++;
}

static void scan_own(struct selftest_facts *f, const struct etw_event *ev)
{
  struct tl_meta m;
  struct tv_value v;
  char buf[TV_SHORT_TEXT_MAX];
  uint64_t seq;
  if (tl_parse(ev, &m) != 1 ||
      tl_find(&m, ev->user_data, ev->user_len, ev->pointer_size, "Seq", &v) != 1 ||
      str_parse_uint64(tv_text(&v, buf), &seq) != 0 || seq < 1 || seq > f->expect.own_events ||
      seq > SELFTEST_MAX_OWN) {
    f->own_foreign++;
    return;
  }
  f->own_events++;
  if (!f->own_count[seq]++)
    f->own_ts[seq] = ev->timestamp;
  if (seq == f->expect.own_events && f->expect.own_last_name &&
      !strcmp(m.name, f->expect.own_last_name))
    f->own_last_named = 1;
}

/* The .NET child's events, by id (the runtime's and the rundown's
 * manifests, as TraceEvent's ClrTraceEventParser and
 * ClrRundownTraceEventParser name them). */
static void scan_dotnet(struct selftest_facts *f, const struct etw_event *ev, int rundown)
{
  if (!f->expect.dotnet_pid || !(ev->has & ETW_HAS_DESCRIPTOR) ||
      !(ev->has & ETW_HAS_PID_TID) || ev->pid != f->expect.dotnet_pid)
    return;
  if (rundown) {
    if (ev->id == CLR_RUNDOWN_METHOD_DCEND || ev->id == CLR_RUNDOWN_METHOD_DCEND_VERBOSE)
      f->dotnet_dcend++;
  } else if (ev->id == CLR_METHOD_LOAD || ev->id == CLR_METHOD_LOAD_VERBOSE) {
    f->dotnet_methods++;
  } else if (ev->id >= CLR_LOADER_FIRST && ev->id <= CLR_LOADER_LAST) {
    f->dotnet_loader++;
  }
}

void selftest_scan_event(struct selftest_facts *f, const struct etw_event *ev)
{
  int group = kernel_group(ev);
  f->scanned = 1;
  f->events++;
  if (image_identity_is_image_event(ev)) {
    scan_image(f, ev);
    return;
  }
  if (group >= 0) {
    scan_kernel(f, ev, group);
    return;
  }
  if (!(ev->has & ETW_HAS_PROVIDER))
    return;
  if (guid_equal(&ev->provider, &image_identity_guid) && ev->opcode == IMAGE_ID_INFO)
    f->identity_ts[ev->cpu % 256] = ev->timestamp + 1;
  else if (guid_equal(&ev->provider, &bi_guid_clr)) {
    f->clr_runtime_events++;
    scan_dotnet(f, ev, 0);
  } else if (guid_equal(&ev->provider, &bi_guid_clr_rundown)) {
    f->clr_rundown_events++;
    scan_dotnet(f, ev, 1);
  }
  else if (f->expect.own_events && guid_equal(&ev->provider, &f->expect.own_provider))
    scan_own(f, ev);
}

void selftest_scan_losses(struct selftest_facts *f, uint32_t events_lost, uint32_t buffers_lost)
{
  f->events_lost += events_lost;
  f->buffers_lost += buffers_lost;
}

static int scan_reader(void *ctx, const char *display, struct etl_reader *r)
{
  struct selftest_facts *f = ctx;
  const struct etl_logfile *lf = etl_reader_logfile(r);
  struct etw_event ev;
  int rc;
  (void)display;
  selftest_scan_losses(f, lf->events_lost, lf->buffers_lost);
  while ((rc = etl_reader_next(r, &ev)) == 1)
    selftest_scan_event(f, &ev);
  f->scanned = 1;
  return rc < 0 ? rc : 0;
}

int selftest_scan_file(struct selftest_facts *f, const char *path)
{
  int rc = etl_source_foreach(path, scan_reader, f, f->scan_error, sizeof(f->scan_error));
  if (rc)
    f->scanned = 0;
  return rc;
}

int selftest_scan_memory(struct selftest_facts *f, const void *data, size_t len)
{
  int rc = etl_source_foreach_memory(data, len, "trace", scan_reader, f, f->scan_error,
                                     sizeof(f->scan_error));
  if (rc)
    f->scanned = 0;
  return rc;
}

void selftest_census_of(const struct selftest_facts *f, struct selftest_census *c)
{
  c->read = f->scanned;
  c->events = f->events;
  c->cswitch = f->kinds[SELFTEST_CSWITCH];
  c->ready_thread = f->kinds[SELFTEST_READY_THREAD];
  c->samples = f->kinds[SELFTEST_SAMPLED_PROFILE];
  c->process_start = f->process_start;
  c->process_dcstart = f->process_dcstart;
  c->process_dcend = f->process_dcend;
  c->image_load = f->image_loads;
  c->image_dcstart = f->image_dcstart;
  c->clr_rundown = f->clr_rundown_events;
}

int selftest_census_file(const char *path, struct selftest_census *c)
{
  static struct selftest_facts f; /* large; one phase is read at a time */
  const char *base = path + strlen(path);
  int rc;
  while (base > path && base[-1] != '/' && base[-1] != '\\')
    base--;
  selftest_facts_init(&f, NULL);
  rc = selftest_scan_file(&f, path);
  selftest_census_of(&f, c);
  if (rc)
    snprintf(c->name, sizeof(c->name), "%.60s: %.60s", base, f.scan_error);
  else
    snprintf(c->name, sizeof(c->name), "%s", base);
  selftest_facts_release(&f);
  return rc;
}

/* --- the judges -------------------------------------------------------------- */

static void verdict(struct selftest_result *r, enum selftest_verdict v, const char *fmt, ...)
    LOG_PRINTF(3, 4);
static void verdict(struct selftest_result *r, enum selftest_verdict v, const char *fmt, ...)
{
  va_list ap;
  r->verdict = v;
  va_start(ap, fmt);
  vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
  va_end(ap);
}

/* A step of the workload that did not happen leaves nothing to find. */
static int not_done(int rc, const struct selftest_outcome *o, struct selftest_result *r)
{
  if (!rc)
    return 0;
  verdict(r, SELFTEST_FAIL, "the workload could not do it (%s): %s", etwcap_err_name(rc),
          o->workload_why);
  return 1;
}

/* A check on the trace cannot hold without one. */
static int no_trace(const struct selftest_facts *f, struct selftest_result *r)
{
  if (f->scanned)
    return 0;
  verdict(r, SELFTEST_FAIL, "no trace to read%s%s", f->scan_error[0] ? ": " : "",
          f->scan_error);
  return 1;
}

static void judge_capture(const struct selftest_facts *f, const struct selftest_outcome *o,
                          struct selftest_result *r)
{
  (void)f;
  if (o->capture_rc)
    verdict(r, SELFTEST_FAIL, "%s (%s)", o->capture_detail, etwcap_err_name(o->capture_rc));
  else
    verdict(r, SELFTEST_PASS, "%s", o->capture_detail);
}

static void judge_process(const struct selftest_facts *f, const struct selftest_outcome *o,
                          struct selftest_result *r)
{
  char who[48];
  if (not_done(o->child_rc, o, r) || no_trace(f, r))
    return;
  if (f->expect.child_pid)
    snprintf(who, sizeof(who), "child process %lu", (unsigned long)f->expect.child_pid);
  else
    snprintf(who, sizeof(who), "any process");
  if (f->process_start && f->process_end)
    verdict(r, SELFTEST_PASS, "%s: %llu Process/Start, %llu Process/End", who,
            (unsigned long long)f->process_start, (unsigned long long)f->process_end);
  else
    verdict(r, SELFTEST_FAIL, "%s: %llu Process/Start, %llu Process/End (both needed)", who,
            (unsigned long long)f->process_start, (unsigned long long)f->process_end);
}

static void judge_image(const struct selftest_facts *f, const struct selftest_outcome *o,
                        struct selftest_result *r)
{
  const char *dll = f->expect.dll_name ? f->expect.dll_name : "any image";
  if (not_done(o->dll_rc, o, r) || no_trace(f, r))
    return;
  if (!f->image_loads)
    verdict(r, SELFTEST_FAIL, "%s: no Image/Load event", dll);
  else if (!f->image_loads_identified)
    verdict(r, SELFTEST_FAIL, "%s: %llu Image/Load, none with an ImageID identity event before "
                              "it (symbols would not resolve elsewhere)",
            dll, (unsigned long long)f->image_loads);
  else
    verdict(r, SELFTEST_PASS, "%s: %llu Image/Load, %llu with image identity", dll,
            (unsigned long long)f->image_loads, (unsigned long long)f->image_loads_identified);
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Events with a stack: `ext` with an extended stack item, plus those of
 * `t` that a StackWalk event names by their timestamp. */
static uint64_t stacked(const struct selftest_facts *f, const struct selftest_times *t,
                        uint64_t ext)
{
  const struct selftest_times *s = &f->stack_times;
  uint64_t n = ext;
  size_t i;
  for (i = 0; i < t->count; i++)
    if (s->count && bsearch(&t->ts[i], s->ts, s->count, sizeof(*s->ts), cmp_u64))
      n++;
  return n;
}

static uint64_t with_stacks(const struct selftest_facts *f, enum selftest_kernel_kind kind)
{
  return stacked(f, &f->times[kind], f->kinds_with_ext_stack[kind]);
}

static void judge_kernel(const struct selftest_facts *f, struct selftest_result *r,
                         enum selftest_kernel_kind kind, const char *what)
{
  unsigned long long n = f->kinds[kind];
  uint64_t stacked;
  if (no_trace(f, r))
    return;
  stacked = with_stacks(f, kind);
  if (!n)
    verdict(r, SELFTEST_FAIL, "no %s event: the kernel session did not record them", what);
  else if (!stacked)
    verdict(r, SELFTEST_FAIL, "%llu %s events, none with a stack", n, what);
  else
    verdict(r, SELFTEST_PASS, "%llu %s events, %llu with stacks", n, what,
            (unsigned long long)stacked);
}

static void judge_cswitch(const struct selftest_facts *f, const struct selftest_outcome *o,
                          struct selftest_result *r)
{
  (void)o;
  judge_kernel(f, r, SELFTEST_CSWITCH, "CSwitch");
}

static void judge_ready_thread(const struct selftest_facts *f, const struct selftest_outcome *o,
                               struct selftest_result *r)
{
  (void)o;
  judge_kernel(f, r, SELFTEST_READY_THREAD, "ReadyThread");
}

static void judge_samples(const struct selftest_facts *f, const struct selftest_outcome *o,
                          struct selftest_result *r)
{
  (void)o;
  judge_kernel(f, r, SELFTEST_SAMPLED_PROFILE, "SampledProfile");
}

/* The kernel's start rundown names what ran before the capture: without
 * it a long-running process's samples cannot be resolved.  etwcap itself
 * ran before its capture, so its Process/DCStart and the Image/DCStart of
 * ntdll.dll (in every Windows process) must be there. */
static void judge_start_rundown(const struct selftest_facts *f,
                                const struct selftest_outcome *o, struct selftest_result *r)
{
  char who[48];
  (void)o;
  if (no_trace(f, r))
    return;
  if (f->expect.self_pid)
    snprintf(who, sizeof(who), "etwcap's own process %lu", (unsigned long)f->expect.self_pid);
  else
    snprintf(who, sizeof(who), "any process");
  if (!f->process_dcstart)
    verdict(r, SELFTEST_FAIL, "no Process/DCStart for %s: the kernel session wrote no start "
                              "rundown, so processes that ran before a capture are nameless",
            who);
  else if (!f->ntdll_dcstart)
    verdict(r, SELFTEST_FAIL, "%s has a Process/DCStart but no Image/DCStart of ntdll.dll "
                              "(%llu Image/DCStart in all): its DLLs would be nameless",
            who, (unsigned long long)f->image_dcstart);
  else
    verdict(r, SELFTEST_PASS, "%s: %llu Process/DCStart, Image/DCStart of ntdll.dll (%llu "
                              "Image/DCStart in all)",
            who, (unsigned long long)f->process_dcstart, (unsigned long long)f->image_dcstart);
}

/* CPU samples at the rate asked: on the thread that spun, samples per
 * CPU-second within a factor of 2 of 1 / interval, and at least half of
 * them with a stack. */
static void judge_sample_rate(const struct selftest_facts *f, const struct selftest_outcome *o,
                              struct selftest_result *r)
{
  double expected, n = (double)f->busy_samples;
  uint64_t with;
  if (not_done(o->threads_rc, o, r) || no_trace(f, r))
    return;
  if (!f->expect.busy_tid || !o->busy_cpu_known || !o->sample_interval_100ns) {
    verdict(r, SELFTEST_FAIL, "the busy thread's CPU time is unknown: nothing to judge the "
                              "rate by");
    return;
  }
  if (!o->busy_cpu_100ns) {
    /* Measured, but no clock tick charged to the spin: no rate to expect,
     * and no samples would pass for right. */
    verdict(r, SELFTEST_FAIL, "the busy thread was charged no CPU time for its spin: nothing "
                              "to judge the rate by");
    return;
  }
  expected = (double)o->busy_cpu_100ns / (double)o->sample_interval_100ns;
  with = stacked(f, &f->busy_times, f->busy_with_ext_stack);
  if (n * 2 < expected || n > expected * 2)
    verdict(r, SELFTEST_FAIL, "thread %lu: %llu samples in %.0f ms of CPU, %.0f expected at "
                              "%.4f ms (not within a factor of 2)",
            (unsigned long)f->expect.busy_tid, (unsigned long long)f->busy_samples,
            (double)o->busy_cpu_100ns / 10000.0, expected, o->sample_interval_100ns / 10000.0);
  else if (with * 2 < f->busy_samples)
    verdict(r, SELFTEST_FAIL, "thread %lu: only %llu of its %llu samples have a stack",
            (unsigned long)f->expect.busy_tid, (unsigned long long)with,
            (unsigned long long)f->busy_samples);
  else
    verdict(r, SELFTEST_PASS, "thread %lu: %llu samples in %.0f ms of CPU (%.0f expected), "
                              "%llu with stacks",
            (unsigned long)f->expect.busy_tid, (unsigned long long)f->busy_samples,
            (double)o->busy_cpu_100ns / 10000.0, expected, (unsigned long long)with);
}

/* A .NET process the workload started, which ran managed code during the
 * capture and still ran at its end: its CLR Loader and MethodLoad events
 * show the runtime provider reached it, its MethodDCEnd that the rundown
 * named its methods. */
static void judge_dotnet_child(const struct selftest_facts *f,
                               const struct selftest_outcome *o, struct selftest_result *r)
{
  unsigned long pid = (unsigned long)f->expect.dotnet_pid;
  if (o->dotnet_rc == ETWCAP_E_NOENT) {
    verdict(r, SELFTEST_SKIP, "%s", o->dotnet_why);
    return;
  }
  if (o->dotnet_rc) {
    verdict(r, SELFTEST_FAIL, "could not run a .NET child (%s): %s",
            etwcap_err_name(o->dotnet_rc), o->dotnet_why);
    return;
  }
  if (no_trace(f, r))
    return;
  if (!f->dotnet_loader || !f->dotnet_methods)
    verdict(r, SELFTEST_FAIL, "%s (process %lu): %llu CLR Loader and %llu MethodLoad events "
                              "(both needed): the CLR provider did not reach it",
            o->dotnet_what, pid, (unsigned long long)f->dotnet_loader,
            (unsigned long long)f->dotnet_methods);
  else if (!f->dotnet_dcend)
    verdict(r, SELFTEST_FAIL, "%s (process %lu): no MethodDCEnd in the CLR rundown: its JIT'd "
                              "methods would have no names",
            o->dotnet_what, pid);
  else
    verdict(r, SELFTEST_PASS, "%s (process %lu): %llu Loader, %llu MethodLoad, %llu MethodDCEnd",
            o->dotnet_what, pid, (unsigned long long)f->dotnet_loader,
            (unsigned long long)f->dotnet_methods, (unsigned long long)f->dotnet_dcend);
}

/* --- the phases (selftest_phases.h) --- */

const char *const selftest_route_names[2] = { "groupMask", "systemProviders" };

enum census_need {
  NEED_KERNEL = 1,      /* CSwitch and SampledProfile */
  NEED_RUNDOWN = 2,     /* the kernel's Process rundown (DCStart or DCEnd) */
  NEED_CLR_RUNDOWN = 4, /* CLR rundown events */
  NEED_DCSTART = 8      /* Process/DCStart and Image/DCStart */
};

/* What of `need` the census lacks, as ", "-separated names into buf
 * ("" when nothing). */
static const char *lacks(const struct selftest_census *c, unsigned need, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
#define LACK(cond, text)                                                                        \
  if (cond)                                                                                     \
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? ", " : "", text)
  LACK((need & NEED_KERNEL) && !c->cswitch, "CSwitch");
  LACK((need & NEED_KERNEL) && !c->samples, "SampledProfile");
  LACK((need & NEED_RUNDOWN) && !c->process_dcstart && !c->process_dcend,
       "a kernel rundown (Process/DCStart or DCEnd)");
  LACK((need & NEED_DCSTART) && !c->process_dcstart, "Process/DCStart");
  LACK((need & NEED_DCSTART) && !c->image_dcstart, "Image/DCStart");
  LACK((need & NEED_CLR_RUNDOWN) && !c->clr_rundown, "CLR rundown events");
#undef LACK
  return buf;
}

/* A phase that could not run or left no trace fails before its census. */
static int phase_failed(const struct selftest_phase *p, const char *what,
                        struct selftest_result *r)
{
  if (!p->ran)
    verdict(r, SELFTEST_FAIL, "the %s phase did not run", what);
  else if (p->capture_rc)
    verdict(r, SELFTEST_FAIL, "the %s capture failed (%s): %s", what,
            etwcap_err_name(p->capture_rc), p->why[0] ? p->why : "see the log");
  else if (!p->census_count || !p->census[0].read)
    verdict(r, SELFTEST_FAIL, "the %s phase left no trace to read: %s", what,
            p->why[0] ? p->why : p->census_count ? p->census[0].name : "none written");
  else
    return 0;
  return 1;
}

static void judge_snapshot(const struct selftest_facts *f, const struct selftest_outcome *o,
                           struct selftest_result *r)
{
  const struct selftest_census *c = &o->snapshot.census[0];
  char missing[200];
  (void)f;
  if (phase_failed(&o->snapshot, "in-memory", r))
    return;
  if (*lacks(c, NEED_KERNEL | NEED_RUNDOWN, missing, sizeof(missing)))
    verdict(r, SELFTEST_FAIL, "%s lacks %s", c->name, missing);
  else
    verdict(r, SELFTEST_PASS, "%s: %llu CSwitch, %llu SampledProfile, %llu Process rundown "
                              "events, the rings going on",
            c->name, (unsigned long long)c->cswitch, (unsigned long long)c->samples,
            (unsigned long long)(c->process_dcstart + c->process_dcend));
}

/* Segment 2 is the first that began with a file switch: its kernel events
 * show the switch kept them.  Each segment names what ran in it: its own
 * kernel rundown, and the CLR's when the .NET child ran throughout. */
static void judge_segments(const struct selftest_facts *f, const struct selftest_outcome *o,
                           struct selftest_result *r)
{
  const struct selftest_phase *p = &o->segments;
  unsigned need = NEED_RUNDOWN | (o->dotnet_rc == 0 ? NEED_CLR_RUNDOWN : 0);
  char missing[200];
  size_t i;
  (void)f;
  if (phase_failed(p, "segments", r))
    return;
  if (p->census_count < 2) {
    verdict(r, SELFTEST_FAIL, "%lu segment written in %u s at /SegmentSec:%d; 2 needed",
            (unsigned long)p->census_count, SELFTEST_SEGMENTS_RUN_MS / 1000, SELFTEST_SEGMENT_SEC);
    return;
  }
  if (*lacks(&p->census[1], NEED_KERNEL, missing, sizeof(missing))) {
    verdict(r, SELFTEST_FAIL, "segment 2 (%s) lacks %s: the file switch lost kernel events",
            p->census[1].name, missing);
    return;
  }
  for (i = 0; i < p->census_count; i++) {
    if (!p->census[i].read) {
      verdict(r, SELFTEST_FAIL, "segment %lu cannot be read: %s", (unsigned long)i + 1,
              p->census[i].name);
      return;
    }
    if (*lacks(&p->census[i], need, missing, sizeof(missing))) {
      verdict(r, SELFTEST_FAIL, "segment %lu (%s) lacks %s", (unsigned long)i + 1,
              p->census[i].name, missing);
      return;
    }
  }
  verdict(r, SELFTEST_PASS, "%lu segments, each with its rundown; segment 2: %llu CSwitch, %llu "
                            "SampledProfile",
          (unsigned long)p->census_count, (unsigned long long)p->census[1].cswitch,
          (unsigned long long)p->census[1].samples);
}

static void judge_routes(const struct selftest_facts *f, const struct selftest_outcome *o,
                         struct selftest_result *r)
{
  char missing[200], what[64];
  size_t i;
  (void)f;
  if (o->os_build < SELFTEST_ROUTES_BUILD) {
    verdict(r, SELFTEST_SKIP, "build %u: the System Providers route needs build %u, so there "
                              "is one kernel route",
            o->os_build, SELFTEST_ROUTES_BUILD);
    return;
  }
  for (i = 0; i < 2; i++) {
    snprintf(what, sizeof(what), "/KernelRoute:%s", selftest_route_names[i]);
    if (phase_failed(&o->routes[i], what, r))
      return;
    if (*lacks(&o->routes[i].census[0], NEED_KERNEL | NEED_DCSTART, missing, sizeof(missing))) {
      verdict(r, SELFTEST_FAIL, "/KernelRoute:%s lacks %s (the census above compares the two)",
              selftest_route_names[i], missing);
      return;
    }
  }
  verdict(r, SELFTEST_PASS, "both kernel routes record CSwitch, SampledProfile and the start "
                            "rundown (the census above compares them)");
}

static void judge_own(const struct selftest_facts *f, const struct selftest_outcome *o,
                      struct selftest_result *r)
{
  unsigned n = f->expect.own_events, i;
  if (not_done(o->events_rc, o, r) || no_trace(f, r))
    return;
  for (i = 1; i <= n && i <= SELFTEST_MAX_OWN; i++) {
    if (f->own_count[i] != 1) {
      verdict(r, SELFTEST_FAIL, "event Seq=%u seen %u times (once expected; %llu of %u seen)", i,
              f->own_count[i], (unsigned long long)f->own_events, n);
      return;
    }
    if (i > 1 && f->own_ts[i] < f->own_ts[i - 1]) {
      verdict(r, SELFTEST_FAIL, "event Seq=%u is timed before Seq=%u: out of order", i, i - 1);
      return;
    }
  }
  if (f->expect.own_last_name && !f->own_last_named) {
    verdict(r, SELFTEST_FAIL, "event Seq=%u is not named %s", n, f->expect.own_last_name);
    return;
  }
  verdict(r, SELFTEST_PASS, "%u TraceLogging events, in order, decoded from their own schema", n);
}

static void judge_trigger(const struct selftest_facts *f, const struct selftest_outcome *o,
                          struct selftest_result *r)
{
  (void)f;
  if (!o->manifest_read)
    verdict(r, SELFTEST_FAIL, "no capture manifest to read the fire from");
  else if (!o->trigger_fired[0])
    verdict(r, SELFTEST_FAIL, "/%s did not fire: the capture ended another way",
            o->trigger_expected ? o->trigger_expected : "trigger");
  else if (o->trigger_expected && !str_caseeq(o->trigger_fired, o->trigger_expected))
    verdict(r, SELFTEST_FAIL, "%s fired, /%s expected", o->trigger_fired, o->trigger_expected);
  else
    verdict(r, SELFTEST_PASS, "/%s fired and ended the capture", o->trigger_fired);
}

static void judge_clr_rundown(const struct selftest_facts *f, const struct selftest_outcome *o,
                              struct selftest_result *r)
{
  (void)o;
  if (no_trace(f, r))
    return;
  if (!f->clr_images && !f->clr_runtime_events)
    verdict(r, SELFTEST_SKIP, "no .NET process ran during the capture (no runtime image, no CLR "
                              "event)");
  else if (!f->clr_rundown_events)
    verdict(r, SELFTEST_FAIL, ".NET ran (%llu runtime images, %llu CLR events) but no CLR "
                              "rundown event: its methods will have no names",
            (unsigned long long)f->clr_images, (unsigned long long)f->clr_runtime_events);
  else
    verdict(r, SELFTEST_PASS, "%llu CLR rundown events", (unsigned long long)f->clr_rundown_events);
}

static void judge_lost(const struct selftest_facts *f, const struct selftest_outcome *o,
                       struct selftest_result *r)
{
  uint64_t events = f->events_lost + o->sessions_events_lost;
  uint64_t buffers = f->buffers_lost + o->sessions_buffers_lost;
  if (no_trace(f, r))
    return;
  if (events || buffers)
    verdict(r, SELFTEST_FAIL, "%llu events and %llu buffers lost", (unsigned long long)events,
            (unsigned long long)buffers);
  else
    verdict(r, SELFTEST_PASS, "no event or buffer lost in %llu events",
            (unsigned long long)f->events);
}

static void judge_health(const struct selftest_facts *f, const struct selftest_outcome *o,
                         struct selftest_result *r)
{
  (void)f;
  if (!o->manifest_read)
    verdict(r, SELFTEST_FAIL, "no capture manifest to read the health from");
  else if (o->health_warnings)
    verdict(r, SELFTEST_FAIL, "%lu warnings, the first: %s", (unsigned long)o->health_warnings,
            o->health_first);
  else
    verdict(r, SELFTEST_PASS, "every session wrote and nothing was flagged while it ran");
}

static void judge_sessions_left(const struct selftest_facts *f, const struct selftest_outcome *o,
                                struct selftest_result *r)
{
  (void)f;
  if (!o->sessions_listed)
    verdict(r, SELFTEST_FAIL, "the running sessions could not be listed");
  else if (o->sessions_left)
    verdict(r, SELFTEST_FAIL, "%lu still running: %s", (unsigned long)o->sessions_left,
            o->left_names);
  else
    verdict(r, SELFTEST_PASS, "none of the selftest's sessions still runs");
}

const struct selftest_check selftest_checks[] = {
  { "CAPTURE", "a capture with every session kind starts, stops, merges and zips", judge_capture },
  { "PROCESS", "the child process etwcap started has Process/Start and Process/End events",
    judge_process },
  { "IMAGE_LOAD", "the DLL etwcap loaded has an Image/Load event with image identity before it",
    judge_image },
  { "CSWITCH", "CSwitch events, with stacks", judge_cswitch },
  { "READY_THREAD", "ReadyThread events, with stacks", judge_ready_thread },
  { "CPU_SAMPLES", "SampledProfile (CPU sample) events, with stacks", judge_samples },
  { "START_RUNDOWN", "Process/DCStart for etwcap's own process and Image/DCStart of ntdll.dll "
                     "in it (the kernel's start rundown)",
    judge_start_rundown },
  { "SAMPLE_RATE", "on the busy thread, samples per CPU-second within a factor of 2 of the "
                   "set interval, at least half with a stack",
    judge_sample_rate },
  { "OWN_EVENTS", "etwcap's own TraceLogging events, each once, in the order written",
    judge_own },
  { "TRIGGER", "the /StopOnEtwEvent trigger on the last of them fired and ended the capture",
    judge_trigger },
  { "CLR_RUNDOWN", "CLR rundown events for the .NET processes (SKIP when none runs)",
    judge_clr_rundown },
  { "DOTNET_CHILD", "a .NET child (Windows PowerShell) has CLR Loader and MethodLoad events and "
                    "a MethodDCEnd in the rundown (SKIP only with no .NET on the host)",
    judge_dotnet_child },
  { "SNAPSHOT", "a phase with /InMemoryCircularBuffer and 'etwcap snapshot': the snapshot has "
                "CSwitch, SampledProfile and a kernel rundown",
    judge_snapshot },
  { "SEGMENTS", "a phase with /SegmentSec:5: CSwitch and SampledProfile in segment 2, a rundown "
                "in each segment",
    judge_segments },
  { "ROUTES", "on build 20348+, a phase per kernel route, their event census side by side "
              "(SKIP before)",
    judge_routes },
  { "NOTHING_LOST", "no event or buffer lost, in any session or the merged trace", judge_lost },
  { "HEALTH", "the capture's self-check flagged nothing while it ran", judge_health },
  { "NO_SESSIONS_LEFT", "none of the selftest's sessions still runs afterwards",
    judge_sessions_left },
};

const size_t selftest_check_count = sizeof(selftest_checks) / sizeof(selftest_checks[0]);

const struct selftest_check *selftest_check_find(const char *name)
{
  size_t i;
  for (i = 0; i < selftest_check_count; i++)
    if (str_caseeq(selftest_checks[i].name, name))
      return &selftest_checks[i];
  return NULL;
}

const char *selftest_verdict_name(enum selftest_verdict v)
{
  switch (v) {
  case SELFTEST_PASS:
    return "PASS";
  case SELFTEST_FAIL:
    return "FAIL";
  case SELFTEST_SKIP:
    return "SKIP";
  }
  return "?";
}

void selftest_judge_all(struct selftest_facts *f, const struct selftest_outcome *o,
                        struct selftest_result *results)
{
  size_t i;
  /* StackWalk events are looked up by the time they name. */
  if (f->stack_times.count)
    qsort(f->stack_times.ts, f->stack_times.count, sizeof(*f->stack_times.ts), cmp_u64);
  for (i = 0; i < selftest_check_count; i++) {
    memset(&results[i], 0, sizeof(results[i]));
    selftest_checks[i].judge(f, o, &results[i]);
  }
}
