/* The event-log seam for /StopOnEventLogMessage: a push subscription to one
 * Windows event log (EvtSubscribe in eventlog_win32.c; "needs Windows" in
 * eventlog_posix.c; scripted in tests).  Each new entry of the log comes to
 * the callback as a trigger_message, on a thread of the subscription's own:
 * the caller locks what the callback touches.  PerfView listens the same
 * way (EventLog.EntryWritten, docs/perfview-collection.md §6.3): no polling;
 * the Win32 side is docs/win32-contract.md §13. */
#ifndef ETWCAP_EVENTLOG_H
#define ETWCAP_EVENTLOG_H

#include "triggers/trigger_eventlog.h"

#include <stddef.h>

typedef void (*eventlog_fn)(void *ctx, const struct trigger_message *m);

struct eventlog_source {
  void *ctx;
  /* Subscribes to new entries of `log` ("Application", "System" ...).  0,
   * or ETWCAP_E_* with a message naming the log and the API. */
  int (*open)(void *ctx, const char *log, eventlog_fn fn, void *fn_ctx, void **handle,
              char *err, size_t cap);
  /* Ends the subscription; fn is not called after it returns. */
  void (*close)(void *ctx, void *handle);
};

/* The system's event log (wevtapi.dll, loaded at run time). */
struct eventlog_source eventlog_system(void);

#endif
