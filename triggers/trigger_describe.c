/* See trigger_describe.h.  The fields come from the engine's own triggers
 * (trigger_engine_trigger_at), never from parsing the specs again here. */
#include "triggers/trigger_describe.h"

#include "etw/event/guid.h"
#include "etw/event/keywords.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strbuf.h"
#include "triggers/trigger_counter.h"
#include "triggers/trigger_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds to one trigger; the first allocation failure is kept (sticky). */
struct builder {
  struct trigger_desc *d;
  int failed;
};

static struct trigger_field *add(struct builder *b, const char *key,
                                 enum trigger_field_type type, const char *text)
{
  struct trigger_field *f;
  if (b->failed)
    return NULL;
  if (b->d->count == TRIGGER_DESC_FIELDS_MAX) { /* a programming error: grow the maximum */
    b->failed = ETWCAP_E_INTERNAL;
    return NULL;
  }
  f = &b->d->fields[b->d->count];
  memset(f, 0, sizeof(*f));
  f->key = key;
  f->type = type;
  if (text && !(f->text = etwcap_strdup(text))) {
    b->failed = ETWCAP_E_NOMEM;
    return NULL;
  }
  b->d->count++;
  return f;
}

static void add_string(struct builder *b, const char *key, const char *text)
{
  add(b, key, TRIGGER_FIELD_STRING, text ? text : "");
}

static void add_number(struct builder *b, const char *key, double v)
{
  struct trigger_field *f = add(b, key, TRIGGER_FIELD_NUMBER, NULL);
  if (f)
    f->number = v;
}

static void add_bool(struct builder *b, const char *key, int v)
{
  struct trigger_field *f = add(b, key, TRIGGER_FIELD_BOOL, NULL);
  if (f)
    f->flag = v != 0;
}

/* A list field from items already joined, each ended by '\n'. */
static void add_strings(struct builder *b, const char *key, struct strbuf *items)
{
  char *joined = NULL;
  struct trigger_field *f;
  if (strbuf_finish(items, &joined) != 0) {
    b->failed = ETWCAP_E_NOMEM;
    return;
  }
  f = add(b, key, TRIGGER_FIELD_STRINGS, NULL);
  if (!f) {
    etwcap_free(joined);
    return;
  }
  f->text = joined;
}

static void add_hex(struct builder *b, const char *key, uint64_t v)
{
  char text[24];
  snprintf(text, sizeof(text), "0x%llX", (unsigned long long)v);
  add_string(b, key, text);
}

static void add_guid(struct builder *b, const char *key, const struct etw_guid *g)
{
  char text[GUID_STRING_SIZE];
  add_string(b, key, guid_format(g, text));
}

static const char *role_name(enum trigger_role role)
{
  switch (role) {
  case TRIGGER_ROLE_START: return "start";
  case TRIGGER_ROLE_LIMIT: return "limit";
  default: return "stop";
  }
}

static void add_common(struct builder *b, const char *qualifier, enum trigger_role role,
                       const char *spec, const char *kind)
{
  add_string(b, "qualifier", qualifier);
  add_string(b, "role", role_name(role));
  add_string(b, "spec", spec);
  add_string(b, "kind", kind);
}

/* What every stop trigger shares: the cycle PerfView runs after it fires. */
static void add_cycle(struct builder *b, const struct trigger_options *o, enum trigger_role role)
{
  if (role == TRIGGER_ROLE_STOP)
    add_number(b, "delayAfterTriggerSec", (double)o->delay_after_trigger_sec);
  else if (role == TRIGGER_ROLE_LIMIT)
    add_number(b, "delayAfterTriggerSec", 0); /* PerfView stops at once at the limit */
  add_number(b, "collectMultiple", (double)o->collect_multiple);
}

