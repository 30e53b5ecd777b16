/* Parsers of the trigger spec strings, PerfView's syntax first
 * (docs/perfview-collection.md §3.4, §6): "CATEGORY:COUNTER:INSTANCE OP NUM",
 * "PROVIDER/EVENT;key=value;...", etwcap's /StopOnGCEvent, /StopOnEventCounter
 * and /StopOnHttpStatus forms, and "[LOG@]REGEX".  Every error message names
 * the spec and the 1-based character position where it went wrong, and
 * says what was expected.  Pure except for regex compilation (PCRE2). */
#ifndef ETWCAP_TRIGGER_SPEC_H
#define ETWCAP_TRIGGER_SPEC_H

#include "etw/event/builtin_events.h"
#include "etw/event/etw_event.h"
#include "triggers/trigger_regex.h"

#include <stddef.h>
#include <stdint.h>

#define TRIGGER_NAME_MAX 256

/* --- performance counters ------------------------------------------------ */
struct trigger_counter_spec {
  char category[TRIGGER_NAME_MAX];
  char counter[TRIGGER_NAME_MAX];
  char instance[TRIGGER_NAME_MAX]; /* "" for counters without instances */
  int greater;                  /* '>' (else '<') */
  double threshold;
};

int trigger_parse_counter_spec(const char *text, struct trigger_counter_spec *out, char *err,
                               size_t cap);

/* /MonitorPerfCounter: a counter whose value is logged into the trace
 * every interval (PerfView's PerformanceCounterMonitor, Triggers.cs).  The
 * path reads as in the triggers above; the interval defaults to 2 s and is
 * rounded up to 0.1 s, as PerfView does. */
#define TRIGGER_MONITOR_DEFAULT_SEC 2.0
#define TRIGGER_MONITOR_MIN_SEC 0.1

struct trigger_monitor_spec {
  struct trigger_counter_spec counter; /* no threshold */
  double interval_sec;
  int rounded_up; /* the interval given was below the minimum */
};

int trigger_parse_monitor_spec(const char *text, struct trigger_monitor_spec *out, char *err,
                               size_t cap);

/* --- ETW events ------------------------------------------------------------ */
enum trigger_ref_kind {
  REF_NONE,
  REF_ID,      /* EventID(n) */
  REF_BUILTIN, /* a name from the built-in tables */
  REF_NAME     /* a TraceLogging event name, matched against each event's schema */
};

struct trigger_event_ref {
  enum trigger_ref_kind kind;
  uint16_t id;
  const struct bi_event *bi;
  char name[TRIGGER_NAME_MAX];
};

enum trigger_filter_op { FOP_LT, FOP_LE, FOP_GT, FOP_GE, FOP_EQ, FOP_NE, FOP_MATCH };

struct trigger_field_filter {
  char field[TRIGGER_NAME_MAX];
  enum trigger_filter_op op;
  char value[TRIGGER_NAME_MAX];
  int numeric; /* value parsed as a number */
  double number;
  struct trigger_regex re; /* FOP_MATCH: case-insensitive */
};

#define TRIGGER_MAX_FILTERS 8

enum trigger_ssid { SSID_DEFAULT, SSID_THREAD, SSID_ACTIVITY, SSID_FIELD };

struct trigger_etw_spec {
  struct etw_guid provider;
  char provider_name[TRIGGER_NAME_MAX];
  enum bi_provider bi; /* the built-in table of the provider, or BI_NONE */
  struct trigger_event_ref start, stop;
  uint64_t keywords; /* MatchAnyKeyword; all bits by default */
  uint8_t level;     /* Informational by default */
  char process[TRIGGER_NAME_MAX]; /* "" = any */
  struct trigger_field_filter filters[TRIGGER_MAX_FILTERS];
  size_t filter_count;
  int64_t trigger_msec; /* 0 = fire on the event itself */
  double decay_hours;
  enum trigger_ssid ssid;
  char ssid_field[TRIGGER_NAME_MAX];
  int verbose;
};

