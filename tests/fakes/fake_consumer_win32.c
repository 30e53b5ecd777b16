/* See fake_consumer_win32.h. */
#include "tests/fakes/fake_consumer_win32.h"

#include "etw/event/etw_event_record.h"
#include "tests/fakes/fake_consumer.h"

#include <string.h>
#include <wchar.h>

#define FAKE_HANDLE 42

struct fake_rt fake_rt;
static PEVENT_TRACE_LOGFILEW open_lf;

static TRACEHANDLE WINAPI fake_open_trace(PEVENT_TRACE_LOGFILEW lf)
{
  fake_rt.opens++;
  open_lf = lf;
  wcsncpy(fake_rt.logger, lf->LoggerName ? lf->LoggerName : L"", 127);
  fake_rt.mode = lf->ProcessTraceMode;
  fake_rt.callback_is_ours = lf->EventRecordCallback == consumer_win32_on_event;
  if (fake_rt.open_error) {
    SetLastError(fake_rt.open_error);
    return INVALID_PROCESSTRACE_HANDLE;
  }
  /* What OpenTraceW reports of a real-time session on the QPC clock. */
  lf->LogfileHeader.ReservedFlags = 1;
  lf->LogfileHeader.PerfFreq.QuadPart = (LONGLONG)fake_rt.perf_freq;
  return FAKE_HANDLE;
}

static int push(void *ctx, const struct etw_event *ev, const struct etl_logfile *lf,
                const struct etl_clock *clock)
{
  struct etw_record_ext ext[ETW_EVENT_MAX_EXT];
  EVENT_HEADER_EXTENDED_DATA_ITEM items[ETW_EVENT_MAX_EXT];
  struct etw_record_fields f;
  EVENT_RECORD r;
  unsigned i;
  (void)ctx, (void)lf, (void)clock;
  if (!fake_record_fields(ev, &f, ext))
    return 0;
  memset(&r, 0, sizeof(r));
  r.EventHeader.Size = sizeof(EVENT_HEADER);
  r.EventHeader.HeaderType = 0;
  r.EventHeader.Flags = f.flags;
  r.EventHeader.EventProperty = f.event_property;
  r.EventHeader.ThreadId = f.tid;
  r.EventHeader.ProcessId = f.pid;
  r.EventHeader.TimeStamp.QuadPart = f.timestamp;
  r.EventHeader.ProviderId.Data1 = f.provider.data1;
  r.EventHeader.ProviderId.Data2 = f.provider.data2;
  r.EventHeader.ProviderId.Data3 = f.provider.data3;
  memcpy(r.EventHeader.ProviderId.Data4, f.provider.data4, 8);
  r.EventHeader.EventDescriptor.Id = f.id;
  r.EventHeader.EventDescriptor.Version = f.version;
  r.EventHeader.EventDescriptor.Channel = f.channel;
  r.EventHeader.EventDescriptor.Level = f.level;
  r.EventHeader.EventDescriptor.Opcode = f.opcode;
  r.EventHeader.EventDescriptor.Task = f.task;
  r.EventHeader.EventDescriptor.Keyword = f.keyword;
  r.EventHeader.KernelTime = f.kernel_time;
  r.EventHeader.UserTime = f.user_time;
  r.EventHeader.ActivityId.Data1 = f.activity_id.data1;
  r.EventHeader.ActivityId.Data2 = f.activity_id.data2;
  r.EventHeader.ActivityId.Data3 = f.activity_id.data3;
  memcpy(r.EventHeader.ActivityId.Data4, f.activity_id.data4, 8);
  r.BufferContext.ProcessorNumber = (UCHAR)f.cpu;
  for (i = 0; i < f.ext_count; i++) {
    memset(&items[i], 0, sizeof(items[i]));
    items[i].ExtType = f.ext[i].type;
    items[i].DataSize = f.ext[i].size;
    items[i].DataPtr = (ULONGLONG)(uintptr_t)f.ext[i].data;
  }
  r.ExtendedDataCount = f.ext_count;
  r.ExtendedData = f.ext_count ? items : NULL;
  r.UserDataLength = f.user_len;
  r.UserData = (PVOID)f.user_data;
  r.UserContext = open_lf->Context; /* as ETW passes LOGFILE.Context on */
  open_lf->EventRecordCallback(&r);
  fake_rt.delivered++;
  return 0;
}

static ULONG WINAPI fake_process_trace(PTRACEHANDLE handles, ULONG count, LPFILETIME start,
                                       LPFILETIME end)
{
  fake_rt.thread = GetCurrentThreadId();
  if (count != 1 || handles[0] != FAKE_HANDLE || start || end)
    fake_rt.violations++;
  if (fake_rt.sample && fake_trace_foreach(fake_rt.sample, push, NULL) != 0)
    fake_rt.violations++;
  InterlockedExchange(&fake_rt.finished, 1);
  return ERROR_SUCCESS;
}

static ULONG WINAPI fake_close_trace(TRACEHANDLE h)
{
  if (h != FAKE_HANDLE)
    fake_rt.violations++;
  fake_rt.closes++;
  return ERROR_SUCCESS;
}

static void fake_clock_now(int64_t *ft, int64_t *qpc)
{
  *ft = fake_rt.clock_ft;
  *qpc = 0;
}

static const struct consumer_advapi fake_api = { fake_open_trace, fake_process_trace,
                                                 fake_close_trace, fake_clock_now };

void fake_consumer_win32_install(void)
{
  memset(&fake_rt, 0, sizeof(fake_rt));
  open_lf = NULL;
  consumer_win32_set_advapi(&fake_api);
}

void fake_consumer_win32_uninstall(void)
{
  consumer_win32_set_advapi(NULL);
}
