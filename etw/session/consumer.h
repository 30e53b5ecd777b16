/* The real-time consumer seam: events of a running session (the trigger
 * session, etwcapTrigger_<pid>) delivered as etw_event, with their UTC time,
 * on a thread of the consumer's own.  consumer_win32.c implements it with
 * OpenTraceW/ProcessTrace/CloseTrace; consumer_posix.c answers "needs
 * Windows"; the portable tests use tests/fakes/fake_consumer.c.
 *
 * The callback runs on the consumer's thread, never on the caller's: what
 * it touches must be locked by the caller (capture_cmd_collect.c holds a
 * mutex around the trigger engine).  It is never called after close
 * returns.
 *
 * Lifetime: struct consumer lives with its user; open allocates what the
 * implementation needs and close frees it. */
#ifndef ETWCAP_CONSUMER_H
#define ETWCAP_CONSUMER_H

#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

/* One event; ev points into the consumer's buffers until it returns. */
typedef void (*consumer_event_fn)(void *ctx, const struct etw_event *ev, int64_t filetime);

/* What the consumer cost, for the log at stop. */
struct consumer_stats {
  uint64_t events;        /* events delivered to the callback */
  double cpu_seconds;     /* CPU time of the consumer's thread (user + kernel) */
  unsigned long end_code; /* ProcessTrace's result (0, or a raw Win32 code) */
};

struct consumer;

struct consumer_ops {
  const char *name; /* "advapi32", "fake", "none" */
  /* Attaches to the real-time session `session` and starts delivering its
   * events to fn on a new thread.  0, or ETWCAP_E_* with the failing API in
   * c->api and its raw code in c->os_code (fn is then never called). */
  int (*open)(struct consumer *c, const char *session, consumer_event_fn fn, void *ctx);
  /* Stops delivering (CloseTrace), waits for the thread to end and frees
   * what open allocated.  Safe to call when open failed or never ran. */
  void (*close)(struct consumer *c, struct consumer_stats *stats);
};

struct consumer {
  const struct consumer_ops *ops;
  void *impl;
  const char *api;        /* the failing call of the last open (static) */
  unsigned long os_code;
};

/* The consumer of this OS: ProcessTrace on Windows, "needs Windows"
 * elsewhere.  Needs no release beyond close. */
void consumer_system(struct consumer *c);

#endif
