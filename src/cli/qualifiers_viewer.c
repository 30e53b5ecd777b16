/* PerfView's global qualifiers that set up its viewer, symbol lookup or
 * trace analysis.  A collector has none of these, so they are accepted
 * with every command and do nothing: a PerfView command line that carries
 * them runs unchanged, and help says why each does nothing. */
#include "src/cli/qualifiers.h"

static const char viewer[] = "Accepted for PerfView's command lines; no effect: etwcap opens no "
                             "viewer.";
static const char symbols[] = "Accepted for PerfView's command lines; no effect: etwcap resolves "
                              "no symbols (the capture carries image identity, so a viewer on "
                              "another machine does).";
static const char analysis[] = "Accepted for PerfView's command lines; no effect: it changes "
                               "how PerfView's viewer reads a trace, and a capture keeps every "
                               "event.";

static const struct opt_def defs[] = {
  { "NoView", NULL, UNBOUND(OPT_BOOL), NULL, NULL, viewer, 0, 0, NULL },
  { "ShowUnknownAddresses", NULL, UNBOUND(OPT_BOOL), NULL, NULL, viewer, 0, 0, NULL },
  { "ShowOptimizationTiers", NULL, UNBOUND(OPT_BOOL), NULL, NULL, viewer, 0, 0, NULL },
  { "TrustPdbs", NULL, UNBOUND(OPT_BOOL), NULL, NULL, symbols, 0, 0, NULL },
  { "UnsafePDBMatch", NULL, UNBOUND(OPT_BOOL), NULL, NULL, symbols, 0, 0, NULL },
  { "SymbolsAuth", NULL, UNBOUND(OPT_STRING), "TYPES", NULL, symbols, 0, 0, NULL },
  { "KeepAllEvents", NULL, UNBOUND(OPT_BOOL), NULL, NULL, analysis, 0, 0, NULL },
  { "MaxEventCount", NULL, UNBOUND(OPT_INT), "N", NULL, analysis, 0, 0, NULL },
  { "SkipMSec", NULL, UNBOUND(OPT_FLOAT), "MSEC", NULL, analysis, 0, 0, NULL },
  { "StartTime", NULL, UNBOUND(OPT_STRING), "TIME", NULL, analysis, 0, 0, NULL },
  { "EndTime", NULL, UNBOUND(OPT_STRING), "TIME", NULL, analysis, 0, 0, NULL },
  { "ContinueOnError", NULL, UNBOUND(OPT_BOOL), NULL, NULL, analysis, 0, 0, NULL },
  { "SafeMode", NULL, UNBOUND(OPT_BOOL), NULL, NULL,
    "Accepted for PerfView's command lines; no effect: it turns off parallelism in PerfView's "
    "viewer. For a capture on a busy machine, /LowPriority compresses on one thread.",
    0, 0, NULL },
  { "DisableDotNetVersionLogging", NULL, UNBOUND(OPT_BOOL), NULL, NULL,
    "Accepted for PerfView's command lines; no effect: etwcap logs no .NET version "
    "information, so there is nothing to turn off.",
    0, 0, NULL },
  { "RestartingToElevelate", NULL, UNBOUND(OPT_OPTIONAL_STRING), "CMD", NULL,
    "Accepted for PerfView's command lines; no effect: PerfView passes it to itself when it "
    "restarts elevated, and etwcap never restarts itself.",
    0, 0, NULL },
};

const struct opt_group opt_group_viewer =
    OPT_GROUP("PerfView's viewer, symbol and analysis settings (accepted, no effect)", defs);
