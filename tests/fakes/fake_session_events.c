/* The fake sessions' events (see fake_session_events.h). */
#include "tests/fakes/fake_session_events.h"

#include "etw/etl/etl_encode.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "etw/event/builtin_events.h"
#include "etw/event/guid.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <stdio.h>
#include <string.h>

/* Kernel hook ids (group << 8 | opcode; docs/etl.md §4.2): Thread 0x05
 * CSwitch 36, PerfInfo 0x0F SampledProfile 46, Process 0x03 and Image 0x14
 * DCStart 3 / DCEnd 4 (TraceEvent's KernelTraceEventParser opcodes). */
static const struct {
  unsigned kind;
  uint16_t hook;
} kernel_hooks[] = {
  { FAKE_EVENT_CSWITCH, 0x0524 },       { FAKE_EVENT_SAMPLED_PROFILE, 0x0F2E },
  { FAKE_EVENT_PROCESS_DCSTART, 0x0303 }, { FAKE_EVENT_IMAGE_DCSTART, 0x1403 },
  { FAKE_EVENT_PROCESS_DCEND, 0x0304 },   { FAKE_EVENT_IMAGE_DCEND, 0x1404 },
  { FAKE_EVENT_STACK_KEY_KERNEL, 0x1825 }, { FAKE_EVENT_STACK_KEY_RUNDOWN, 0x1824 },
};

/* CLR rundown provider events: ModuleDCEnd_V1 154 ("Loader ETW Events"),
 * MethodDCEndVerbose_V1 144 ("Method ETW Events", learn.microsoft.com
 * dotnet/framework/performance). */
static const struct {
  unsigned kind;
  uint16_t id;
} clr_ids[] = {
  { FAKE_EVENT_MODULE_DCEND, 154 },
  { FAKE_EVENT_METHOD_DCEND_VERBOSE, 144 },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The start every header form here shares (docs/etl.md §4.2): Size,
 * HeaderType, the 0xC0 marker, thread 8 and process 4, the timestamp; the
 * rest zero.  HeaderType 0x14 (FULL_HEADER64, a zero GUID) is the filler
 * every fake file has, 0x13 (EVENT_HEADER64) a manifest event. */
static void header(uint8_t *e, uint16_t size, uint8_t type, uint64_t ts)
{
  memset(e, 0, size);
  etl_put16(e, size);
  e[0x02] = type;
  e[0x03] = 0xC0;
  etl_put32(e + 0x08, 8);
  etl_put32(e + 0x0C, 4);
  etl_put64(e + 0x10, ts);
}

/* The payload of a kernel kind at e (0x38 bytes at most): its size.  The
 * layouts are TraceEvent's (KernelTraceEventParser): Process v2
 * (UniqueProcessKey, ProcessID, ParentID, SessionID, ExitStatus, an empty
 * UserSID, ImageFileName, CommandLine), SampledProfile (InstructionPointer,
 * ThreadId, Count), StackKeyKernel (EventTimeStamp, StackProcess,
 * StackThread, StackKey), KeyRundown (StackKey, frames).  The others carry
 * 8 zero bytes (no event of these is empty). */
static uint16_t kernel_payload(uint8_t *e, unsigned kind, uint64_t sample_ts)
{
  memset(e, 0, 0x38);
  switch (kind) {
  case FAKE_EVENT_PROCESS_DCSTART:
    memcpy(e + 28, "Idle", 5); /* pid 0; after the 4-byte empty SID; "" command line */
    return 35;
  case FAKE_EVENT_SAMPLED_PROFILE:
    etl_put64(e, FAKE_STACK_IP); /* thread 0 */
    etl_put16(e + 12, 1);
    return 16;
  case FAKE_EVENT_STACK_KEY_KERNEL:
    etl_put64(e, sample_ts); /* process 0, thread 0 */
    etl_put64(e + 16, FAKE_STACK_KEY);
    return 24;
  case FAKE_EVENT_STACK_KEY_RUNDOWN:
    etl_put64(e, FAKE_STACK_KEY);
    etl_put64(e + 8, FAKE_STACK_IP);
    etl_put64(e + 16, FAKE_STACK_CALLER);
    return 24;
  }
  return 8;
}

/* The record of one kind at `ts` into e (0x58 bytes at most); its size.
 * sample_ts: the time of the last SampledProfile, which a stack key names. */
static uint16_t kind_event(uint8_t *e, unsigned kind, uint64_t ts, uint64_t sample_ts)
{
  size_t i;
  for (i = 0; i < COUNT(kernel_hooks); i++)
    if (kernel_hooks[i].kind == kind) {
      uint16_t size = (uint16_t)(0x20 + kernel_payload(e + 0x20, kind, sample_ts));
      etl_system_header_encode(e, 1, size, kernel_hooks[i].hook, 8, 4, ts);
      return size;
    }
  for (i = 0; i < COUNT(clr_ids); i++)
    if (clr_ids[i].kind == kind) {
      header(e, 0x58, 0x13, ts);
      guid_to_bytes(&bi_guid_clr_rundown, e + 0x18);
      etl_put16(e + 0x28, clr_ids[i].id);
      e[0x2C] = 5; /* Verbose, as the method verbose events are */
      return 0x58;
    }
  return 0;
}

int fake_etl_write_kinds(const char *path, const char *logger, unsigned events, unsigned seed,
                         unsigned kinds)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  uint8_t ev[0x58];
  uint64_t ts = 2000 + seed, sample_ts = 0;
  unsigned i;
  int rc = 0;
  memset(&cfg, 0, sizeof(cfg));
  cfg.buffer_size = 8192;
  cfg.header.os_major = 10;
  cfg.header.build = 20348;
  cfg.header.cpus = 2;
  cfg.header.pointer_size = 8;
  cfg.header.perf_freq = 10000000;
  cfg.header.boot_time = INT64_C(133232200000000000);
  cfg.header.start_time = INT64_C(133232283966946549);
  cfg.header.clock_type = 1;
  cfg.header.header_timestamp = 1000;
  snprintf(cfg.header.logger_name, sizeof(cfg.header.logger_name), "%s", logger);
  snprintf(cfg.header.log_file_name, sizeof(cfg.header.log_file_name), "%s", path);
  cfg.header_pid = 4;
  cfg.header_tid = 8;
  /* The writer creates its file anew; a session's file is rewritten at
   * each write, as its header was written at the start. */
  os_remove(path);
  if ((rc = etl_writer_open(&w, path, &cfg)) != 0)
    return rc;
  for (i = 0; i < events && !rc; i++, ts += 100) {
    header(ev, 0x40, 0x14, ts);
    rc = etl_writer_write(w, (uint16_t)(i % 2), ts, ev, 0x40);
  }
  for (i = 0; i < FAKE_EVENT_KINDS && !rc; i++, ts += 100) {
    unsigned kind = 1u << i;
    if (!(kinds & kind) || kind == FAKE_EVENT_STACK_KEY_KERNEL)
      continue;
    rc = etl_writer_write(w, 0, ts, ev, kind_event(ev, kind, ts, sample_ts));
    /* The kernel logs a sample's stack right after it, on its CPU. */
    if (!rc && kind == FAKE_EVENT_SAMPLED_PROFILE && (kinds & FAKE_EVENT_STACK_KEY_KERNEL)) {
      sample_ts = ts;
      rc = etl_writer_write(w, 0, ts + 1, ev,
                            kind_event(ev, FAKE_EVENT_STACK_KEY_KERNEL, ts + 1, sample_ts));
    }
  }
  if (rc) {
    etl_writer_abort(w);
    return rc;
  }
  return etl_writer_finish(w);
}

