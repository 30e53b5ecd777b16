/* libFuzzer target for every trigger spec parser (perf counter,
 * /MonitorPerfCounter, ETW event, /StopOnGCEvent, /StopOnEventCounter, /StopOnHttpStatus, event-log and
 * exception regexes) and for building a whole engine from them: any bytes
 * must give a parse or an error message naming a position, never a crash,
 * a leak or undefined behaviour.  The first byte picks the parser (and for
 * ETW specs a provider prefix, so the fuzzer reaches the key=value part). */
#include "src/base/error.h"
#include "triggers/trigger_engine.h"
#include "triggers/trigger_spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const char *err, size_t cap, int rc)
{
  if (!memchr(err, '\0', cap))
    abort(); /* the message must always be terminated */
  if (rc == ETWCAP_E_USAGE && !strstr(err, "position ") && !strstr(err, "/Process"))
    abort(); /* every spec error says where */
}

static void etw(const char *prefix, const char *text)
{
  char spec[4096 + 64], err[1024];
  struct trigger_etw_spec s;
  int rc;
  size_t n = strlen(prefix);
  memcpy(spec, prefix, n);
  strncpy(spec + n, text, sizeof(spec) - n - 1);
  spec[sizeof(spec) - 1] = '\0';
  err[0] = '\0';
  rc = trigger_parse_etw_spec(spec, &s, err, sizeof(err));
  trigger_etw_spec_release(&s);
  if (rc)
    check_message(err, sizeof(err), rc);
}

/* Splits text on '\n' into the qualifiers of one command line. */
static void engine(char *text)
{
  struct trigger_options o;
  struct trigger_engine *e = NULL;
  char *field[8] = { 0 }, *p = text, err[1024];
  char *pc[1], *etwspec[1], *evc[1];
  size_t n = 0;
  int rc;
  while (n < 8) {
    field[n++] = p;
    p = strchr(p, '\n');
    if (!p)
      break;
    *p++ = '\0';
  }
  trigger_options_init(&o);
  if (field[0] && field[0][0]) {
    pc[0] = field[0];
    o.stop_on_perf_counter = pc;
    o.stop_on_perf_counter_count = 1;
  }
  if (field[1] && field[1][0]) {
    etwspec[0] = field[1];
    o.stop_on_etw_event = etwspec;
    o.stop_on_etw_event_count = 1;
  }
  if (field[2] && field[2][0])
    o.stop_on_gc_event = field[2];
  if (field[3])
    o.stop_on_exception = field[3];
  if (field[4] && field[4][0]) {
    evc[0] = field[4];
    o.stop_on_event_counter = evc;
    o.stop_on_event_counter_count = 1;
  }
  if (field[5] && field[5][0])
    o.stop_on_http_status = field[5];
  if (field[6] && field[6][0])
    o.process = field[6];
  if (field[7] && field[7][0])
    o.stop_on_event_log_message = field[7];
  o.stop_on_gc_over_msec = 5;
  err[0] = '\0';
  rc = trigger_engine_create(&e, &o, err, sizeof(err));
  if (rc) {
    if (!memchr(err, '\0', sizeof(err)))
      abort();
    return;
  }
  trigger_engine_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text, err[1024];
  unsigned sel;
  int rc = 0;
  if (size < 1 || size > 8192)
    return 0;
  sel = data[0] % 13;
  text = malloc(size);
  if (!text)
    return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  err[0] = '\0';
  switch (sel) {
  case 0: {
    struct trigger_counter_spec s;
    rc = trigger_parse_counter_spec(text, &s, err, sizeof(err));
    break;
  }
  case 1: etw("", text); break;
  case 2: etw("Clr/", text); break;
  case 3: etw("Windows Kernel/", text); break;
  case 4: etw("*MySource/", text); break;
  case 5: {
    struct trigger_gc_spec s;
    rc = trigger_parse_gc_spec(text, &s, err, sizeof(err));
    break;
  }
  case 6: {
    struct trigger_evcounter_spec s;
    rc = trigger_parse_evcounter_spec(text, &s, err, sizeof(err));
    break;
  }
  case 7: {
    struct trigger_http_spec s;
    rc = trigger_parse_http_spec(text, &s, err, sizeof(err));
    if (rc == 0 && s.count > TRIGGER_MAX_STATUS_RANGES)
      abort();
    break;
  }
  case 8: {
    struct trigger_eventlog_spec s;
    rc = trigger_parse_eventlog_spec(text, &s, err, sizeof(err));
    if (rc == 0) {
      struct trigger_message m = { 0, s.log, "Error", 1, text };
      struct trigger_hit hit;
      (void)trigger_eventlog_message(&s, &m, &hit);
      trigger_eventlog_spec_release(&s);
    }
    break;
  }
  case 9: {
    struct trigger_regex re;
    rc = trigger_parse_exception_regex(text, &re, err, sizeof(err));
    if (rc == 0) {
      (void)trigger_regex_match(&re, text, strlen(text));
      trigger_regex_free(&re);
    }
    break;
  }
  case 10: {
    struct trigger_monitor_spec s;
    rc = trigger_parse_monitor_spec(text, &s, err, sizeof(err));
    if (rc == 0 && !(s.interval_sec >= TRIGGER_MONITOR_MIN_SEC))
      abort(); /* an interval PerfView would not poll at */
    break;
  }
  default:
    engine(text);
    break;
  }
  if (rc && rc != ETWCAP_E_NOMEM)
    check_message(err, sizeof(err), rc);
  free(text);
  return 0;
}