static void describe_counter(struct builder *b, const struct trigger_options *o,
                             const struct trigger_view *v)
{
  const struct trigger_counter_spec *s = v->counter;
  add_common(b, v->qualifier, v->role, v->spec, "perfCounter");
  add_string(b, "category", s->category);
  add_string(b, "counter", s->counter);
  add_string(b, "instance", s->instance);
  add_string(b, "operator", s->greater ? ">" : "<");
  add_number(b, "threshold", s->threshold);
  add_number(b, "minSecForTrigger", (double)o->min_sec_for_trigger);
  add_number(b, "pollMSec", (double)o->trigger_poll_msec);
  add_number(b, "samplesNeeded", (double)trigger_counter_samples_needed(o->min_sec_for_trigger,
                                                                        o->trigger_poll_msec));
  /* A start counter does not decay (PerfView builds it with 0). */
  add_number(b, "decayToZeroHours", v->role == TRIGGER_ROLE_START ? 0 : o->decay_to_zero_hours);
  add_cycle(b, o, v->role);
}

static const char *event_name(const struct trigger_event_ref *r, char *buf, size_t cap)
{
  if (r->kind == REF_BUILTIN)
    return bi_event_name(r->bi, buf, cap);
  return r->name;
}

static void add_event(struct builder *b, const char *key, const char *id_key,
                      const struct trigger_etw_spec *s, const struct trigger_event_ref *r)
{
  char name[2 * TRIGGER_NAME_MAX];
  add_string(b, key, event_name(r, name, sizeof(name)));
  /* Kernel events are Task/Opcode, and TraceLogging names have no ID. */
  if (r->kind == REF_ID || (r->kind == REF_BUILTIN && s->bi != BI_KERNEL))
    add_number(b, id_key, r->id);
}

static const char *filter_op(enum trigger_filter_op op)
{
  static const char *const names[] = { [FOP_LT] = "<", [FOP_LE] = "<=", [FOP_GT] = ">",
                                       [FOP_GE] = ">=", [FOP_EQ] = "=",  [FOP_NE] = "!=",
                                       [FOP_MATCH] = "~" };
  return names[op];
}

static const char *start_stop_id(const struct trigger_etw_spec *s)
{
  switch (s->ssid) {
  case SSID_THREAD: return "ThreadID";
  case SSID_ACTIVITY: return "ActivityID";
  case SSID_FIELD: return s->ssid_field;
  default: return "default";
  }
}

/* The built-in triggers' conditions on the event, in words. */
static void add_conditions(struct builder *b, unsigned preds)
{
  struct strbuf items = { 0 };
  if (preds & PRED_GEN2)
    strbuf_puts(&items, "Depth >= 2\n");
  if (preds & (PRED_GEN2 | PRED_NOT_BACKGROUND))
    strbuf_puts(&items, "Type != BackgroundGC\n");
  if (preds & PRED_INDUCED)
    strbuf_puts(&items, "Reason is Induced, InducedNotForced, InducedCompacting or "
                        "InducedLowMemory\n");
  if (preds & PRED_GC_PREP)
    strbuf_puts(&items, "Reason == SuspendForGCPrep\n");
  if (preds & PRED_EXCEPTION)
    strbuf_puts(&items, "\"Type: Message\" matches regex\n");
  if (preds & PRED_HTTP_STATUS)
    strbuf_puts(&items, "statusCode in statusCodes\n");
  add_strings(b, "conditions", &items);
}

static void describe_etw(struct builder *b, const struct trigger_options *o,
                         const struct trigger_view *v)
{
  const struct trigger_etw *t = v->etw;
  const struct trigger_etw_spec *s = &t->spec;
  const char *level = level_name(s->level);
  struct strbuf items = { 0 };
  size_t i;
  add_common(b, v->qualifier, v->role, v->spec, "etwEvent");
  add_string(b, "provider", s->provider_name);
  add_guid(b, "providerGuid", &s->provider);
  add_event(b, "event", "eventId", s, &s->start);
  add_hex(b, "keywords", s->keywords);
  add_number(b, "level", s->level);
  add_string(b, "levelName", level ? level : "");
  add_string(b, "process", s->process);
  for (i = 0; i < s->filter_count; i++)
    strbuf_printf(&items, "%s%s%s\n", s->filters[i].field, filter_op(s->filters[i].op),
                  s->filters[i].value);
  add_strings(b, "fieldFilters", &items);
  add_conditions(b, t->preds);
  if (t->exc_set) {
    add_string(b, "regex", v->spec); /* /StopOnException's value is the pattern */
    add_bool(b, "regexIgnoresCase", 0);
  }
  if (t->preds & PRED_HTTP_STATUS) {
    struct strbuf codes = { 0 };
    for (i = 0; i < t->http.count; i++) {
      if (t->http.ranges[i].lo == t->http.ranges[i].hi)
        strbuf_printf(&codes, "%d\n", t->http.ranges[i].lo);
      else
        strbuf_printf(&codes, "%d-%d\n", t->http.ranges[i].lo, t->http.ranges[i].hi);
    }
    add_strings(b, "statusCodes", &codes);
  }
  add_number(b, "triggerMSec", (double)s->trigger_msec);
  if (s->trigger_msec) { /* a start/stop duration */
    add_event(b, "stopEvent", "stopEventId", s, &s->stop);
    add_string(b, "startStopId", start_stop_id(s));
    add_number(b, "decayToZeroHours", s->decay_hours);
  }
  add_cycle(b, o, v->role);
}

