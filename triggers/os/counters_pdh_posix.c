/* counters_pdh.h off Windows: no PDH, so opening a counter says so. */
#include "triggers/os/counters_pdh.h"

#include "src/base/error.h"

#include <stdio.h>

static int open_none(void *ctx, const struct trigger_counter_spec *spec, void **handle, char *err,
                     size_t cap)
{
  (void)ctx, (void)spec;
  *handle = NULL;
  snprintf(err, cap, "performance counters need Windows (PDH)");
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int read_none(void *ctx, void *handle, int64_t now, double *value)
{
  (void)ctx, (void)handle, (void)now, (void)value;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static void close_none(void *ctx, void *handle)
{
  (void)ctx, (void)handle;
}

struct trigger_counter_source counters_pdh_system(void)
{
  struct trigger_counter_source s = { NULL, open_none, read_none, close_none };
  return s;
}

void counters_pdh_release(struct trigger_counter_source *src)
{
  (void)src;
}
