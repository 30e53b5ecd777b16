/* PerfView's default user-mode providers (CommandProcessor Start,
 * docs/perfview-collection.md §4.7): the same names, GUIDs, levels,
 * keywords and stacks, in the same order. */
#include "etw/plan/plan_internal.h"

#include "etw/event/keywords.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

#define ADD(name, level, any, stacks)                                                   \
  do {                                                                                  \
    if ((rc = plan_add_known(s, name, level, any, stacks, d)) != 0)                     \
      return rc;                                                                        \
  } while (0)

/* PerfView's default list and the CLR block, which /Wpr replaces. */
static int clr_and_defaults(struct plan_session *s, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  const char *d = "default";
  uint64_t clr = st->clr;
  int rc = 0;
  if (clr && (clr & KW_CLR_CORE) == KW_CLR_CORE) {
    ADD("DotNet", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-Kernel-EventTracing", LEVEL_VERBOSE, 0x70, 1);
    if (!(st->kernel & KW_KERNEL_FILEIOINIT))
      ADD("Microsoft-Windows-Kernel-File", LEVEL_VERBOSE, 0x80, 1);
    ADD("Microsoft-Windows-Kernel-Process", LEVEL_INFORMATIONAL, 0x10, 1);
    ADD("ASP.NET", st->clr_level, 0xFFFFFFFFFFFFFFFDull, 0);
    ADD("Microsoft-Windows-ASPNET", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-IIS", LEVEL_CRITICAL, 0, 0);
    ADD("Microsoft-PerfTrack-IEFRAME", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-PerfTrack-MSHTML", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-WinINet", LEVEL_VERBOSE, 0x2, 0);
    ADD("Microsoft-Windows-Application Server-Applications", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-IE", LEVEL_INFORMATIONAL, 0x1300, 0);
    ADD("Microsoft-Windows-DNS-Client", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-DirectComposition", LEVEL_VERBOSE, 0x4, 0);
    ADD("Microsoft-Windows-Immersive-Shell", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-XAML", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-JScript", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-DotNETRuntimePrivate", LEVEL_INFORMATIONAL, 0x4002000B, 0);
    ADD("ClrNativePrivate", LEVEL_INFORMATIONAL, 0x4002000B, 0);
    if (st->tpl) {
      struct plan_provider *p;
      ADD(".NetTasks", st->clr_level, st->tpl, 0);
      p = &s->providers[s->provider_count - 1];
      if (os_version_cmp(&o->os, 10, 0, 16299) >= 0) {
        /* Stacks only for the task-scheduling events 7, 10 and 12. */
        p->stack_events.present = 1;
        p->stack_events.filter_in = 1;
        p->stack_events.ids[0] = 7;
        p->stack_events.ids[1] = 10;
        p->stack_events.ids[2] = 12;
        p->stack_events.count = 3;
      }
    }
    ADD(".NetFramework", st->clr_level, 0x16, 1);
    ADD("Microsoft.Tasks.Nuget", LEVEL_INFORMATIONAL, 0x80, 0);
    ADD("Microsoft-AdoNet-SystemData", LEVEL_INFORMATIONAL, 0x1, 1);
    ADD("ETWCLrProfiler Diagnostics", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Diagnostics-DiagnosticSource", LEVEL_INFORMATIONAL, 0xFFFFFFFFFFFFF7FFull, 1);
    {
      struct plan_provider *p = &s->providers[s->provider_count - 1];
      static const char spec[] =
          "HttpHandlerDiagnosticListener/System.Net.Http.Request@Activity2Start:Request.RequestUri\n"
          "HttpHandlerDiagnosticListener/System.Net.Http.Response@Activity2Stop:Response.StatusCode";
      p->args = etwcap_calloc(1, sizeof(*p->args));
      if (!p->args)
        return ETWCAP_E_NOMEM;
      p->arg_count = 1;
      p->args[0].key = etwcap_strdup("FilterAndPayloadSpecs");
      p->args[0].value = etwcap_strdup(spec);
      if (!p->args[0].key || !p->args[0].value)
        return ETWCAP_E_NOMEM;
    }
    ADD("Microsoft-AspNetCore-Hosting", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-ApplicationInsights-Core", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 1);
    ADD("Microsoft-Windows-Kernel-Power", LEVEL_INFORMATIONAL, 0xFFB, 0);
    ADD("Microsoft-Windows-Kernel-Processor-Power", LEVEL_INFORMATIONAL, 0xE5D, 0);
    ADD("Microsoft-Windows-PowerCpl", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-PowerCfg", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    if ((st->kernel & KW_KERNEL_CONTEXTSWITCH) && (st->kernel & KW_KERNEL_DISPATCHER)) {
      d = "ThreadTime";
      ADD("Microsoft-Antimalware-Engine", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 1);
      ADD("Microsoft-Antimalware-AMFilter", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 1);
      ADD("Microsoft-Antimalware-Service", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Antimalware-RTP", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Antimalware-Protection", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-HttpService", st->clr_level, PLAN_ALL_KEYWORDS, 1);
      ADD("Microsoft-Windows-TCPIP", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 1);
      ADD("Microsoft-Windows-NDIS-PacketCapture", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WebIO", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WinINet", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-WinHttp", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("Microsoft-Windows-RPC", LEVEL_INFORMATIONAL, 0, 0);
      d = "default";
    }
  } else if (clr & KW_CLR_GC) {
    ADD("Microsoft-Windows-DotNETRuntimePrivate", LEVEL_INFORMATIONAL, KW_CLR_GC, 0);
    ADD("ClrNativePrivate", LEVEL_INFORMATIONAL, KW_CLR_GC, 0);
  }
  if (clr) {
    if (st->kernel & KW_KERNEL_REFERENCESET)
      ADD("Win32HeapRanges", LEVEL_VERBOSE, 0, 0);
    if (!o->gc_only && !o->gc_collect_only) {
      ADD("MeasurementBlock", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
      ADD("CodeMarkers", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
    }
    d = "ClrEvents";
    ADD("Microsoft-Windows-DotNETRuntime", st->clr_level, st->clr_enabled, 0);
    ADD("ClrNative", st->clr_level, st->clr_enabled,
        (st->clr_enabled & KW_CLR_GC) && st->clr_level >= LEVEL_VERBOSE);
  }
  return 0;
}

/* Appends the defaults to the user session; `st` says which apply. */
int plan_default_providers(struct plan *plan, struct plan_session *s, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  const char *d = "default";
  int rc = 0;

  ADD("PerfView", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
  /* etwcap's own provider, as PerfView enables its PerfViewLogger: `mark`
   * and /MonitorPerfCounter write into the capture through it. */
  ADD("etwcap", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 0);
  rc = o->wpr ? plan_wpr_providers(plan, s) : clr_and_defaults(s, st);
  if (rc)
    return rc;
  if (o->gc_only && !o->provider_count)
    ADD("Microsoft-Windows-Kernel-Memory", LEVEL_VERBOSE, 0x60, 0);
  if (o->user_crit_contention) {
    d = "UserCritContention";
    ADD("Microsoft-Windows-Win32k", LEVEL_VERBOSE, 0x10000000, 0);
  }
  if (o->network_capture || o->netmon_capture) {
    /* The packets themselves, once netsh has turned capture on
     * (plan_packet_capture.c). */
    d = o->netmon_capture ? "NetMonCapture" : "NetworkCapture";
    ADD("Microsoft-Windows-NDIS-PacketCapture", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 0);
    ADD("Microsoft-Windows-TCPIP", LEVEL_INFORMATIONAL, PLAN_ALL_KEYWORDS, 1);
  }
  if (o->ccw_refcount) {
    d = "CCWRefCount";
    ADD("InteropEventProvider", LEVEL_VERBOSE, PLAN_ALL_KEYWORDS, 1);
  }
#undef ADD
  return 0;
}