static void describe_evcounter(struct builder *b, const struct trigger_options *o,
                               const struct trigger_view *v)
{
  const struct trigger_evcounter_spec *s = v->evcounter;
  add_common(b, v->qualifier, v->role, v->spec, "eventCounter");
  add_string(b, "source", s->source);
  add_guid(b, "providerGuid", &s->provider);
  add_string(b, "counter", s->counter);
  add_string(b, "operator", s->greater ? ">" : "<");
  add_number(b, "threshold", s->threshold);
  add_string(b, "process", o->process);
  add_cycle(b, o, v->role);
}

static void describe_eventlog(struct builder *b, const struct trigger_options *o,
                              const struct trigger_view *v)
{
  const struct trigger_eventlog_spec *s = v->eventlog;
  add_common(b, v->qualifier, v->role, v->spec, "eventLog");
  add_string(b, "log", s->log);
  add_string(b, "regex", v->spec + s->pattern_at);
  add_bool(b, "regexIgnoresCase", 1);
  add_cycle(b, o, v->role);
}

static int grow(struct trigger_descs *out, struct builder *b)
{
  struct trigger_desc *items =
      etwcap_reallocarray(out->items, out->count + 1, sizeof(*out->items));
  if (!items)
    return ETWCAP_E_NOMEM;
  out->items = items;
  b->d = &out->items[out->count++];
  b->d->count = 0;
  b->failed = 0;
  return 0;
}

int trigger_describe(const struct trigger_options *o, const struct trigger_engine *e,
                     struct trigger_descs *out)
{
  struct builder b = { NULL, 0 };
  size_t i, n;
  int rc = 0;
  memset(out, 0, sizeof(*out));
  n = trigger_engine_trigger_count(e);
  for (i = 0; i < n && rc == 0; i++) {
    struct trigger_view v;
    if ((rc = trigger_engine_trigger_at(e, i, &v)) != 0 || (rc = grow(out, &b)) != 0)
      break;
    switch (v.kind) {
    case TRIGGER_KIND_COUNTER: describe_counter(&b, o, &v); break;
    case TRIGGER_KIND_ETW: describe_etw(&b, o, &v); break;
    case TRIGGER_KIND_EVENTCOUNTER: describe_evcounter(&b, o, &v); break;
    case TRIGGER_KIND_EVENTLOG: describe_eventlog(&b, o, &v); break;
    }
    rc = b.failed;
  }
  if (rc == 0 && o->max_collect_sec > 0 && (rc = grow(out, &b)) == 0) {
    char spec[32];
    snprintf(spec, sizeof(spec), "%lld", (long long)o->max_collect_sec);
    add_common(&b, "MaxCollectSec", TRIGGER_ROLE_LIMIT, spec, "timeLimit");
    add_number(&b, "maxCollectSec", (double)o->max_collect_sec);
    add_cycle(&b, o, TRIGGER_ROLE_LIMIT);
    rc = b.failed;
  }
  if (rc)
    trigger_descs_release(out);
  return rc;
}

void trigger_descs_release(struct trigger_descs *d)
{
  size_t i, k;
  for (i = 0; i < d->count; i++)
    for (k = 0; k < d->items[i].count; k++)
      etwcap_free(d->items[i].fields[k].text);
  etwcap_free(d->items);
  d->items = NULL;
  d->count = 0;
}

const struct trigger_field *trigger_desc_field(const struct trigger_desc *d, const char *key)
{
  size_t i;
  for (i = 0; i < d->count; i++)
    if (strcmp(d->fields[i].key, key) == 0)
      return &d->fields[i];
  return NULL;
}

