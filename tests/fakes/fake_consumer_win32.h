/* A fake of advapi32's consumer calls (OpenTraceW, ProcessTrace,
 * CloseTrace) and of the clock pair, for consumer_win32.c's table under
 * Wine (whose real-time ETW delivers nothing).  OpenTraceW records and
 * checks the EVENT_TRACE_LOGFILEW; ProcessTrace (on the consumer's thread)
 * turns each EVENT_HEADER event of a recorded trace into the EVENT_RECORD
 * real-time ETW would deliver and calls the LOGFILE's callback with it, so
 * consumer_win32.c's unpacking and conversion are the code under test.
 * The clock pair puts raw 0 at `clock_ft`, so an event's time is
 * clock_ft + its raw timestamp on the trace's QPC clock. */
#ifndef ETWCAP_FAKE_CONSUMER_WIN32_H
#define ETWCAP_FAKE_CONSUMER_WIN32_H

#include "etw/session/consumer_win32.h"

#include <stdint.h>

struct fake_rt {
  const char *sample;     /* the trace ProcessTrace delivers (NULL: none) */
  int64_t clock_ft;       /* FILETIME of raw 0 */
  uint64_t perf_freq;     /* what OpenTraceW reports (the trace's) */
  DWORD open_error;       /* OpenTraceW fails with this, or 0 */
  /* recorded */
  wchar_t logger[128];
  ULONG mode;
  int callback_is_ours;
  DWORD thread;           /* ProcessTrace's thread */
  unsigned opens, closes, delivered;
  int violations;         /* ProcessTrace/CloseTrace called with a foreign handle */
  volatile LONG finished; /* ProcessTrace has delivered the whole trace */
};

/* The fake's state (one per process: the table has no context). */
extern struct fake_rt fake_rt;

/* Resets fake_rt and installs the fake in consumer_win32. */
void fake_consumer_win32_install(void);
void fake_consumer_win32_uninstall(void);

#endif
