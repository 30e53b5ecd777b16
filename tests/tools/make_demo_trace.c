/* make_demo_trace: writes the demo collection etwcap's README main job
 * replays, DIR/DEMO.etl (the CLR session) and DIR/DEMO.kernel.etl (the
 * kernel session), with etwcap's own ETL writer.  Deterministic: fixed
 * seeds, fixed clock.
 *
 * What the run depicts (60 s on a 4-CPU Windows Server 2022 VM, QPC at
 * 10 MHz, both sessions on one clock, the CLR session started 2.5 ms after
 * the kernel one, as `etwcap collect` starts them):
 *   - 0 s: the kernel rundown (9 processes, their threads and images).
 *   - 1 s: services.exe starts OrderService.exe (pid 6412), a .NET 8 worker
 *     service: image loads of the host, the runtime and 24 assemblies,
 *     RuntimeInformation, AppDomainLoad, AssemblyLoad/ModuleLoad, 600
 *     methods jitted at startup, then a tier-1 rejit every 250 ms; four
 *     thread-pool workers; hill-climbing samples every 500 ms.
 *   - steady state: a gen0 GC every ~400 ms (every 8th a gen1), 40
 *     allocation ticks per GC, two background gen2s (15.3 s, 33.8 s) with
 *     foreground GCs inside them, a lock wait a second, a few first-chance
 *     TaskCanceledException / TimeoutException / OperationCanceledException.
 *   - 42.000 s, the symptom: inventory.internal refuses connections.  Each
 *     request throws a SocketException then the HttpRequestException that
 *     wraps it (about 20 a second); retries buffer responses on the LOH,
 *     GCs come every 200 ms, locks are contended, the pool injects workers
 *     (Starvation adjustments).
 *   - 44.5 s: a LOH allocation triggers a blocking gen2; one worker spins
 *     310 ms before the runtime is suspended, then 870 ms of GC
 *     (GC/Start 44.810030 s, GC/Stop 45.680030 s).
 *   - 48 s: the dependency is back; steady state to 60 s, kernel rundown.
 * Kernel side throughout: 1 kHz sampled profile on each CPU, a svchost
 * thread created and ended every 5 s.  Templates: see demo_kernel.c and
 * demo_clr.c (ClrEtwAll.man template per event).
 *
 * Usage: make_demo_trace DIR       writes DIR/DEMO.etl and DIR/DEMO.kernel.etl
 *        make_demo_trace --describe  prints the script's instants (key=value) */
#include "tests/tools/demo_events.h"
#include "tests/tools/demo_script.h"

#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

static void header(struct etl_logfile *h, int kernel)
{
  uint32_t offset = kernel ? 0 : DEMO_USER_START_US;
  memset(h, 0, sizeof(*h));
  h->os_major = 10; /* Windows Server 2022 */
  h->os_minor = 0;
  h->build = 20348;
  h->cpus = DEMO_CPUS;
  h->timer_resolution = 156250;
  h->max_file_size = 500; /* MB: the circular files of `collect /CircularMB:500` */
  h->log_file_mode = ETL_MODE_CIRCULAR | (kernel ? ETL_MODE_SYSTEM_LOGGER : 0);
  h->pointer_size = 8;
  h->cpu_mhz = 2994;
  h->tz_bias = 0;
  snprintf(h->tz_standard_name, sizeof(h->tz_standard_name), "Coordinated Universal Time");
  h->perf_freq = DEMO_PERF_FREQ;
  /* One clock for both files: FILETIME = raw QPC tick + BootTime. */
  h->boot_time = DEMO_START_FILETIME - (int64_t)DEMO_QPC_BASE;
  h->start_time = DEMO_START_FILETIME + 10 * (int64_t)offset;
  h->header_timestamp = DEMO_RAW(offset);
  h->end_time = DEMO_START_FILETIME + 10 * (int64_t)DEMO_RUN_US;
  h->clock_type = ETL_CLOCK_QPC;
  h->header_is_64 = 1;
  snprintf(h->logger_name, sizeof(h->logger_name), "%s", kernel ? "etwcapKernel" : "etwcap");
  snprintf(h->log_file_name, sizeof(h->log_file_name), "C:\\Traces\\%s",
           kernel ? "DEMO.kernel.etl" : "DEMO.etl");
}

static void describe(void)
{
  printf("start_filetime=%lld\n", (long long)DEMO_START_FILETIME);
  printf("qpc_base=%llu\n", (unsigned long long)DEMO_QPC_BASE);
  printf("perf_freq=%lld\n", (long long)DEMO_PERF_FREQ);
  printf("first_http_exception_raw=%llu\n",
         (unsigned long long)DEMO_RAW(DEMO_FIRST_HTTP_EXCEPTION_US));
  printf("long_gc_start_raw=%llu\n", (unsigned long long)DEMO_RAW(DEMO_LONG_GC_START_US));
  printf("long_gc_end_raw=%llu\n", (unsigned long long)DEMO_RAW(DEMO_LONG_GC_END_US));
  printf("long_gc_suspend_end_raw=%llu\n",
         (unsigned long long)DEMO_RAW(DEMO_LONG_GC_SUSPENDED_US));
}

static int write_session(const char *dir, int kernel)
{
  struct demo_session *s = NULL;
  struct etl_logfile h;
  char path[4096];
  int rc = demo_session_new(&s);
  if (!rc)
    rc = kernel ? demo_script_kernel(s) : demo_script_clr(s);
  snprintf(path, sizeof(path), "%s/%s", dir, kernel ? "DEMO.kernel.etl" : "DEMO.etl");
  header(&h, kernel);
  if (!rc) /* the controller (etwcap.exe, pid 5120) logs the header events */
    rc = demo_session_write(s, path, &h, 5120, 5124);
  if (rc)
    fprintf(stderr, "make_demo_trace: %s: %s\n", path, etwcap_strerror(rc));
  else
    printf("%s: %lu events\n", path, (unsigned long)demo_session_count(s));
  demo_session_free(s);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "--describe")) {
    describe();
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: make_demo_trace DIR | make_demo_trace --describe\n");
    return 2;
  }
  if (write_session(argv[1], 1) || write_session(argv[1], 0))
    return 1;
  return 0;
}