/* The shortest decimal that reads back as v (thresholds are typed by
 * people: 90 stays 90, 0.1 stays 0.1). */
static void number_text(double v, char *buf, size_t cap)
{
  snprintf(buf, cap, "%.15g", v);
  if (strtod(buf, NULL) != v)
    snprintf(buf, cap, "%.17g", v);
}

static void json_value(struct strbuf *b, const struct trigger_field *f)
{
  char num[40];
  const char *p, *nl;
  int first = 1;
  switch (f->type) {
  case TRIGGER_FIELD_STRING:
    strbuf_json_string(b, f->text);
    break;
  case TRIGGER_FIELD_NUMBER:
    if (!isfinite(f->number)) { /* JSON has no infinity */
      strbuf_puts(b, "null");
      break;
    }
    number_text(f->number, num, sizeof(num));
    strbuf_puts(b, num);
    break;
  case TRIGGER_FIELD_BOOL:
    strbuf_puts(b, f->flag ? "true" : "false");
    break;
  case TRIGGER_FIELD_STRINGS:
    strbuf_puts(b, "[");
    for (p = f->text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
      char *item = etwcap_strndup(p, (size_t)(nl - p));
      if (!item) {
        b->failed = 1;
        return;
      }
      strbuf_puts(b, first ? "" : ", ");
      strbuf_json_string(b, item);
      etwcap_free(item);
      first = 0;
    }
    strbuf_puts(b, "]");
    break;
  }
}

int trigger_descs_to_json(const struct trigger_descs *d, int indent, char **out)
{
  struct strbuf b = { 0 };
  size_t i, k;
  strbuf_puts(&b, "[");
  for (i = 0; i < d->count; i++) {
    strbuf_printf(&b, "%s\n%*s{", i ? "," : "", indent, "");
    for (k = 0; k < d->items[i].count; k++) {
      const struct trigger_field *f = &d->items[i].fields[k];
      strbuf_printf(&b, "%s\"%s\": ", k ? ", " : "", f->key);
      json_value(&b, f);
    }
    strbuf_puts(&b, "}");
  }
  if (d->count)
    strbuf_printf(&b, "\n%*s", indent > 2 ? indent - 2 : 0, "");
  strbuf_puts(&b, "]");
  return strbuf_finish(&b, out);
}

static void text_value(struct strbuf *b, const struct trigger_field *f)
{
  char num[40];
  const char *p, *nl;
  switch (f->type) {
  case TRIGGER_FIELD_STRING:
    strbuf_puts(b, f->text[0] ? f->text : "(none)");
    break;
  case TRIGGER_FIELD_NUMBER:
    number_text(f->number, num, sizeof(num));
    strbuf_puts(b, num);
    break;
  case TRIGGER_FIELD_BOOL:
    strbuf_puts(b, f->flag ? "yes" : "no");
    break;
  case TRIGGER_FIELD_STRINGS:
    if (!f->text[0])
      strbuf_puts(b, "(none)");
    for (p = f->text; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
      strbuf_printf(b, "%s%.*s", p == f->text ? "" : "; ", (int)(nl - p), p);
    break;
  }
}

int trigger_descs_to_text(const struct trigger_descs *d, char **out)
{
  struct strbuf b = { 0 };
  size_t i, k;
  if (d->count)
    strbuf_printf(&b, "Triggers (%u):\n", (unsigned)d->count);
  for (i = 0; i < d->count; i++) {
    const struct trigger_desc *t = &d->items[i];
    const struct trigger_field *q = trigger_desc_field(t, "qualifier");
    const struct trigger_field *r = trigger_desc_field(t, "role");
    const struct trigger_field *s = trigger_desc_field(t, "spec");
    strbuf_printf(&b, "  /%s%s%s (%s)\n", q->text, s->text[0] ? ":" : "", s->text, r->text);
    for (k = 0; k < t->count; k++) {
      const struct trigger_field *f = &t->fields[k];
      if (f == q || f == r || f == s)
        continue; /* in the heading */
      strbuf_printf(&b, "    %-22s ", f->key);
      text_value(&b, f);
      strbuf_puts(&b, "\n");
    }
  }
  return strbuf_finish(&b, out);
}
