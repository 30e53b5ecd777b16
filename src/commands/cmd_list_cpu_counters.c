/* `etwcap ListCpuCounters`: the machine's hardware counter (PMC) profile
 * sources, the names /CpuCounters takes, as PerfView's ListCpuCounters
 * prints them (CommandProcessor.ListCpuCounters): name, id, current
 * interval, minimum and maximum.  The reading is the controller's. */
#include "etw/session/controller.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"

#include <stdio.h>

static const struct opt_group *const groups[] = { NULL };

static int run_list_cpu_counters(const struct cli *cli)
{
  struct controller ctl;
  struct plan_machine_source sources[PLAN_MAX_MACHINE_SOURCES];
  char detail[160];
  size_t i, count = 0;
  int rc;
  (void)cli;
  controller_system(&ctl);
  rc = ctl.ops->query_profile_sources(&ctl, sources, PLAN_MAX_MACHINE_SOURCES, &count);
  if (rc) {
    log_error("cannot list this machine's CPU counters (%s): %s. Profile sources need "
              "Windows 8 or later.",
              controller_error_text(&ctl, detail, sizeof(detail)), etwcap_strerror(rc));
    return rc;
  }
  printf("%-30s %4s %9s %9s %11s\n", "Source Name", "ID", "Current", "MinVal", "MaxValue");
  for (i = 0; i < count; i++)
    printf("%-30s %4lu %9lu %9lu %11lu\n", sources[i].name, (unsigned long)sources[i].id,
           (unsigned long)sources[i].interval, (unsigned long)sources[i].min_interval,
           (unsigned long)sources[i].max_interval);
  printf("\n%lu profile sources. /CpuCounters:NAME:COUNT samples one every COUNT events "
         "(COUNT between MinVal and MaxValue).\n",
         (unsigned long)count);
  return fflush(stdout) == 0 ? 0 : ETWCAP_E_IO;
}

const struct command cmd_list_cpu_counters = {
  "ListCpuCounters", run_list_cpu_counters, CMD_NEEDS_WINDOWS, NULL, 0, 0,
  "List the hardware CPU counters (profile sources) /CpuCounters can sample.",
  "Lists this machine's profile sources as Windows reports them (TraceQueryInformation "
  "TraceProfileSourceListInfo): the name /CpuCounters takes, its id, the current sampling "
  "interval (events per sample, TraceSampledProfileIntervalInfo) and the smallest and largest "
  "interval allowed. Windows 8 or later. Checked only against a "
  "model of the documented API, not on a real Windows yet.",
  groups,
};
