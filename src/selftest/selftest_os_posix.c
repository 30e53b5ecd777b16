/* The selftest's workload off Windows: nothing to do (selftest_os.h). */
#include "src/selftest/selftest_os.h"

#include "src/base/error.h"

#include <stdio.h>

static int no_child(void *ctx, uint32_t *pid, int *exit_code, char *why, size_t why_size)
{
  (void)ctx;
  *pid = 0;
  *exit_code = -1;
  snprintf(why, why_size, "needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int no_dotnet(void *ctx, uint32_t *pid, char *what, size_t what_size, char *why,
                     size_t why_size)
{
  (void)ctx;
  *pid = 0;
  if (what_size)
    what[0] = '\0';
  snprintf(why, why_size, "needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

static void no_stop(void *ctx)
{
  (void)ctx;
}

static int no_dll(void *ctx, char *path, size_t path_size, char *why, size_t why_size)
{
  (void)ctx;
  if (path_size)
    path[0] = '\0';
  snprintf(why, why_size, "needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int no_threads(void *ctx, unsigned rounds, unsigned spin_ms,
                      struct selftest_spin *spin)
{
  (void)ctx;
  (void)rounds;
  (void)spin_ms;
  (void)spin;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int no_register(void *ctx, const struct etw_guid *provider)
{
  (void)ctx;
  (void)provider;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int no_write(void *ctx, const struct selftest_tl_event *e)
{
  (void)ctx;
  (void)e;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static void no_unregister(void *ctx)
{
  (void)ctx;
}

void selftest_os_system(struct selftest_os *os)
{
  os->ctx = NULL;
  os->run_child = no_child;
  os->start_dotnet = no_dotnet;
  os->stop_dotnet = no_stop;
  os->load_dll = no_dll;
  os->switch_threads = no_threads;
  os->tl_register = no_register;
  os->tl_write = no_write;
  os->tl_unregister = no_unregister;
}