/* Parses "PROVIDER/EVENT[;key=value]*".  Keys (any case): Keywords, Level,
 * Process, FieldFilter (repeatable), TriggerMSec, DecayToZeroHours,
 * StopEvent, StartStopID, Verbose.  The provider is a GUID, *EventSourceName,
 * a provider etwcap knows by name, or the kernel ("Windows Kernel").  Event
 * names of providers with a built-in table must be in it; for others only
 * EventID(n) and TraceLogging event names are possible.  On success release
 * with trigger_etw_spec_release (regexes). */
int trigger_parse_etw_spec(const char *text, struct trigger_etw_spec *out, char *err, size_t cap);
void trigger_etw_spec_release(struct trigger_etw_spec *s);

/* Parses an event name of a provider into a reference (used for the start
 * and StopEvent names).  Returns 0 or -1 with a message (no position). */
int trigger_parse_event_ref(enum bi_provider bi, const char *name, struct trigger_event_ref *out,
                            char *err, size_t cap);

/* --- /StopOnGCEvent -------------------------------------------------------- */
#define GCE_GEN2 1u
#define GCE_INDUCED 2u

struct trigger_gc_spec {
  unsigned conditions;     /* GCE_* that the GC/Start must meet */
  int64_t over_msec;       /* > 0: GC/Start..GC/Stop longer than this */
  int64_t suspend_over_msec; /* > 0: SuspendEEStart..SuspendEEStop longer */
  char process[TRIGGER_NAME_MAX];
};

/* "" or "Gen2" | "Induced" | "OverMsec=N" | "SuspendOverMsec=N" |
 * "Process=NAME|PID", joined with ';' (all must hold).  Empty = Gen2. */
int trigger_parse_gc_spec(const char *text, struct trigger_gc_spec *out, char *err, size_t cap);

/* --- /StopOnEventCounter --------------------------------------------------- */
struct trigger_evcounter_spec {
  struct etw_guid provider;
  char source[TRIGGER_NAME_MAX];
  char counter[TRIGGER_NAME_MAX];
  int greater;
  double threshold;
};

/* "SOURCE:COUNTER OP NUM", e.g. "System.Runtime:gc-heap-size>500". */
int trigger_parse_evcounter_spec(const char *text, struct trigger_evcounter_spec *out, char *err,
                                 size_t cap);

/* --- /StopOnHttpStatus ----------------------------------------------------- */
#define TRIGGER_MAX_STATUS_RANGES 16

struct trigger_http_spec {
  struct { int lo, hi; } ranges[TRIGGER_MAX_STATUS_RANGES];
  size_t count;
};

/* How several codes are given: the parser's message and the qualifier's
 * help (src/cli/qualifiers_triggers.c) both say it with this text, so they
 * cannot drift apart.  PerfView has no /StopOnHttpStatus (it is etwcap's
 * own), so the separators are simply the two the parser takes. */
#define TRIGGER_HTTP_JOINED "several joined with ',' or ';'"

/* "503", "5xx", "500-599", TRIGGER_HTTP_JOINED. */
int trigger_parse_http_spec(const char *text, struct trigger_http_spec *out, char *err, size_t cap);
int trigger_http_match(const struct trigger_http_spec *s, int status);

/* --- /StopOnEventLogMessage ------------------------------------------------ */
struct trigger_eventlog_spec {
  char log[TRIGGER_NAME_MAX]; /* "Application" by default */
  size_t pattern_at;          /* where REGEX begins in the spec text */
  struct trigger_regex re;    /* case-insensitive */
};

/* "[LOG@]REGEX" (PerfView: LOG is letters, digits, '_' and spaces). */
int trigger_parse_eventlog_spec(const char *text, struct trigger_eventlog_spec *out, char *err,
                                size_t cap);
void trigger_eventlog_spec_release(struct trigger_eventlog_spec *s);

/* --- /StopOnException -------------------------------------------------------- */
int trigger_parse_exception_regex(const char *text, struct trigger_regex *out, char *err,
                                  size_t cap);

/* --- /Process (and Process=) --------------------------------------------------- */
/* 1 and *pid when text is a decimal process id. */
int trigger_process_is_pid(const char *text, uint32_t *pid);

#endif
