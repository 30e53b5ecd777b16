/* See trigger_spec.h.  The grammars follow PerfView's regular expressions
 * (Triggers.cs) but are parsed by hand so that an error can say where. */
#include "triggers/trigger_spec.h"

#include "etw/event/eventsource_guid.h"
#include "etw/event/keywords.h"
#include "etw/event/providers.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "'SPEC': position N: WHAT" (N 1-based, counted in characters). */
static int fail_at(char *err, size_t cap, const char *spec, size_t byte_pos, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
static int fail_at(char *err, size_t cap, const char *spec, size_t byte_pos, const char *fmt,
                   ...)
{
  char what[512];
  size_t i, chars = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  for (i = 0; i < byte_pos && spec[i]; i++)
    if (((unsigned char)spec[i] & 0xC0) != 0x80)
      chars++;
  if (byte_pos > i) /* the position just past the end */
    chars += byte_pos - i;
  snprintf(err, cap, "'%.300s': position %lu: %s", spec, (unsigned long)(chars + 1), what);
  return ETWCAP_E_USAGE;
}

static int is_space(char c)
{
  return c == ' ' || c == '\t';
}

/* Copies text[a, b) into out (cap TRIGGER_NAME_MAX); -1 when too long. */
static int copy_span(char *out, const char *text, size_t a, size_t b)
{
  if (b < a || b - a >= TRIGGER_NAME_MAX)
    return -1;
  memcpy(out, text + a, b - a);
  out[b - a] = '\0';
  return 0;
}

/* A decimal number: digits, optional fraction, optional exponent.  Returns
 * the end, or `p` when there is no number. */
static size_t scan_number(const char *s, size_t p)
{
  size_t q = p, digits = 0;
  if (s[q] == '+' || s[q] == '-')
    q++;
  while (isdigit((unsigned char)s[q])) {
    q++;
    digits++;
  }
  if (s[q] == '.') {
    q++;
    while (isdigit((unsigned char)s[q])) {
      q++;
      digits++;
    }
  }
  if (!digits)
    return p;
  if (s[q] == 'e' || s[q] == 'E') {
    size_t e = q + 1;
    if (s[e] == '+' || s[e] == '-')
      e++;
    if (isdigit((unsigned char)s[e])) {
      while (isdigit((unsigned char)s[e]))
        e++;
      q = e;
    }
  }
  return q;
}

/* The part of text[0..op) without the spaces around it: [*start, *end). */
static void trim(const char *text, size_t *start, size_t *end, size_t op)
{
  *start = 0;
  while (is_space(text[*start]))
    (*start)++;
  *end = op;
  while (*end > *start && is_space(text[*end - 1]))
    (*end)--;
}

/* The number text[p, q) that ends the spec (spaces may follow), into *value;
 * `what` names it in messages ("the number", "the interval"). */
static int number_ends_spec(const char *text, size_t p, size_t q, const char *what,
                            double *value, char *err, size_t cap)
{
  char num[64];
  if (q - p >= sizeof(num))
    return fail_at(err, cap, text, p, "number too long");
  memcpy(num, text + p, q - p);
  num[q - p] = '\0';
  while (is_space(text[q]))
    q++;
  if (text[q])
    return fail_at(err, cap, text, q, "unexpected '%c' after %s", text[q], what);
  if (str_parse_double(num, value) != 0)
    return fail_at(err, cap, text, p, "'%s' is not a number", num);
  return 0;
}

/* Finds "OP NUM" at the end of text: OP is the last '<' or '>', and the
 * names before it hold no other.  PerfView's regular expression lets a
 * doubled operator ("_Total >> 90", "<>90") through as part of the instance
 * name, which never exists, so the trigger reads 0 for ever; here it is an
 * error.  Sets *op_pos, *greater and *value.  Returns 0 or an error. */
static int parse_threshold(const char *text, const char *syntax, size_t *op_pos, int *greater,
                           double *value, char *err, size_t cap)
{
  size_t len = strlen(text), i, p, q;
  for (i = len; i > 0; i--)
    if (text[i - 1] == '<' || text[i - 1] == '>')
      break;
  if (i == 0)
    return fail_at(err, cap, text, len, "expected '<' or '>' and a number (%s)", syntax);
  *op_pos = i - 1;
  *greater = text[i - 1] == '>';
  p = i;
  for (q = i - 1; q > 0 && is_space(text[q - 1]); q--)
    ;
  if (q > 0 && strchr("<>=!", text[q - 1]))
    return fail_at(err, cap, text, q - 1,
                   "'%.*s' is not an operator: write one '<' or '>' between the counter and "
                   "the number (%s)",
                   (int)(i - q + 1), text + q - 1, syntax);
  for (q = 0; q + 1 < i; q++)
    if (text[q] == '<' || text[q] == '>')
      return fail_at(err, cap, text, q,
                     "more than one comparison ('%c' here and '%c' later): a spec compares "
                     "one counter with one number (%s), and a name cannot hold '<' or '>'",
                     text[q], text[i - 1], syntax);
  if (text[p] == '=')
    return fail_at(err, cap, text, p - 1,
                   "'%c=' is not an operator here: use '<' or '>' (the value is compared "
                   "strictly)",
                   text[i - 1]);
  while (is_space(text[p]))
    p++;
  q = scan_number(text, p);
  if (q == p)
    return fail_at(err, cap, text, p, "expected a number after '%c': the threshold, as in "
                   "'%c 90'", text[i - 1], text[i - 1]);
  return number_ends_spec(text, p, q, "the number", value, err, cap);
}

/* CATEGORY:COUNTER:INSTANCE in text[start, end), `syntax` for messages.
 * PerfView's lazy groups: the CATEGORY ends at the first ':', the COUNTER
 * at the second, and the INSTANCE is the rest, so an instance may hold ':'
 * (LogicalDisk's "C:") and a category may not. */
static int parse_counter_path(const char *text, size_t start, size_t end, const char *syntax,
                              struct trigger_counter_spec *out, char *err, size_t cap)
{
  size_t c1 = (size_t)-1, c2 = (size_t)-1, i;
  for (i = start; i < end; i++)
    if (text[i] == ':') {
      if (c1 == (size_t)-1) {
        c1 = i;
      } else {
        c2 = i;
        break;
      }
    }
  if (c2 == (size_t)-1)
    return fail_at(err, cap, text, c1 == (size_t)-1 ? end : c1,
                   "expected %s: the counter path needs two ':' (an empty INSTANCE is "
                   "allowed, as in 'Memory:Committed Bytes:')",
                   syntax);
  if (c1 == start)
    return fail_at(err, cap, text, start, "the CATEGORY is empty");
  if (c2 == c1 + 1)
    return fail_at(err, cap, text, c2, "the COUNTER is empty");
  if (copy_span(out->category, text, start, c1) || copy_span(out->counter, text, c1 + 1, c2) ||
      copy_span(out->instance, text, c2 + 1, end))
    return fail_at(err, cap, text, start, "a name is longer than %d bytes", TRIGGER_NAME_MAX - 1);
  return 0;
}

int trigger_parse_counter_spec(const char *text, struct trigger_counter_spec *out, char *err,
                               size_t cap)
{
  static const char syntax[] = "CATEGORY:COUNTER:INSTANCE OP NUM";
  size_t op, start, end;
  int rc;
  memset(out, 0, sizeof(*out));
  rc = parse_threshold(text, syntax, &op, &out->greater, &out->threshold, err, cap);
  if (rc)
    return rc;
  trim(text, &start, &end, op);
  return parse_counter_path(text, start, end, syntax, out, err, cap);
}

int trigger_parse_monitor_spec(const char *text, struct trigger_monitor_spec *out, char *err,
                               size_t cap)
{
  static const char syntax[] = "CATEGORY:COUNTER:INSTANCE[@SECONDS]";
  const char *at = strrchr(text, '@');
  size_t start, end, p, q;
  int rc;
  memset(out, 0, sizeof(*out));
  out->interval_sec = TRIGGER_MONITOR_DEFAULT_SEC;
  trim(text, &start, &end, at ? (size_t)(at - text) : strlen(text));
  if ((rc = parse_counter_path(text, start, end, syntax, &out->counter, err, cap)) != 0)
    return rc;
  /* PerfView's "(@(\d+\.?\d*))?": seconds, a fraction allowed. */
  if (!at)
    return 0;
  p = (size_t)(at - text) + 1;
  q = p;
  while (isdigit((unsigned char)text[q]) || text[q] == '.')
    q++;
  if (q == p)
    return fail_at(err, cap, text, p, "expected the interval in seconds after '@', as in '@10'");
  if ((rc = number_ends_spec(text, p, q, "the interval", &out->interval_sec, err, cap)) != 0)
    return rc;
  /* PerfView: "interval too small, rounding up to .1 sec". */
  if (out->interval_sec < TRIGGER_MONITOR_MIN_SEC) {
    out->interval_sec = TRIGGER_MONITOR_MIN_SEC;
    out->rounded_up = 1;
  }
  return 0;
}

/* --- ETW event specs -------------------------------------------------------- */

static int is_word(char c)
{
  return isalnum((unsigned char)c) || c == '_';
}

static int parse_event_id(const char *name, uint16_t *id)
{
  int64_t v;
  char num[32];
  size_t n = strlen(name);
  if (n < 10 || !str_ncaseeq(name, "EventID(", 8) || name[n - 1] != ')' || n - 9 >= sizeof(num))
    return -1;
  memcpy(num, name + 8, n - 9);
  num[n - 9] = '\0';
  if (str_parse_int64(num, &v) != 0 || v < 0 || v > 65535)
    return -2;
  *id = (uint16_t)v;
  return 0;
}

int trigger_parse_event_ref(enum bi_provider bi, const char *name, struct trigger_event_ref *out,
                            char *err, size_t cap)
{
  uint16_t id = 0;
  int rc;
  memset(out, 0, sizeof(*out));
  if (!name[0]) {
    snprintf(err, cap, "the event name is empty");
    return -1;
  }
  if (strlen(name) >= TRIGGER_NAME_MAX) {
    snprintf(err, cap, "the event name is too long");
    return -1;
  }
  snprintf(out->name, sizeof(out->name), "%s", name);
  rc = parse_event_id(name, &id);
  if (rc == -2) {
    snprintf(err, cap, "'%s': an event ID is a number from 0 to 65535", name);
    return -1;
  }
  if (rc == 0) {
    if (bi == BI_KERNEL) {
      snprintf(err, cap, "kernel events have no event IDs: name them as Task/Opcode, e.g. "
               "Process/Start, Thread/Stop, Image/Load");
      return -1;
    }
    out->id = id;
    out->bi = bi != BI_NONE ? bi_find_id(bi, id) : NULL;
    out->kind = out->bi ? REF_BUILTIN : REF_ID;
    return 0;
  }
  if (bi != BI_NONE) {
    char names[512];
    out->bi = bi_find_name(bi, name);
    if (!out->bi) {
      snprintf(err, cap, "'%s' is not an event of %s that etwcap knows (%s%s)", name,
               bi_provider_name(bi), bi_some_names(bi, names, sizeof(names)),
               bi == BI_KERNEL ? "" : ", or EventID(n)");
      return -1;
    }
    out->kind = REF_BUILTIN;
    out->id = out->bi->id;
    return 0;
  }
  /* A provider without a table: only TraceLogging events say their name. */
  out->kind = REF_NAME;
  return 0;
}

static int same_ref(const struct trigger_event_ref *a, const struct trigger_event_ref *b)
{
  if (a->kind != b->kind)
    return 0;
  if (a->kind == REF_BUILTIN)
    return a->bi->id == b->bi->id && a->bi->group == b->bi->group;
  if (a->kind == REF_ID)
    return a->id == b->id;
  return str_caseeq(a->name, b->name);
}

/* PerfView's default stop event: "...Start" becomes "...Stop"; otherwise
 * the next event ID. */
static int default_stop(const struct trigger_etw_spec *s, struct trigger_event_ref *stop, char *err,
                        size_t cap)
{
  char name[TRIGGER_NAME_MAX + 8];
  const char *base = s->start.name;
  size_t n;
  if (s->start.kind == REF_BUILTIN)
    base = bi_event_name(s->start.bi, name, sizeof(name));
  n = strlen(base);
  if (n >= 5 && str_caseeq(base + n - 5, "Start")) {
    char stop_name[TRIGGER_NAME_MAX + 8];
    snprintf(stop_name, sizeof(stop_name), "%.*sStop", (int)(n - 5), base);
    if (trigger_parse_event_ref(s->bi, stop_name, stop, err, cap) == 0)
      return 0;
    if (s->start.kind == REF_BUILTIN && s->start.bi->method) {
      snprintf(stop_name, sizeof(stop_name), "%.*sStop", (int)(strlen(s->start.bi->method) - 5),
               s->start.bi->method);
      if (trigger_parse_event_ref(s->bi, stop_name, stop, err, cap) == 0)
        return 0;
    }
  }
  if (s->start.kind == REF_ID || (s->start.kind == REF_BUILTIN && s->bi != BI_KERNEL)) {
    snprintf(name, sizeof(name), "EventID(%u)", (unsigned)s->start.id + 1u);
    return trigger_parse_event_ref(s->bi, name, stop, err, cap);
  }
  snprintf(err, cap, "there is no default stop event for '%s': give StopEvent=NAME", base);
  return -1;
}

static int is_kernel_name(const char *p, size_t len)
{
  static const char *const names[] = { "Windows Kernel", "NT Kernel Logger", "Kernel",
                                       "SystemTraceControlGuid" };
  size_t i;
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (strlen(names[i]) == len && str_ncaseeq(p, names[i], len))
      return 1;
  return 0;
}

static int resolve_provider(const char *text, size_t len, struct trigger_etw_spec *s, char *err,
                            size_t cap)
{
  struct provider_ref ref;
  char guidtext[64];
  if (is_kernel_name(text, len)) {
    s->provider = bi_guid_kernel;
    s->bi = BI_KERNEL;
    snprintf(s->provider_name, sizeof(s->provider_name), "Windows Kernel");
    return 0;
  }
  if (len < sizeof(guidtext)) {
    memcpy(guidtext, text, len);
    guidtext[len] = '\0';
    if (guid_parse(guidtext, &s->provider) == 0) {
      s->bi = bi_provider_of_guid(&s->provider);
      snprintf(s->provider_name, sizeof(s->provider_name), "%s",
               s->bi != BI_NONE ? bi_provider_name(s->bi) : guidtext);
      return 0;
    }
  }
  if (providers_resolve(text, len, &ref, err, cap) != 0)
    return -1;
  s->provider.data1 = ref.guid.data1;
  s->provider.data2 = ref.guid.data2;
  s->provider.data3 = ref.guid.data3;
  memcpy(s->provider.data4, ref.guid.data4, 8);
  s->bi = bi_provider_of_guid(&s->provider);
  snprintf(s->provider_name, sizeof(s->provider_name), "%s", ref.name);
  return 0;
}

static int parse_filter(const char *spec, size_t at, const char *value,
                        struct trigger_field_filter *f, char *err, size_t cap)
{
  size_t n = 0, oplen = 1;
  char msg[256];
  size_t rpos = 0;
  while (is_word(value[n]) || value[n] == '.')
    n++;
  if (n == 0)
    return fail_at(err, cap, spec, at, "FieldFilter needs FIELD OP VALUE (OP one of < <= > >= "
                   "= != ~)");
  if (n >= sizeof(f->field))
    return fail_at(err, cap, spec, at, "the field name is too long");
  memcpy(f->field, value, n);
  f->field[n] = '\0';
  if (!strncmp(value + n, "<=", 2))
    f->op = FOP_LE, oplen = 2;
  else if (!strncmp(value + n, ">=", 2))
    f->op = FOP_GE, oplen = 2;
  else if (!strncmp(value + n, "!=", 2))
    f->op = FOP_NE, oplen = 2;
  else if (value[n] == '<')
    f->op = FOP_LT;
  else if (value[n] == '>')
    f->op = FOP_GT;
  else if (value[n] == '=')
    f->op = FOP_EQ;
  else if (value[n] == '~')
    f->op = FOP_MATCH;
  else
    return fail_at(err, cap, spec, at + n, "expected an operator (< <= > >= = != ~) after the "
                   "field name '%s'", f->field);
  if (strlen(value + n + oplen) >= sizeof(f->value))
    return fail_at(err, cap, spec, at + n + oplen, "the value is too long");
  snprintf(f->value, sizeof(f->value), "%s", value + n + oplen);
  if (f->op == FOP_MATCH) {
    int rc = trigger_regex_compile(&f->re, f->value, 1, msg, sizeof(msg), &rpos);
    if (rc == ETWCAP_E_USAGE)
      return fail_at(err, cap, spec, at + n + oplen + rpos,
                     "bad regular expression: %s", msg);
    return rc;
  }
  f->numeric = str_parse_double(f->value, &f->number) == 0;
  return 0;
}

static int check_field(const struct trigger_etw_spec *s, const char *spec, size_t at,
                       const char *field, const char *what, char *err, size_t cap)
{
  if (s->start.kind == REF_BUILTIN) {
    if (!bi_has_field(s->start.bi, field)) {
      char name[TRIGGER_NAME_MAX];
      char fields[512];
      size_t i, n = 0;
      const struct tf_layout *l = &bi_latest(s->start.bi)->layout;
      fields[0] = '\0';
      for (i = 0; i < l->count && n + 1 < sizeof(fields); i++) {
        n += (size_t)snprintf(fields + n, sizeof(fields) - n, "%s%s", i ? ", " : "",
                              l->fields[i].name);
        if (n >= sizeof(fields))
          n = sizeof(fields) - 1;
      }
      return fail_at(err, cap, spec, at, "%s '%s' is not a field of %s (%s)", what, field,
                     bi_event_name(s->start.bi, name, sizeof(name)),
                     fields[0] ? fields : "it has no payload fields");
    }
  }
  /* Other providers: the names come with the events (TraceLogging) or from
   * the provider's manifest in the trace; checked when they arrive. */
  (void)spec;
  (void)at;
  (void)what;
  return 0;
}

int trigger_parse_etw_spec(const char *text, struct trigger_etw_spec *s, char *err, size_t cap)
{
  const char *slash = strchr(text, '/');
  size_t pos, name_end;
  char name[TRIGGER_NAME_MAX];
  char msg[512];
  int have_stop = 0, rc;
  size_t stop_at = 0, ssid_at = 0, decay_at = 0;
  memset(s, 0, sizeof(*s));
  s->keywords = UINT64_MAX;
  s->level = LEVEL_INFORMATIONAL;
  if (!slash)
    return fail_at(err, cap, text, strlen(text),
                   "expected PROVIDER/EVENT[;key=value...] (no '/' found)");
  if (slash == text)
    return fail_at(err, cap, text, 0, "the PROVIDER is empty");
  if (resolve_provider(text, (size_t)(slash - text), s, msg, sizeof(msg)) != 0)
    return fail_at(err, cap, text, 0, "%s", msg);
  pos = (size_t)(slash - text) + 1;
  name_end = pos;
  while (text[name_end] && text[name_end] != ';')
    name_end++;
  if (name_end == pos)
    return fail_at(err, cap, text, pos, "the EVENT name is empty");
  if (copy_span(name, text, pos, name_end))
    return fail_at(err, cap, text, pos, "the EVENT name is too long");
  if (trigger_parse_event_ref(s->bi, name, &s->start, msg, sizeof(msg)) != 0)
    return fail_at(err, cap, text, pos, "%s", msg);
  pos = name_end;
  while (text[pos] == ';') {
    size_t kstart = ++pos, kend, vstart, vend;
    char key[64], value[TRIGGER_NAME_MAX];
    if (!text[pos])
      break; /* a trailing ';' */
    while (is_word(text[pos]) || text[pos] == '@')
      pos++;
    kend = pos;
    if (kend == kstart || text[pos] != '=')
      return fail_at(err, cap, text, kend == kstart ? kstart : pos,
                     "expected key=value (keys: Keywords, Level, Process, FieldFilter, "
                     "TriggerMSec, DecayToZeroHours, StopEvent, StartStopID, Verbose)");
    vstart = ++pos;
    while (text[pos] && text[pos] != ';')
      pos++;
    vend = pos;
    if (kend - kstart >= sizeof(key) || vend - vstart >= sizeof(value))
      return fail_at(err, cap, text, kstart, "key or value too long");
    memcpy(key, text + kstart, kend - kstart);
    key[kend - kstart] = '\0';
    memcpy(value, text + vstart, vend - vstart);
    value[vend - vstart] = '\0';
    if (str_caseeq(key, "Keywords")) {
      if (str_parse_hex_uint64(value, &s->keywords) != 0)
        return fail_at(err, cap, text, vstart, "Keywords is a hex number (e.g. 0x8000)");
    } else if (str_caseeq(key, "Level")) {
      if (level_parse(value, strlen(value), &s->level) != 0)
        return fail_at(err, cap, text, vstart,
                       "Level is Critical, Error, Warning, Informational, Verbose or 0-255");
    } else if (str_caseeq(key, "Process")) {
      if (!value[0])
        return fail_at(err, cap, text, vstart, "Process needs a process id or name");
      snprintf(s->process, sizeof(s->process), "%s", value);
    } else if (str_caseeq(key, "FieldFilter")) {
      if (s->filter_count == TRIGGER_MAX_FILTERS)
        return fail_at(err, cap, text, kstart, "at most %d FieldFilter keys", TRIGGER_MAX_FILTERS);
      rc = parse_filter(text, vstart, value, &s->filters[s->filter_count], err, cap);
      if (rc)
        return rc;
      s->filter_count++;
      rc = check_field(s, text, vstart, s->filters[s->filter_count - 1].field, "FieldFilter",
                       err, cap);
      if (rc)
        return rc;
    } else if (str_caseeq(key, "TriggerMSec")) {
      if (str_parse_int64(value, &s->trigger_msec) != 0 || s->trigger_msec < 0 ||
          s->trigger_msec > INT32_MAX)
        return fail_at(err, cap, text, vstart, "TriggerMSec is a whole number of milliseconds");
    } else if (str_caseeq(key, "DecayToZeroHours")) {
      if (str_parse_double(value, &s->decay_hours) != 0 || s->decay_hours < 0)
        return fail_at(err, cap, text, vstart, "DecayToZeroHours is a number of hours >= 0");
      decay_at = vstart;
    } else if (str_caseeq(key, "StopEvent")) {
      if (trigger_parse_event_ref(s->bi, value, &s->stop, msg, sizeof(msg)) != 0)
        return fail_at(err, cap, text, vstart, "%s", msg);
      have_stop = 1;
      stop_at = vstart;
    } else if (str_caseeq(key, "StartStopID")) {
      ssid_at = vstart;
      if (str_caseeq(value, "ThreadID")) {
        s->ssid = SSID_THREAD;
      } else if (str_caseeq(value, "ActivityID")) {
        s->ssid = SSID_ACTIVITY;
      } else if (value[0]) {
        s->ssid = SSID_FIELD;
        snprintf(s->ssid_field, sizeof(s->ssid_field), "%s", value);
        rc = check_field(s, text, vstart, value, "StartStopID", err, cap);
        if (rc)
          return rc;
      } else {
        return fail_at(err, cap, text, vstart, "StartStopID needs ThreadID, ActivityID or a "
                       "field name");
      }
    } else if (str_caseeq(key, "Verbose")) {
      s->verbose = !str_caseeq(value, "false");
    } else if (str_caseeq(key, "BufferSizeMB")) {
      return fail_at(err, cap, text, kstart, "BufferSizeMB is documented by PerfView but was "
                     "never accepted by it, and etwcap sizes the trigger session itself");
    } else {
      return fail_at(err, cap, text, kstart, "unknown key '%s' (keys: Keywords, Level, "
                     "Process, FieldFilter, TriggerMSec, DecayToZeroHours, StopEvent, "
                     "StartStopID, Verbose)", key);
    }
  }
  if (s->trigger_msec == 0) {
    if (have_stop)
      return fail_at(err, cap, text, stop_at, "StopEvent only applies with TriggerMSec=N (a "
                     "start/stop duration)");
    if (s->ssid != SSID_DEFAULT)
      return fail_at(err, cap, text, ssid_at, "StartStopID only applies with TriggerMSec=N");
    if (decay_at)
      return fail_at(err, cap, text, decay_at, "DecayToZeroHours only applies with "
                     "TriggerMSec=N");
    return 0;
  }
  if (!have_stop && default_stop(s, &s->stop, msg, sizeof(msg)) != 0)
    return fail_at(err, cap, text, strlen(text), "%s", msg);
  if (same_ref(&s->start, &s->stop))
    return fail_at(err, cap, text, have_stop ? stop_at : strlen(text),
                   "the stop event is the start event");
  return 0;
}

void trigger_etw_spec_release(struct trigger_etw_spec *s)
{
  size_t i;
  for (i = 0; i < s->filter_count; i++)
    trigger_regex_free(&s->filters[i].re);
  s->filter_count = 0;
}

/* --- /StopOnGCEvent -------------------------------------------------------- */

int trigger_parse_gc_spec(const char *text, struct trigger_gc_spec *out, char *err, size_t cap)
{
  size_t pos = 0;
  size_t susp_at = 0, other_at = 0;
  memset(out, 0, sizeof(*out));
  while (text[pos]) {
    size_t start = pos, end, eq;
    char item[TRIGGER_NAME_MAX];
    int64_t n;
    while (text[pos] && text[pos] != ';')
      pos++;
    end = pos;
    if (text[pos] == ';')
      pos++;
    while (start < end && is_space(text[start]))
      start++;
    while (end > start && is_space(text[end - 1]))
      end--;
    if (start == end)
      return fail_at(err, cap, text, start, "an empty item: give Gen2, Induced, OverMsec=N, "
                     "SuspendOverMsec=N or Process=P, joined with ';'");
    if (copy_span(item, text, start, end))
      return fail_at(err, cap, text, start, "item too long");
    eq = (size_t)(strchr(item, '=') ? strchr(item, '=') - item : -1);
    if (str_caseeq(item, "Gen2")) {
      out->conditions |= GCE_GEN2;
      other_at = start + 1;
    } else if (str_caseeq(item, "Induced")) {
      out->conditions |= GCE_INDUCED;
      other_at = start + 1;
    } else if (eq != (size_t)-1 && eq == 8 && str_ncaseeq(item, "OverMsec", 8)) {
      if (str_parse_int64(item + 9, &n) != 0 || n < 1 || n > 86400000)
        return fail_at(err, cap, text, start + 9, "OverMsec needs milliseconds (1-86400000)");
      out->over_msec = n;
      other_at = start + 1;
    } else if (eq != (size_t)-1 && eq == 15 && str_ncaseeq(item, "SuspendOverMsec", 15)) {
      if (str_parse_int64(item + 16, &n) != 0 || n < 1 || n > 86400000)
        return fail_at(err, cap, text, start + 16,
                       "SuspendOverMsec needs milliseconds (1-86400000)");
      out->suspend_over_msec = n;
      susp_at = start + 1;
    } else if (eq != (size_t)-1 && eq == 7 && str_ncaseeq(item, "Process", 7)) {
      if (!item[8])
        return fail_at(err, cap, text, start + 8, "Process needs a process id or name");
      snprintf(out->process, sizeof(out->process), "%s", item + 8);
    } else {
      return fail_at(err, cap, text, start, "expected Gen2, Induced, OverMsec=N, "
                     "SuspendOverMsec=N or Process=NAME (joined with ';')");
    }
  }
  if (out->suspend_over_msec && other_at)
    return fail_at(err, cap, text, (susp_at > other_at ? susp_at : other_at) - 1,
                   "SuspendOverMsec measures the suspension, which comes before the GC it "
                   "serves: it cannot be combined with Gen2, Induced or OverMsec (give two "
                   "triggers instead)");
  if (!out->conditions && !out->over_msec && !out->suspend_over_msec)
    out->conditions = GCE_GEN2;
  return 0;
}

/* --- /StopOnEventCounter --------------------------------------------------- */

int trigger_parse_evcounter_spec(const char *text, struct trigger_evcounter_spec *out, char *err,
                                 size_t cap)
{
  static const char syntax[] = "SOURCE:COUNTER OP NUM";
  size_t op, start, end, colon = (size_t)-1, i;
  struct etw_guid g;
  int rc;
  memset(out, 0, sizeof(*out));
  rc = parse_threshold(text, syntax, &op, &out->greater, &out->threshold, err, cap);
  if (rc)
    return rc;
  trim(text, &start, &end, op);
  for (i = end; i > start; i--)
    if (text[i - 1] == ':') {
      colon = i - 1;
      break;
    }
  if (colon == (size_t)-1)
    return fail_at(err, cap, text, end, "expected %s (e.g. System.Runtime:gc-heap-size>500)",
                   syntax);
  if (text[start] == '*')
    start++;
  if (colon == start)
    return fail_at(err, cap, text, start, "the SOURCE (an EventSource name) is empty");
  if (colon + 1 == end)
    return fail_at(err, cap, text, colon + 1, "the COUNTER name is empty");
  if (copy_span(out->source, text, start, colon) || copy_span(out->counter, text, colon + 1, end))
    return fail_at(err, cap, text, start, "a name is too long");
  if (guid_parse(out->source, &out->provider) == 0)
    return 0;
  if (eventsource_guid(out->source, &g) != 0)
    return fail_at(err, cap, text, start, "'%s' is not a valid EventSource name", out->source);
  out->provider.data1 = g.data1;
  out->provider.data2 = g.data2;
  out->provider.data3 = g.data3;
  memcpy(out->provider.data4, g.data4, 8);
  return 0;
}

/* --- /StopOnHttpStatus ----------------------------------------------------- */

static int three_digits(const char *s, int *v)
{
  if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) ||
      !isdigit((unsigned char)s[2]))
    return -1;
  *v = (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
  return 0;
}

