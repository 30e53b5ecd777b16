/* The trigger spec parsers: what each syntax accepts (PerfView's forms and
 * etwcap's), and that every bad spec is an error naming the position and
 * what was expected; regex edge cases; /CollectMultiple file names;
 * /StopCommand substitution; the providers the trigger session needs. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/strutil.h"
#include "src/cli/qualifiers.h"
#include "src/finish/replay_window.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_output.h"
#include "triggers/trigger_plan.h"
#include "triggers/trigger_spec.h"

#include <stdio.h>
#include <string.h>

static char err[1024];

/* err must hold "position N" and the words. */
static void expect_error_at(const char *what, unsigned pos, const char *words)
{
  char want[32];
  snprintf(want, sizeof(want), "position %u:", pos);
  if (!strstr(err, want) || (words && !strstr(err, words)))
    fail_msg("%s: got \"%s\", want \"%s\" and \"%s\"", what, err, want, words ? words : "");
}

static void counter_specs(void **state)
{
  struct trigger_counter_spec s;
  static const struct {
    const char *text;
    unsigned pos;
    const char *words;
  } bad[] = {
    { "Processor:% Processor Time:_Total 90", 37, "expected '<' or '>'" },
    { "Processor:% Processor Time:_Total > ninety", 37, "expected a number after '>'" },
    { "Processor:% Processor Time:_Total > 90 %", 40, "unexpected '%'" },
    { "Processor % Processor Time > 90", 27, "two ':'" },
    { "Processor:% Processor Time > 90", 10, "two ':'" },
    { ":Ctr:Inst > 1", 1, "CATEGORY is empty" },
    { "Cat::Inst > 1", 5, "COUNTER is empty" },
    { "Cat:Ctr:Inst >= 1", 14, "'>=' is not an operator" },
    /* PerfView reads these as the instance "_Total >" or "_Total <", which
     * never exists, so the trigger would read 0 for ever. */
    { "Processor:% Processor Time:_Total >> 90", 35, "'>>' is not an operator: write one" },
    { "Processor:% Processor Time:_Total <>90", 35, "'<>' is not an operator" },
    { "Processor:% Processor Time:_Total > > 90", 35, "'> >' is not an operator" },
    { "Processor:% Processor Time:_Total => 90", 35, "'=>' is not an operator" },
    { "Processor:% Processor Time:_Total > 90 > 5", 35, "more than one comparison" },
    { "Cat:Ctr<x:Inst > 1", 8, "a name cannot hold '<' or '>'" },
    /* A missing threshold. */
    { "Processor:% Processor Time:_Total >", 36, "expected a number after '>': the threshold" },
    { "Processor:% Processor Time:_Total <   ", 39, "expected a number after '<'" },
  };
  size_t i;
  (void)state;
  assert_int_equal(trigger_parse_counter_spec("Processor:% Processor Time:_Total > 90", &s, err,
                                              sizeof(err)),
                   0);
  assert_string_equal(s.category, "Processor");
  assert_string_equal(s.counter, "% Processor Time");
  assert_string_equal(s.instance, "_Total");
  assert_true(s.greater && s.threshold == 90);
  /* PerfView's example with an empty instance and an exponent. */
  assert_int_equal(trigger_parse_counter_spec("Memory:Committed Bytes: > 5e10", &s, err,
                                              sizeof(err)),
                   0);
  assert_string_equal(s.instance, "");
  assert_true(s.threshold == 5e10);
  /* PerfView's lazy groups: the category ends at the first ':', the
   * counter at the second, and the instance keeps the rest (a drive). */
  assert_int_equal(trigger_parse_counter_spec("  LogicalDisk:% Free Space:C:<0.5  ", &s, err,
                                              sizeof(err)),
                   0);
  assert_string_equal(s.category, "LogicalDisk");
  assert_string_equal(s.counter, "% Free Space");
  assert_string_equal(s.instance, "C:");
  assert_true(!s.greater && s.threshold == 0.5);
  assert_int_equal(trigger_parse_counter_spec("A:B:C:D:E>1", &s, err, sizeof(err)), 0);
  assert_string_equal(s.category, "A");
  assert_string_equal(s.counter, "B");
  assert_string_equal(s.instance, "C:D:E");
  /* No space around the operator, and PerfView's example without one. */
  assert_int_equal(trigger_parse_counter_spec(".NET CLR Memory:% Time in GC:_Global_>20", &s,
                                              err, sizeof(err)),
                   0);
  assert_string_equal(s.instance, "_Global_");
  assert_true(s.greater && s.threshold == 20);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    assert_int_equal(trigger_parse_counter_spec(bad[i].text, &s, err, sizeof(err)), ETWCAP_E_USAGE);
    expect_error_at(bad[i].text, bad[i].pos, bad[i].words);
    assert_non_null(strstr(err, bad[i].text)); /* the spec is quoted */
  }
}

