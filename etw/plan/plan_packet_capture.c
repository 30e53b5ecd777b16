/* /NetworkCapture and /NetMonCapture in the plan: netsh's file and command
 * line, as PerfView's CommandProcessor Start builds them (see struct
 * plan_packet_capture).  Running netsh is the program's (packet_capture.c);
 * this file only decides what it will be asked. */
#include "etw/plan/plan_internal.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strbuf.h"

#include <string.h>

/* PerfView's values: the InternetClient scenario with packet capture; on
 * Windows 8+ (without /NetMonCapture) also no correlation, no report, a
 * 1 MB file and no performance data merged into it (netsh's
 * "correlation", "report", "maxSize" and "perfMerge" options, Windows
 * Commands "netsh trace"). */
#define NETSH_SCENARIO "InternetClient"
#define NETSH_THROWAWAY_OPTIONS "correlation=no report=disabled maxSize=1 perfMerge=no"

int plan_packet_capture(struct plan *plan, const struct plan_options *o)
{
  struct plan_packet_capture *pc = &plan->packet_capture;
  struct strbuf b = { 0 };
  int rc;
  if (!o->network_capture && !o->netmon_capture)
    return 0;
  pc->on = 1;
  /* Before Windows 8 PerfView keeps netsh's full file even without
   * /NetMonCapture: the throwaway options are Windows 8's. */
  pc->netmon = o->netmon_capture || !plan_at_least(plan, 6, 2, 0);
  pc->trace_file =
      plan_change_extension(plan->data_file, pc->netmon ? "_netmon.etl" : ".netmon.etl");
  if (!pc->trace_file)
    return ETWCAP_E_NOMEM;
  /* netsh reads "traceFile=PATH" in quotes; a quote in the path would end
   * it early, and Windows allows none in a file name anyway. */
  if (strchr(pc->trace_file, '"'))
    return plan_fail(plan, ETWCAP_E_USAGE, "/NetworkCapture: the data file name '%s' has a '\"', "
                     "which netsh's traceFile= cannot carry (and Windows allows in no file "
                     "name)", plan->data_file);
  strbuf_puts(&b, "trace start scenario=" NETSH_SCENARIO " capture=yes ");
  if (!pc->netmon)
    strbuf_puts(&b, NETSH_THROWAWAY_OPTIONS " ");
  strbuf_puts(&b, "\"traceFile=");
  strbuf_puts(&b, pc->trace_file);
  strbuf_puts(&b, "\"");
  if ((rc = strbuf_finish(&b, &pc->start_args)) != 0)
    return rc;
  return plan_note(plan, "%s: 'netsh trace start' turns packet capture on after the sessions "
                   "start and 'netsh trace stop' ends it; the packets are "
                   "Microsoft-Windows-NDIS-PacketCapture events in the merged trace. %s",
                   o->netmon_capture ? "/NetMonCapture" : "/NetworkCapture",
                   pc->netmon ? "netsh's own capture stays beside it for Network Monitor, not "
                                "merged."
                              : "netsh's own file (at most 1 MB) is deleted after the stop.");
}