int trigger_parse_http_spec(const char *text, struct trigger_http_spec *out, char *err, size_t cap)
{
  size_t pos = 0;
  memset(out, 0, sizeof(*out));
  for (;;) {
    size_t start = pos, end, len;
    int lo, hi;
    while (text[pos] && text[pos] != ',' && text[pos] != ';')
      pos++;
    end = pos;
    while (start < end && is_space(text[start]))
      start++;
    while (end > start && is_space(text[end - 1]))
      end--;
    len = end - start;
    if (len == 3 && isdigit((unsigned char)text[start]) &&
        (text[start + 1] == 'x' || text[start + 1] == 'X') &&
        (text[start + 2] == 'x' || text[start + 2] == 'X') && text[start] != '0') {
      lo = (text[start] - '0') * 100;
      hi = lo + 99;
    } else if (len == 3 && three_digits(text + start, &lo) == 0) {
      hi = lo;
    } else if (len == 7 && text[start + 3] == '-' && three_digits(text + start, &lo) == 0 &&
               three_digits(text + start + 4, &hi) == 0 && lo <= hi) {
      (void)0;
    } else {
      return fail_at(err, cap, text, start, "expected a status code (503), a class (5xx) or a "
                     "range (500-599), " TRIGGER_HTTP_JOINED);
    }
    /* RFC 9110 §15: a status code is a three-digit integer from 100 to 599. */
    if (lo < 100 || hi > 599)
      return fail_at(err, cap, text, start, "HTTP status codes are 100-599");
    if (out->count == TRIGGER_MAX_STATUS_RANGES)
      return fail_at(err, cap, text, start, "at most %d codes or ranges",
                     TRIGGER_MAX_STATUS_RANGES);
    out->ranges[out->count].lo = lo;
    out->ranges[out->count].hi = hi;
    out->count++;
    if (!text[pos])
      return 0;
    pos++;
  }
}

