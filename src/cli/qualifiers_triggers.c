/* Trigger qualifiers (docs/perfview-collection.md §3.4, §6), shared by
 * collect, plan and replay.  What each does is implemented in triggers/ (see
 * trigger_engine.h); the help here says it in a line. */
#include "src/cli/qualifiers.h"

#include "triggers/trigger_spec.h"

static const struct opt_def defs[] = {
  { "StopOnPerfCounter", NULL, BIND_LIST(triggers.stop_on_perf_counter, triggers.stop_on_perf_counter_count), "CAT:CTR:INST OP NUM", NULL,
    "Stop when a performance counter passes a threshold, e.g. "
    "\"Processor:% Processor Time:_Total > 90\" (OP is < or >; INST may be empty). It must "
    "first be on the other side for /MinSecForTrigger, then past the threshold for as long. "
    "Several are ORed.",
    0, 0, NULL },
  { "StartOnPerfCounter", NULL, BIND_LIST(triggers.start_on_perf_counter, triggers.start_on_perf_counter_count), "CAT:CTR:INST OP NUM", NULL,
    "Start collecting only once a counter passes a threshold (same syntax and arming as "
    "/StopOnPerfCounter, no decay).",
    0, 0, NULL },
  { "MinSecForTrigger", NULL, BIND_INT(triggers.min_sec_for_trigger), "SEC", NULL,
    "Seconds a counter must stay on one side of its threshold, to arm and then to fire.", 0,
    86400, NULL },
  { "DecayToZeroHours", NULL, BIND_FLOAT(triggers.decay_to_zero_hours), "HOURS", NULL,
    "Counter and duration (*OverMsec, TriggerMSec) thresholds decay linearly to zero over "
    "this many hours, so a long capture eventually stops on its worst case.",
    0, 24 * 365 * 10, NULL },
  { "TriggerPollMSec", NULL, BIND_INT(triggers.trigger_poll_msec), "MSEC", NULL,
    "How often counters are sampled (PerfView's is fixed at one second); also the "
    "EventCounterIntervalSec asked of EventSources for /StopOnEventCounter.",
    10, 3600000, NULL },
  { "StopOnEtwEvent", NULL, BIND_LIST(triggers.stop_on_etw_event, triggers.stop_on_etw_event_count), "PROVIDER/EVENT;key=value", NULL,
    "Stop on an ETW event: PROVIDER is a name, GUID or *EventSource; EVENT is Task/Opcode "
    "(GC/Start), an EventSource's event (named by its manifest) or TraceLogging event name, "
    "or EventID(n); keys Keywords, Level, Process, "
    "FieldFilter=FIELD(<,<=,>,>=,=,!=,~)VALUE, and TriggerMSec=N with StopEvent, StartStopID "
    "and DecayToZeroHours for a start/stop duration over N ms.",
    0, 0, NULL },
  { "StopOnGCOverMsec", NULL, BIND_INT(triggers.stop_on_gc_over_msec), "MSEC", NULL,
    "Stop when a non-background GC (GC/Start to GC/Stop) takes longer than MSEC.", 1,
    86400000, NULL },
  { "StopOnGCSuspendOverMSec", NULL, BIND_INT(triggers.stop_on_gc_suspend_over_msec), "MSEC", NULL,
    "Stop when suspending the runtime for a GC (GC/SuspendEEStart to SuspendEEStop on one "
    "thread) takes longer than MSEC.",
    1, 86400000, NULL },
  { "StopOnBGCFinalPauseOverMsec", NULL, BIND_INT(triggers.stop_on_bgc_final_pause_over_msec), "MSEC", NULL,
    "Stop when a background GC's final pause (SuspendEEStart for GC prep to RestartEEStop) "
    "takes longer than MSEC.",
    1, 86400000, NULL },
  { "StopOnGen2GC", NULL, BIND_BOOL(triggers.stop_on_gen2_gc), NULL, NULL,
    "Stop on a blocking generation-2 GC (GC/Start with Depth 2, not a background GC).", 0, 0,
    NULL },
  { "StopOnGCEvent", NULL, BIND_OPTIONAL_STRING(triggers.stop_on_gc_event), "Gen2;Induced;OverMsec=N;SuspendOverMsec=N;Process=P",
    NULL,
    "etwcap's one switch for the GC triggers (PerfView has none by this name): the conditions "
    "given, joined with ';', must all hold for one GC; /StopOnGCEvent alone means a blocking "
    "gen2 GC. SuspendOverMsec stands alone.",
    0, 0, NULL },
  { "StopOnException", NULL, BIND_STRING(triggers.stop_on_exception), "REGEX", NULL,
    "Stop on a .NET exception (CLR Exception/Start) whose \"Type: Message\" matches REGEX "
    "(case-sensitive, anywhere in the text); an empty REGEX (/StopOnException:) matches any.",
    0, 0, NULL },
  { "StopOnEventLogMessage", NULL, BIND_STRING(triggers.stop_on_event_log_message), "[LOG@]REGEX", NULL,
    "Stop when an event-log entry's \"HH:MM: Type: T EventId: N Message: M\" matches REGEX "
    "(case-insensitive; log Application by default).",
    0, 0, NULL },
  { "StopOnRequestOverMsec", NULL, BIND_INT(triggers.stop_on_request_over_msec), "MSEC", NULL,
    "Stop when an IIS request (Microsoft-Windows-IIS EventID 1 to 2) takes longer than MSEC.", 1,
    86400000, NULL },
  { "StopOnEventCounter", NULL, BIND_LIST(triggers.stop_on_event_counter, triggers.stop_on_event_counter_count), "SOURCE:COUNTER OP NUM", NULL,
    "Stop when a .NET EventCounter of an EventSource passes a threshold, e.g. "
    "System.Runtime:gc-heap-size>500 (its Mean, or Increment for rate counters).",
    0, 0, NULL },
  { "StopOnHttpStatus", NULL, BIND_STRING(triggers.stop_on_http_status), "CODE|Nxx|LO-HI", NULL,
    "Stop when System.Net.Http receives a response with this status, e.g. 503, 5xx or "
    "500-504, " TRIGGER_HTTP_JOINED " (its ResponseHeadersStop event, .NET 7 and "
    "later).",
    0, 0, NULL },
  { "Process", NULL, BIND_STRING(triggers.process), "PID|NAME", NULL,
    "Only events of this process fire the event triggers: a process id, or an exe name as the "
    "kernel's process events give it (with or without .exe).",
    1, 0, NULL },
  { "DelayAfterTriggerSec", NULL, BIND_INT(triggers.delay_after_trigger_sec), "SEC", NULL,
    "Keep collecting this long after a stop trigger fires.", 0, 86400, NULL },
  { "CollectMultiple", NULL, BIND_INT(triggers.collect_multiple), "N", NULL,
    "After a trigger, start again, N captures in all (NAME.1.etl.zip, NAME.2.etl.zip, ...).",
    0, 100000, NULL },
  { "StopCommand", NULL, BIND_STRING(triggers.stop_command), "CMD", NULL,
    "Run CMD after the capture is written (%OUTPUTDIR% and %OUTPUTBASENAME% are replaced).", 0,
    0, NULL },
  { "StopOnAppFabricOverMsec", NULL, UNBOUND(OPT_INT), NULL, NULL, NULL, 0, 0,
    "AppFabric is retired; use /StopOnEtwEvent with its provider if you still need it." },
  { "MonitorPerfCounter", NULL, BIND_LIST(monitor_perf_counter, monitor_perf_counter_count),
    "CAT:CTR:INST[@SEC],...", NULL,
    "Log a performance counter's value into the trace every SEC seconds (2 when left out, at "
    "least 0.1) while "
    "collect or run collects: etwcap/PerformanceCounterUpdate events (Category, Counter, "
    "Instance, Value) of etwcap's own provider, which PerfView's events view and TraceEvent "
    "decode (PerfView writes PerfView/PerformanceCounterUpdate). The path reads as in "
    "/StopOnPerfCounter (an instance may hold ':'); a counter that does not exist is an "
    "error, an instance that does not exist yet logs nothing until it does. Read through "
    "PDH; checked only against a model of PDH and of the event-write calls, not yet on a "
    "real Windows.",
    0, 0, NULL },
};

const struct opt_group opt_group_triggers = OPT_GROUP("Triggers", defs);
