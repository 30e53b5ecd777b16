/* What the selftest's workload asks of Windows, as a table of operations,
 * so the portable sequence (selftest_workload.c) is tested with a fake and
 * the Win32 side (selftest_os_win32.c) on its own under Wine.  Elsewhere
 * (selftest_os_posix.c) every operation answers ETWCAP_E_NEEDS_WINDOWS.
 *
 * Lifetime: the table and its ctx live as long as their user; the
 * TraceLogging provider lives from tl_register to tl_unregister. */
#ifndef ETWCAP_SELFTEST_OS_H
#define ETWCAP_SELFTEST_OS_H

#include "etw/event/guid.h"
#include "src/selftest/selftest_tl.h"

#include <stddef.h>
#include <stdint.h>

/* The hidden command the child process runs (`etwcap selftestChild`). */
#define SELFTEST_CHILD_COMMAND "selftestChild"
/* A DLL every Windows has (Server Core and Nano Server included) that
 * etwcap does not load itself, loaded by full path from the system folder. */
#define SELFTEST_DLL "version.dll"
#define SELFTEST_CHILD_WAIT_MS 30000u
/* How long the .NET child may take to start and run its managed code. */
#define SELFTEST_DOTNET_READY_MS 30000u
/* A bound on its life should nobody end it. */
#define SELFTEST_DOTNET_LIFE_SEC 300u

/* The thread that spun, for the samples-per-CPU-second check. */
struct selftest_spin {
  uint32_t tid;
  int cpu_known;      /* the CPU time was measured (it may be 0) */
  uint64_t cpu_100ns;
};

struct selftest_os {
  void *ctx;
  /* Starts this program's SELFTEST_CHILD_COMMAND with no window and waits
   * up to SELFTEST_CHILD_WAIT_MS for it: 0 with its pid and exit code, or
   * ETWCAP_E_* with why. */
  int (*run_child)(void *ctx, uint32_t *pid, int *exit_code, char *why, size_t why_size);
  /* Starts a managed (.NET) process that runs managed code, says so, and
   * stays running until stop_dotnet (the CLR rundown at the capture's stop
   * names the methods of live processes only): 0 with its pid and what it
   * is; ETWCAP_E_NOENT when this host has no .NET runtime (why says what
   * was looked for); another ETWCAP_E_* with why. */
  int (*start_dotnet)(void *ctx, uint32_t *pid, char *what, size_t what_size, char *why,
                      size_t why_size);
  /* Ends what start_dotnet started, if it runs. */
  void (*stop_dotnet)(void *ctx);
  /* Loads SELFTEST_DLL by its full path and frees it: 0 with the path. */
  int (*load_dll)(void *ctx, char *path, size_t path_size, char *why, size_t why_size);
  /* Two threads hand a token to each other `rounds` times (context
   * switches, each wake-up a ReadyThread), then the calling thread spins
   * `spin_ms` on the CPU (CPU samples); *spin gets its id and the CPU time
   * the spin took (GetThreadTimes, kernel + user) with cpu_known set, or
   * cpu_known 0 when it could not be measured. */
  int (*switch_threads)(void *ctx, unsigned rounds, unsigned spin_ms,
                        struct selftest_spin *spin);
  /* The TraceLogging provider: EventRegister; each event with
   * EventWriteTransfer (traits, event metadata, payload); EventUnregister. */
  int (*tl_register)(void *ctx, const struct etw_guid *provider);
  int (*tl_write)(void *ctx, const struct selftest_tl_event *e);
  void (*tl_unregister)(void *ctx);
};

/* The operations of this OS. */
void selftest_os_system(struct selftest_os *os);

#endif
