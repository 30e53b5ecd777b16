/* consumer.h with advapi32: OpenTraceW in real-time, EVENT_RECORD and raw
 * timestamp mode, ProcessTrace on a thread of its own, each EVENT_RECORD
 * unpacked into etw_record_fields and converted by etw_event_record.c (no
 * TDH: it kills the process under Wine and etwcap decodes what it needs
 * itself).  Nothing here knows about triggers. */
#include "etw/session/consumer_win32.h"

#include "etw/event/etw_event_record.h"
#include "etw/event/guid_win32.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_thread.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <string.h>

static void real_clock_now(int64_t *filetime, int64_t *qpc)
{
  FILETIME ft;
  LARGE_INTEGER c;
  QueryPerformanceCounter(&c);
  GetSystemTimeAsFileTime(&ft);
  *qpc = c.QuadPart;
  *filetime = (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime);
}

static const struct consumer_advapi real_api = { OpenTraceW, ProcessTrace, CloseTrace,
                                                 real_clock_now };
static const struct consumer_advapi *api = &real_api;

void consumer_win32_set_advapi(const struct consumer_advapi *a)
{
  api = a ? a : &real_api;
}

struct impl {
  const struct consumer_advapi *api; /* the table at open: close uses the same */
  EVENT_TRACE_LOGFILEW lf;
  wchar_t *wname;
  TRACEHANDLE handle;
  os_thread thread;
  int thread_started;
  consumer_event_fn fn;
  void *ctx;
  struct etw_record_clock clock;
  uint64_t events;
  double cpu_seconds;
  ULONG end_code;
};

void WINAPI consumer_win32_on_event(PEVENT_RECORD r)
{
  struct impl *m = r->UserContext;
  const EVENT_HEADER *h = &r->EventHeader;
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT];
  struct etw_record_fields f;
  struct etw_event ev;
  unsigned i;
  if (!m)
    return;
  memset(&f, 0, sizeof(f));
  f.flags = h->Flags;
  f.event_property = h->EventProperty;
  f.tid = h->ThreadId;
  f.pid = h->ProcessId;
  f.timestamp = h->TimeStamp.QuadPart;
  f.provider = guid_from_win32(&h->ProviderId);
  f.id = h->EventDescriptor.Id;
  f.version = h->EventDescriptor.Version;
  f.channel = h->EventDescriptor.Channel;
  f.level = h->EventDescriptor.Level;
  f.opcode = h->EventDescriptor.Opcode;
  f.task = h->EventDescriptor.Task;
  f.keyword = h->EventDescriptor.Keyword;
  f.kernel_time = h->KernelTime;
  f.user_time = h->UserTime;
  f.activity_id = guid_from_win32(&h->ActivityId);
  /* ProcessorIndex is valid only with the flag; ProcessorNumber always. */
  f.cpu = (h->Flags & ETW_RECORD_FLAG_PROCESSOR_INDEX) ? r->BufferContext.ProcessorIndex
                                                       : r->BufferContext.ProcessorNumber;
  for (i = 0; i < r->ExtendedDataCount && i < ETW_EVENT_MAX_EXT && r->ExtendedData; i++) {
    ext[i].type = r->ExtendedData[i].ExtType;
    ext[i].size = r->ExtendedData[i].DataSize;
    ext[i].data = (const void *)(uintptr_t)r->ExtendedData[i].DataPtr;
  }
  f.ext_count = (uint16_t)i;
  f.ext = ext;
  f.user_len = r->UserDataLength;
  f.user_data = r->UserData;
  etw_event_from_record(&ev, &f);
  m->events++;
  m->fn(m->ctx, &ev, etw_record_filetime(&m->clock, f.timestamp));
}

static double filetime_seconds(const FILETIME *ft)
{
  return (double)(((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime) / 1e7;
}

static void run(void *arg)
{
  struct impl *m = arg;
  FILETIME created, exited, kernel, user;
  /* Returns when the session stops or CloseTrace is called. */
  m->end_code = m->api->process_trace(&m->handle, 1, NULL, NULL);
  if (GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
    m->cpu_seconds = filetime_seconds(&kernel) + filetime_seconds(&user);
}

/* OpenTrace on a real-time session that is gone fails with either code. */
static int consumer_error(unsigned long code)
{
  if (code == ERROR_WMI_INSTANCE_NOT_FOUND || code == ERROR_NOT_FOUND)
    return ETWCAP_E_NO_SESSION;
  return win32_error(code, ETWCAP_E_SYSTEM);
}

static void release(struct impl *m)
{
  etwcap_free(m->wname);
  etwcap_free(m);
}

static int open_rt(struct consumer *c, const char *session, consumer_event_fn fn, void *ctx)
{
  struct impl *m = etwcap_calloc(1, sizeof(*m));
  int64_t ref_ft, ref_qpc;
  c->impl = NULL;
  c->api = NULL;
  c->os_code = 0;
  if (!m || !(m->wname = utf8_to_utf16(session))) {
    if (m)
      release(m);
    return ETWCAP_E_NOMEM;
  }
  m->api = api;
  m->fn = fn;
  m->ctx = ctx;
  m->lf.LoggerName = m->wname;
  m->lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD |
                           PROCESS_TRACE_MODE_RAW_TIMESTAMP;
  m->lf.EventRecordCallback = consumer_win32_on_event;
  m->lf.Context = m; /* comes back as EVENT_RECORD.UserContext: no globals */
  m->api->clock_now(&ref_ft, &ref_qpc);
  m->handle = m->api->open_trace(&m->lf);
  if (m->handle == INVALID_PROCESSTRACE_HANDLE) {
    c->api = "OpenTraceW";
    c->os_code = GetLastError();
    release(m);
    return consumer_error(c->os_code);
  }
  /* OpenTraceW fills the header: its clock type says what raw timestamps
   * are (2: system time, already FILETIMEs; otherwise QPC at PerfFreq). */
  if (m->lf.LogfileHeader.ReservedFlags == 2)
    etw_record_clock_init(&m->clock, 0, 0, 0);
  else {
    LARGE_INTEGER freq;
    uint64_t f = (uint64_t)m->lf.LogfileHeader.PerfFreq.QuadPart;
    if (!f && QueryPerformanceFrequency(&freq))
      f = (uint64_t)freq.QuadPart;
    etw_record_clock_init(&m->clock, ref_ft, ref_qpc, f);
  }
  if (os_thread_create(&m->thread, run, m) != 0) {
    c->api = "CreateThread";
    c->os_code = GetLastError();
    m->api->close_trace(m->handle);
    release(m);
    return ETWCAP_E_SYSTEM;
  }
  m->thread_started = 1;
  c->impl = m;
  return 0;
}

static void close_rt(struct consumer *c, struct consumer_stats *stats)
{
  struct impl *m = c->impl;
  if (stats)
    memset(stats, 0, sizeof(*stats));
  if (!m)
    return;
  m->api->close_trace(m->handle);
  if (m->thread_started)
    os_thread_join(&m->thread);
  if (stats) {
    stats->events = m->events;
    stats->cpu_seconds = m->cpu_seconds;
    stats->end_code = m->end_code;
  }
  release(m);
  c->impl = NULL;
}

static const struct consumer_ops rt_ops = { "advapi32", open_rt, close_rt };

void consumer_system(struct consumer *c)
{
  memset(c, 0, sizeof(*c));
  c->ops = &rt_ops;
}
