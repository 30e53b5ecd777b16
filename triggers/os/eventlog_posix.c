/* eventlog.h off Windows: there is no event log to subscribe to. */
#include "triggers/os/eventlog.h"

#include "src/base/error.h"

#include <stdio.h>

static int open_none(void *ctx, const char *log, eventlog_fn fn, void *fn_ctx, void **handle,
                     char *err, size_t cap)
{
  (void)ctx, (void)fn, (void)fn_ctx;
  *handle = NULL;
  snprintf(err, cap, "the '%s' event log: event logs need Windows", log);
  return ETWCAP_E_NEEDS_WINDOWS;
}

static void close_none(void *ctx, void *handle)
{
  (void)ctx, (void)handle;
}

struct eventlog_source eventlog_system(void)
{
  struct eventlog_source s = { NULL, open_none, close_none };
  return s;
}