/* /MonitorPerfCounter: PerfView's syntax CATEGORY:COUNTERNAME:INSTANCE@NUM,
 * NUM seconds, 2 by default, at least 0.1 (CommandLineArgs.cs help,
 * Triggers.cs PerformanceCounterMonitor). */
static void monitor_specs(void **state)
{
  struct trigger_monitor_spec m;
  (void)state;
  /* UsersGuide: PerfView "/MonitorPerfCounter=Memory:Available MBytes:@10" collect */
  assert_int_equal(trigger_parse_monitor_spec("Memory:Available MBytes:@10", &m, err, sizeof(err)),
                   0);
  assert_string_equal(m.counter.category, "Memory");
  assert_string_equal(m.counter.counter, "Available MBytes");
  assert_string_equal(m.counter.instance, "");
  assert_true(m.interval_sec == 10 && !m.rounded_up);
  assert_int_equal(trigger_parse_monitor_spec(" Processor:% Processor Time:_Total ", &m, err,
                                              sizeof(err)),
                   0);
  assert_string_equal(m.counter.instance, "_Total");
  assert_true(m.interval_sec == 2);
  assert_int_equal(trigger_parse_monitor_spec("LogicalDisk:% Free Space:C:@0.5", &m, err,
                                              sizeof(err)),
                   0);
  assert_string_equal(m.counter.instance, "C:");
  assert_true(m.interval_sec == 0.5);
  assert_int_equal(trigger_parse_monitor_spec("Memory:Available MBytes:@0.01", &m, err,
                                              sizeof(err)),
                   0);
  assert_true(m.interval_sec == 0.1 && m.rounded_up);
  assert_int_equal(trigger_parse_monitor_spec("Memory:Available MBytes@10", &m, err, sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("one ':'", 7, "two ':'");
  assert_int_equal(trigger_parse_monitor_spec("Memory:Available MBytes:@ten", &m, err,
                                              sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("@ten", 26, "interval in seconds");
  assert_int_equal(trigger_parse_monitor_spec("Memory:Available MBytes:@10s", &m, err,
                                              sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("@10s", 28, "after the interval");
}

static void etw_specs(void **state)
{
  struct trigger_etw_spec s;
  static const struct {
    const char *text;
    unsigned pos;
    const char *words;
  } bad[] = {
    { "Microsoft-Windows-DotNETRuntime", 32, "no '/' found" },
    { "/GC/Start", 1, "PROVIDER is empty" },
    { "NoSuchProvider/GC/Start", 1, "unknown provider 'NoSuchProvider'" },
    { "Clr/", 5, "EVENT name is empty" },
    { "Clr/GC/Begin", 5, "'GC/Begin' is not an event of Microsoft-Windows-DotNETRuntime" },
    { "Clr/EventID(70000)", 5, "0 to 65535" },
    { "Clr/GC/Start;Keywords=xyz", 23, "Keywords is a hex number" },
    { "Clr/GC/Start;Level=Loud", 20, "Level is Critical" },
    { "Clr/GC/Start;Depth=2", 14, "unknown key 'Depth'" },
    { "Clr/GC/Start;=2", 14, "expected key=value" },
    { "Clr/GC/Start;Level", 19, "expected key=value" },
    { "Clr/GC/Start;FieldFilter=Depth^2", 31, "expected an operator" },
    { "Clr/GC/Start;FieldFilter=Generation>1", 26, "'Generation' is not a field of GC/Start" },
    { "Clr/GC/Start;FieldFilter=Depth~(", 33, "bad regular expression" },
    { "Clr/GC/Start;TriggerMSec=-5", 26, "TriggerMSec is a whole number" },
    { "Clr/GC/Start;StopEvent=GC/Stop", 24, "StopEvent only applies with TriggerMSec" },
    { "Clr/GC/Start;StartStopID=ThreadID", 26, "StartStopID only applies" },
    { "Clr/GC/Start;TriggerMSec=5;StopEvent=GC/Start", 38, "the stop event is the start" },
    { "Clr/GC/Start;TriggerMSec=5;StartStopID=Nope", 40,
      "'Nope' is not a field of GC/Start (Count, Depth, Reason, Type, ClrInstanceID, "
      "ClientSequenceNumber)" },
    { "Clr/GC/Start;BufferSizeMB=64", 14, "never accepted" },
    { "Windows Kernel/EventID(1)", 16, "kernel events have no event IDs" },
    { "Windows Kernel/Process/Begin", 16, "Process/Start" },
    { "*MySource/MyEvent;TriggerMSec=5", 32, "no default stop event" },
  };
  size_t i;
  (void)state;
  assert_int_equal(trigger_parse_etw_spec("Microsoft-Windows-DotNETRuntime/GC/Start", &s, err,
                                          sizeof(err)),
                   0);
  assert_int_equal(s.bi, BI_CLR);
  assert_int_equal(s.start.kind, REF_BUILTIN);
  assert_int_equal(s.start.id, 1);
  assert_int_equal(s.level, 4);
  assert_true(s.keywords == UINT64_MAX);
  trigger_etw_spec_release(&s);
  /* PerfView's suspend spec: GUID provider, StopEvent, ThreadID, hex keywords. */
  assert_int_equal(trigger_parse_etw_spec("E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4/GC/SuspendEEStart;"
                                          "StopEvent=GC/SuspendEEStop;StartStopID=ThreadID;"
                                          "Keywords=0x1;TriggerMSec=200",
                                          &s, err, sizeof(err)),
                   0);
  assert_int_equal(s.start.id, 9);
  assert_int_equal(s.stop.id, 8);
  assert_int_equal(s.ssid, SSID_THREAD);
  assert_true(s.keywords == 1 && s.trigger_msec == 200);
  trigger_etw_spec_release(&s);
  /* Default stop events: ...Start -> ...Stop, else the next event ID. */
  assert_int_equal(trigger_parse_etw_spec("Clr/GC/Start;TriggerMSec=1", &s, err, sizeof(err)), 0);
  assert_int_equal(s.stop.kind, REF_BUILTIN);
  assert_int_equal(s.stop.id, 2);
  trigger_etw_spec_release(&s);
  assert_int_equal(trigger_parse_etw_spec("Microsoft-Windows-IIS/EventID(1);Level=Critical;"
                                          "TriggerMSec=3000",
                                          &s, err, sizeof(err)),
                   0);
  assert_int_equal(s.stop.id, 2);
  assert_int_equal(s.level, 1);
  trigger_etw_spec_release(&s);
  assert_int_equal(trigger_parse_etw_spec("*MySource/EventID(7);TriggerMSec=5", &s, err,
                                          sizeof(err)),
                   0);
  assert_int_equal(s.stop.kind, REF_ID);
  assert_int_equal(s.stop.id, 8);
  trigger_etw_spec_release(&s);
  assert_int_equal(trigger_parse_etw_spec("*MySource/WorkStart;TriggerMSec=5;Verbose=true", &s, err,
                                          sizeof(err)),
                   0);
  assert_int_equal(s.start.kind, REF_NAME);
  assert_string_equal(s.stop.name, "WorkStop");
  assert_true(s.verbose);
  trigger_etw_spec_release(&s);
  /* EventSource events by method name and by Task/Opcode; key names any case. */
  assert_int_equal(trigger_parse_etw_spec("*System.Net.Http/RequestStart;triggermsec=100", &s, err,
                                          sizeof(err)),
                   0);
  assert_int_equal(s.bi, BI_HTTP);
  assert_int_equal(s.stop.id, 2);
  trigger_etw_spec_release(&s);
  assert_int_equal(trigger_parse_etw_spec("System.Net.Http/Request/Start;TriggerMSec=100;"
                                          "FieldFilter=host=example.com;FieldFilter=port>=443",
                                          &s, err, sizeof(err)),
                   0);
  assert_int_equal(s.filter_count, 2);
  assert_int_equal(s.filters[1].op, FOP_GE);
  assert_true(s.filters[1].numeric && s.filters[1].number == 443);
  trigger_etw_spec_release(&s);
  assert_int_equal(trigger_parse_etw_spec("Windows Kernel/Process/Start;Process=w3wp;"
                                          "FieldFilter=ImageFileName!=cmd.exe",
                                          &s, err, sizeof(err)),
                   0);
  assert_int_equal(s.bi, BI_KERNEL);
  assert_string_equal(s.process, "w3wp");
  assert_int_equal(s.filters[0].op, FOP_NE);
  trigger_etw_spec_release(&s);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    int rc = trigger_parse_etw_spec(bad[i].text, &s, err, sizeof(err));
    trigger_etw_spec_release(&s);
    if (rc != ETWCAP_E_USAGE)
      fail_msg("%s: accepted", bad[i].text);
    expect_error_at(bad[i].text, bad[i].pos, bad[i].words);
  }
}

static void gc_http_evcounter_eventlog_specs(void **state)
{
  struct trigger_gc_spec gc;
  struct trigger_http_spec http;
  struct trigger_evcounter_spec ec;
  struct trigger_eventlog_spec el;
  (void)state;
  assert_int_equal(trigger_parse_gc_spec("", &gc, err, sizeof(err)), 0);
  assert_int_equal(gc.conditions, GCE_GEN2);
  assert_int_equal(
      trigger_parse_gc_spec("Induced;OverMsec=200;Process=w3wp", &gc, err, sizeof(err)), 0);
  assert_int_equal(gc.conditions, GCE_INDUCED);
  assert_int_equal(gc.over_msec, 200);
  assert_string_equal(gc.process, "w3wp");
  assert_int_equal(trigger_parse_gc_spec("Process=1234", &gc, err, sizeof(err)), 0);
  assert_int_equal(gc.conditions, GCE_GEN2); /* nothing else given: a gen2 GC */
  assert_int_equal(trigger_parse_gc_spec("Gen2;Gen3", &gc, err, sizeof(err)), ETWCAP_E_USAGE);
  expect_error_at("gen3", 6, "expected Gen2, Induced");
  assert_int_equal(trigger_parse_gc_spec("OverMsec=x", &gc, err, sizeof(err)), ETWCAP_E_USAGE);
  expect_error_at("overmsec", 10, "OverMsec needs milliseconds");
  assert_int_equal(trigger_parse_gc_spec("Gen2;SuspendOverMsec=5", &gc, err, sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("suspend", 6, "cannot be combined");

  assert_int_equal(trigger_parse_http_spec("5xx", &http, err, sizeof(err)), 0);
  assert_true(trigger_http_match(&http, 500) && trigger_http_match(&http, 599));
  assert_false(trigger_http_match(&http, 499));
  assert_int_equal(trigger_parse_http_spec("404, 500-504;429", &http, err, sizeof(err)), 0);
  assert_true(trigger_http_match(&http, 404) && trigger_http_match(&http, 502) &&
              trigger_http_match(&http, 429));
  assert_false(trigger_http_match(&http, 505));
  assert_int_equal(trigger_parse_http_spec("5xx,6x", &http, err, sizeof(err)), ETWCAP_E_USAGE);
  expect_error_at("6x", 5, "expected a status code");
  assert_int_equal(trigger_parse_http_spec("0xx", &http, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_int_equal(trigger_parse_http_spec("504-500", &http, err, sizeof(err)), ETWCAP_E_USAGE);

  assert_int_equal(trigger_parse_evcounter_spec("System.Runtime:gc-heap-size>500", &ec, err,
                                                sizeof(err)),
                   0);
  assert_string_equal(ec.source, "System.Runtime");
  assert_string_equal(ec.counter, "gc-heap-size");
  assert_true(ec.greater && ec.threshold == 500);
  {
    char g[40];
    assert_string_equal(guid_format(&ec.provider, g), "49592c0f-5a05-516d-aa4b-a64e02026c89");
  }
  assert_int_equal(trigger_parse_evcounter_spec("System.Runtime gc-heap-size > 5", &ec, err,
                                                sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("no colon", 28, "SOURCE:COUNTER OP NUM");
  assert_int_equal(trigger_parse_evcounter_spec(":x<1", &ec, err, sizeof(err)), ETWCAP_E_USAGE);
  expect_error_at("empty source", 1, "SOURCE");
  /* The counter specs' operator rules hold for EventCounters too. */
  assert_int_equal(trigger_parse_evcounter_spec("System.Runtime:gc-heap-size >> 5", &ec, err,
                                                sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("doubled operator", 29, "'>>' is not an operator");
  assert_int_equal(trigger_parse_evcounter_spec("System.Runtime:gc-heap-size <", &ec, err,
                                                sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("no threshold", 30, "expected a number after '<'");

  assert_int_equal(trigger_parse_eventlog_spec("System@disk.*full", &el, err, sizeof(err)), 0);
  assert_string_equal(el.log, "System");
  assert_int_equal(el.pattern_at, 7); /* the regex is "disk.*full" */
  trigger_eventlog_spec_release(&el);
  assert_int_equal(trigger_parse_eventlog_spec("user@example.com failed", &el, err, sizeof(err)),
                   0);
  assert_string_equal(el.log, "user"); /* PerfView's rule: word characters before the '@' */
  trigger_eventlog_spec_release(&el);
  assert_int_equal(trigger_parse_eventlog_spec("a.b@c", &el, err, sizeof(err)), 0);
  assert_string_equal(el.log, "Application"); /* '.' is not a log name: all of it is the regex */
  assert_int_equal(el.pattern_at, 0);
  trigger_eventlog_spec_release(&el);
  assert_int_equal(trigger_parse_eventlog_spec("Application@[unclosed", &el, err, sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("bad class", 22, "bad regular expression");
}

static void regex_edge_cases(void **state)
{
  struct trigger_regex re;
  /* 2024-04-15T17:00:01Z (Unix 1713200401) as a FILETIME. */
  struct trigger_message m = { INT64_C(1713200401) * 10000000 + INT64_C(116444736000000000),
                               "Application", "Error", 1000,
                               "Faulting application w3wp.exe" };
  struct trigger_eventlog_spec el;
  struct trigger_hit hit;
  char text[256];
  (void)state;
  assert_int_equal(trigger_parse_exception_regex("", &re, err, sizeof(err)), 0);
  assert_true(trigger_regex_match(&re, "", 0)); /* empty matches everything */
  trigger_regex_free(&re);
  assert_int_equal(trigger_parse_exception_regex("Null.*Exception", &re, err, sizeof(err)), 0);
  assert_true(trigger_regex_match(&re, "System.NullReferenceException: x", 32));
  assert_false(trigger_regex_match(&re, "System.nullreferenceexception: x", 32));
  trigger_regex_free(&re);
  /* UTF-8 subjects and Unicode classes, as .NET's Regex. */
  assert_int_equal(trigger_parse_exception_regex("Fichier \\w+ introuvable", &re, err, sizeof(err)),
                   0);
  {
    const char *subject = "IOException: Fichier \xc3\xa9t\xc3\xa9 introuvable";
    assert_true(trigger_regex_match(&re, subject, strlen(subject)));
  }
  trigger_regex_free(&re);
  /* A pathological pattern stops at the match limit instead of hanging. */
  assert_int_equal(trigger_parse_exception_regex("(a+)+$", &re, err, sizeof(err)), 0);
  assert_false(trigger_regex_match(&re, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
                                   57));
  trigger_regex_free(&re);
  assert_int_equal(trigger_parse_exception_regex("ab(c", &re, err, sizeof(err)), ETWCAP_E_USAGE);
  expect_error_at("open group", 5, "missing closing parenthesis");
  assert_int_equal(trigger_parse_exception_regex("\xc3\xa9t\xc3\xa9[", &re, err, sizeof(err)),
                   ETWCAP_E_USAGE);
  expect_error_at("utf-8 position", 5, "bad regular expression"); /* characters, not bytes */
  /* Event-log text and case-insensitive matching. */
  assert_string_equal(trigger_eventlog_text(&m, text, sizeof(text)),
                      "17:00: Type: Error EventId: 1000 Message: Faulting application w3wp.exe");
  assert_int_equal(trigger_parse_eventlog_spec("FAULTING.*W3WP", &el, err, sizeof(err)), 0);
  assert_int_equal(trigger_eventlog_message(&el, &m, &hit), 1);
  assert_non_null(strstr(hit.detail, "Application@"));
  m.log = "System";
  assert_int_equal(trigger_eventlog_message(&el, &m, &hit), 0);
  trigger_eventlog_spec_release(&el);
  /* The regex sees the whole message, however long. */
  {
    static char long_message[20000];
    memset(long_message, 'x', sizeof(long_message) - 1);
    memcpy(long_message + sizeof(long_message) - 10, " Deadlock", 10);
    m.log = "Application";
    m.message = long_message;
    assert_int_equal(trigger_parse_eventlog_spec("Deadlock$", &el, err, sizeof(err)), 0);
    assert_int_equal(trigger_eventlog_message(&el, &m, &hit), 1);
    trigger_eventlog_spec_release(&el);
  }
}

static void engine_errors_name_the_qualifier(void **state)
{
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  char *bad_pc[] = { "Processor:% Processor Time:_Total" };
  char *bad_etw[] = { "Clr/GC/Start", "Clr/GC/Nope" };
  (void)state;
  trigger_options_init(&o);
  o.stop_on_perf_counter = bad_pc;
  o.stop_on_perf_counter_count = 1;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_null(e);
  assert_non_null(
    strstr(err, "/StopOnPerfCounter: 'Processor:% Processor Time:_Total': position 34:"));
  trigger_options_init(&o);
  o.stop_on_etw_event = bad_etw;
  o.stop_on_etw_event_count = 2;
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnEtwEvent: 'Clr/GC/Nope': position 5:"));
  trigger_options_init(&o);
  o.stop_on_exception = "(";
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnException: '(': position 2:"));
  trigger_options_init(&o);
  o.stop_on_gc_event = "Gen3";
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnGCEvent: 'Gen3': position 1:"));
  trigger_options_init(&o);
  o.stop_on_http_status = "oops";
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/StopOnHttpStatus: 'oops': position 1:"));
  /* /Process with nothing to filter does nothing: refused. */
  trigger_options_init(&o);
  o.process = "w3wp";
  assert_int_equal(trigger_engine_create(&e, &o, err, sizeof(err)), ETWCAP_E_USAGE);
  assert_non_null(strstr(err, "/Process"));
}

/* "joined with ..." from text, up to a parenthesis or the end. */
static void joined_phrase(const char *text, char *out, size_t cap)
{
  const char *p = strstr(text, "joined with ");
  size_t n;
  if (!p)
    fail_msg("'%s' does not say how codes are joined", text);
  n = strcspn(p, "(\n");
  while (n && (p[n - 1] == ' ' || p[n - 1] == '.'))
    n--;
  assert_true(n < cap);
  memcpy(out, p, n);
  out[n] = '\0';
}

/* The help of /StopOnHttpStatus and the parser's message name the same
 * separators, and the parser takes every one they name. */
static void http_status_help_and_error_agree(void **state)
{
  const struct opt_def *def = NULL;
  struct trigger_http_spec http;
  char from_help[64], from_error[64], spec[16];
  const char *q;
  size_t i, named = 0;
  (void)state;
  for (i = 0; i < opt_group_triggers.count; i++)
    if (!strcmp(opt_group_triggers.defs[i].name, "StopOnHttpStatus"))
      def = &opt_group_triggers.defs[i];
  assert_non_null(def);
  joined_phrase(def->help, from_help, sizeof(from_help));
  assert_int_equal(trigger_parse_http_spec("oops", &http, err, sizeof(err)), ETWCAP_E_USAGE);
  joined_phrase(err, from_error, sizeof(from_error));
  assert_string_equal(from_help, from_error);
  for (q = strchr(from_help, '\''); q && q[1] && q[2] == '\''; q = strchr(q + 3, '\'')) {
    snprintf(spec, sizeof(spec), "404%c5xx", q[1]);
    if (trigger_parse_http_spec(spec, &http, err, sizeof(err)) != 0 || http.count != 2)
      fail_msg("the help names '%c', but '%s' is refused: %s", q[1], spec, err);
    named++;
  }
  assert_true(named >= 1);
}

static int exists_first_two(void *ctx, const char *path)
{
  (void)ctx;
  return strstr(path, ".1.etl") || strstr(path, ".2.etl");
}

static void collect_multiple_names_and_stop_command(void **state)
{
  char out[256];
  unsigned used = 0;
  (void)state;
  assert_int_equal(trigger_collect_name("PerfViewData.etl", 1, 1, NULL, NULL, out, sizeof(out),
                                        &used),
                   0);
  assert_string_equal(out, "PerfViewData.1.etl.zip");
  assert_int_equal(used, 1);
  assert_int_equal(trigger_collect_name("c:\\traces\\run.etl.zip", 2, 1, NULL, NULL, out,
                                        sizeof(out), NULL),
                   0);
  assert_string_equal(out, "c:\\traces\\run.2.etl.zip");
  assert_int_equal(trigger_collect_name("run", 3, 0, NULL, NULL, out, sizeof(out), NULL), 0);
  assert_string_equal(out, "run.3.etl");
  assert_int_equal(trigger_collect_name("run.ETL", 0, 1, NULL, NULL, out, sizeof(out), NULL), 0);
  assert_string_equal(out, "run.etl.zip");
  /* Taken names are skipped, as PerfView's GetNewFile does. */
  assert_int_equal(trigger_collect_name("run.etl", 1, 1, exists_first_two, NULL, out,
                                        sizeof(out), &used),
                   0);
  assert_string_equal(out, "run.3.etl.zip");
  assert_int_equal(used, 3);
  assert_int_equal(trigger_collect_name("run.etl", 1, 1, NULL, NULL, out, 8, NULL),
                   ETWCAP_E_RANGE);

  assert_int_equal(trigger_stop_command("copy %OUTPUTDIR%\\%OUTPUTBASENAME%.etl.zip \\\\share",
                                        "C:\\traces\\web01.etl.zip", out, sizeof(out)),
                   0);
  assert_string_equal(out, "copy C:\\traces\\web01.etl.zip \\\\share");
  assert_int_equal(trigger_stop_command("echo %outputdir% %OutputBaseName% 100%",
                                        "web01.etl.zip", out, sizeof(out)),
                   0);
  assert_string_equal(out, "echo . web01 100%");
  assert_int_equal(trigger_stop_command("x %OUTPUTBASENAME%", "/tmp/a.2.etl", out, sizeof(out)),
                   0);
  assert_string_equal(out, "x a.2");
  assert_int_equal(trigger_stop_command("%OUTPUTDIR%", "/tmp/a.2.etl", out, 4), ETWCAP_E_RANGE);
}

static void out_session_file_names(void **state)
{
  char out[256];
  (void)state;
  /* The names merge_inputs gathers as one collection. */
  assert_int_equal(replay_window_file_name("d/x.etl", "run.etl", 0, 0, out, sizeof(out)), 0);
  assert_string_equal(out, "d/x.etl");
  assert_int_equal(replay_window_file_name("d/x.etl", "run.kernel.1.etl", 1, 1, out,
                                           sizeof(out)),
                   0);
  assert_string_equal(out, "d/x.kernel2.etl");
  assert_int_equal(replay_window_file_name("x.etl", "a.Kernel.etl", 0, 0, out, sizeof(out)),
                   0);
  assert_string_equal(out, "x.kernel.etl");
  assert_int_equal(replay_window_file_name("x.etl", "a.clrRundown.etl", 2, 1, out,
                                           sizeof(out)),
                   0);
  assert_string_equal(out, "x.clrRundown3.etl");
  assert_int_equal(replay_window_file_name("x.etl", "a.user_paged.1.etl", 3, 1, out,
                                           sizeof(out)),
                   0);
  assert_string_equal(out, "x.user4.etl");
  assert_int_equal(replay_window_file_name("x.zip", "a.etl", 0, 0, out, sizeof(out)),
                   ETWCAP_E_USAGE);
}

/* What the engine built from o needs, as the plan asks it. */
static int needs(const struct trigger_options *o, struct session_provider_need *p, size_t *n)
{
  struct trigger_engine *e = NULL;
  char why[512];
  int rc = trigger_engine_create(&e, o, why, sizeof(why));
  if (rc)
    fail_msg("%s", why);
  rc = trigger_session_providers(e, p, SESSION_NEEDS_MAX, n);
  trigger_engine_free(e);
  return rc;
}

static void trigger_session_needs(void **state)
{
  struct trigger_options o;
  struct session_provider_need p[SESSION_NEEDS_MAX];
  size_t n = 0, i;
  char *etw[] = { "Windows Kernel/Image/Load;FieldFilter=FileName~clr\\.dll",
                  "*MySource/Tick;Level=Verbose;Keywords=0x20" };
  char *evc[] = { "System.Runtime:cpu-usage>90" };
  char g[40];
  (void)state;
  trigger_options_init(&o);
  o.stop_on_gen2_gc = 1;
  o.stop_on_exception = "x";
  o.stop_on_gc_over_msec = 100;
  o.process = "w3wp";
  o.stop_on_etw_event = etw;
  o.stop_on_etw_event_count = 2;
  o.stop_on_event_counter = evc;
  o.stop_on_event_counter_count = 1;
  o.trigger_poll_msec = 2000;
  assert_int_equal(needs(&o, p, &n), 0);
  assert_int_equal(n, 4);
  /* CLR once: GC | Exception keywords, Informational. */
  assert_string_equal(guid_format(&p[0].guid, g), "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
  assert_true(p[0].keywords == 0x8001 && p[0].level == 4 && !p[0].kernel);
  assert_non_null(strstr(p[0].why, "StopOnGCOverMsec"));
  assert_non_null(strstr(p[0].why, "StopOnException"));
  /* The kernel: ImageLoad for the Image event, Process for the name filter. */
  for (i = 0; i < n && !p[i].kernel; i++)
    ;
  assert_true(i < n);
  assert_true(p[i].keywords == 0x5);
  for (i = 0; i < n; i++)
    if (!strcmp(p[i].name, "System.Runtime"))
      break;
  assert_true(i < n);
  assert_string_equal(p[i].args, "EventCounterIntervalSec=2");
  assert_string_equal(guid_format(&p[i].guid, g), "49592c0f-5a05-516d-aa4b-a64e02026c89");
  for (i = 0; i < n; i++)
    if (!strcmp(p[i].name, "MySource"))
      break;
  assert_true(i < n && p[i].level == 5 && p[i].keywords == 0x20);
  /* Counters and event-log messages need no ETW provider. */
  trigger_options_init(&o);
  {
    char *pc[] = { "A:B:C > 1" };
    o.stop_on_perf_counter = pc;
    o.stop_on_perf_counter_count = 1;
    o.stop_on_event_log_message = "x";
    assert_int_equal(needs(&o, p, &n), 0);
    assert_int_equal(n, 0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(counter_specs),
    cmocka_unit_test(monitor_specs),
    cmocka_unit_test(etw_specs),
    cmocka_unit_test(gc_http_evcounter_eventlog_specs),
    cmocka_unit_test(http_status_help_and_error_agree),
    cmocka_unit_test(regex_edge_cases),
    cmocka_unit_test(engine_errors_name_the_qualifier),
    cmocka_unit_test(collect_multiple_names_and_stop_command),
    cmocka_unit_test(out_session_file_names),
    cmocka_unit_test(trigger_session_needs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