static unsigned kind_of(const struct etw_event *ev)
{
  size_t i;
  if (ev->is_kernel) {
    for (i = 0; i < COUNT(kernel_hooks); i++)
      if (ev->hook_id == kernel_hooks[i].hook)
        return kernel_hooks[i].kind;
    return 0;
  }
  if (!guid_equal(&ev->provider, &bi_guid_clr_rundown))
    return 0;
  for (i = 0; i < COUNT(clr_ids); i++)
    if (ev->id == clr_ids[i].id)
      return clr_ids[i].kind;
  return 0;
}

static int count_kinds(void *ctx, const char *display, struct etl_reader *r)
{
  unsigned *counts = ctx;
  struct etw_event ev;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) == 1) {
    unsigned k = kind_of(&ev), i;
    for (i = 0; i < FAKE_EVENT_KINDS; i++)
      if (k == 1u << i)
        counts[i]++;
  }
  return rc < 0 ? rc : 0;
}

int fake_event_census(const char *path, unsigned counts[FAKE_EVENT_KINDS], char *err,
                      size_t err_size)
{
  memset(counts, 0, FAKE_EVENT_KINDS * sizeof(counts[0]));
  return etl_source_foreach(path, count_kinds, counts, err, err_size);
}

unsigned fake_kernel_kinds(const uint32_t mask[8], int at_stop)
{
  unsigned k = 0;
  /* PERFINFO_GROUPMASK (krabsetw perfinfo_groupmask.hpp): Masks[1]
   * PERF_CONTEXT_SWITCH 0x4, PERF_PROFILE 0x2; Masks[0] PERF_PROCESS 0x1,
   * PERF_LOADER 0x4. */
  if (mask[1] & 0x4)
    k |= FAKE_EVENT_CSWITCH;
  if (mask[1] & 0x2)
    k |= FAKE_EVENT_SAMPLED_PROFILE;
  if (at_stop && (mask[0] & 0x1))
    k |= FAKE_EVENT_PROCESS_DCEND;
  if (at_stop && (mask[0] & 0x4))
    k |= FAKE_EVENT_IMAGE_DCEND;
  return k;
}

unsigned fake_clr_rundown_kinds(uint64_t keywords)
{
  unsigned k = 0;
  /* "CLR ETW Keywords and Levels", rundown keywords: EndRundownKeyword
   * 0x100 enumerates at the end of a rundown (the DCEnd events), Loader
   * 0x8 the modules, Jit 0x10 and NGen 0x20 the methods. */
  if (!(keywords & 0x100))
    return 0;
  if (keywords & 0x8)
    k |= FAKE_EVENT_MODULE_DCEND;
  if (keywords & 0x30)
    k |= FAKE_EVENT_METHOD_DCEND_VERBOSE;
  return k;
}