int trigger_http_match(const struct trigger_http_spec *s, int status)
{
  size_t i;
  for (i = 0; i < s->count; i++)
    if (status >= s->ranges[i].lo && status <= s->ranges[i].hi)
      return 1;
  return 0;
}

/* --- /StopOnEventLogMessage and /StopOnException ---------------------------- */

int trigger_parse_eventlog_spec(const char *text, struct trigger_eventlog_spec *out, char *err,
                                size_t cap)
{
  const char *at = strchr(text, '@');
  const char *pattern = text;
  char msg[256];
  size_t rpos = 0, i;
  int rc;
  memset(out, 0, sizeof(*out));
  snprintf(out->log, sizeof(out->log), "Application");
  if (at && at > text) {
    int ok = 1;
    for (i = 0; text + i < at; i++)
      if (!is_word(text[i]) && !is_space(text[i]))
        ok = 0;
    if (ok) {
      if (copy_span(out->log, text, 0, (size_t)(at - text)))
        return fail_at(err, cap, text, 0, "the log name is too long");
      pattern = at + 1;
    }
  }
  out->pattern_at = (size_t)(pattern - text);
  rc = trigger_regex_compile(&out->re, pattern, 1, msg, sizeof(msg), &rpos);
  if (rc == ETWCAP_E_USAGE)
    return fail_at(err, cap, text, out->pattern_at + rpos,
                   "bad regular expression: %s", msg);
  return rc;
}

void trigger_eventlog_spec_release(struct trigger_eventlog_spec *s)
{
  trigger_regex_free(&s->re);
}

int trigger_parse_exception_regex(const char *text, struct trigger_regex *out, char *err,
                                  size_t cap)
{
  char msg[256];
  size_t rpos = 0;
  int rc = trigger_regex_compile(out, text, 0, msg, sizeof(msg), &rpos);
  if (rc == ETWCAP_E_USAGE)
    return fail_at(err, cap, text, rpos, "bad regular expression: %s", msg);
  return rc;
}

int trigger_process_is_pid(const char *text, uint32_t *pid)
{
  int64_t v;
  size_t i;
  for (i = 0; text[i]; i++)
    if (!isdigit((unsigned char)text[i]))
      return 0;
  if (!i || str_parse_int64(text, &v) != 0 || v < 0 || v > UINT32_MAX)
    return 0;
  *pid = (uint32_t)v;
  return 1;
}
