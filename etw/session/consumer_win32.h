/* The advapi32 entry points consumer_win32.c calls, as a table of function
 * pointers (the pattern of controller_win32.h).  The product fills it with
 * OpenTraceW/ProcessTrace/CloseTrace and the QPC/system-time pair; the
 * Windows tests put a fake in its place that pushes EVENT_RECORDs built
 * from recorded traces through the real callback, so the unpacking and the
 * conversion are the code under test.  Only *_win32.c files include this. */
#ifndef ETWCAP_CONSUMER_WIN32_H
#define ETWCAP_CONSUMER_WIN32_H

#include "src/base/os/compat_win32.h"

#include <evntcons.h>

#include "etw/session/consumer.h"

struct consumer_advapi {
  TRACEHANDLE(WINAPI *open_trace)(PEVENT_TRACE_LOGFILEW logfile);
  ULONG(WINAPI *process_trace)(PTRACEHANDLE handles, ULONG count, LPFILETIME start,
                               LPFILETIME end);
  ULONG(WINAPI *close_trace)(TRACEHANDLE handle);
  /* The session clock (QPC) and the system time read together, for raw
   * timestamps to UTC. */
  void (*clock_now)(int64_t *filetime, int64_t *qpc);
};

/* Replaces the table every consumer_system() consumer opened from now on
 * uses; NULL puts advapi32's back.  For tests only. */
void consumer_win32_set_advapi(const struct consumer_advapi *api);

/* The EVENT_RECORD callback ProcessTrace calls (exposed so the tests can
 * assert the fake hands it to OpenTraceW). */
void WINAPI consumer_win32_on_event(PEVENT_RECORD record);

#endif
