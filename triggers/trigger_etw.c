/* See trigger_etw.h. */
#include "triggers/trigger_etw.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/strutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KEY_LEN 40
#define SS_MAX_OPEN (1u << 20) /* open starts kept at most (lost stops leak otherwise) */
#define TICKS_PER_MS 10000.0
#define TICKS_PER_HOUR 36000000000.0

struct ss_entry {
  uint8_t key[KEY_LEN];
  uint32_t hash;
  uint8_t used;
  int64_t ft;
};

void trigger_etw_ctx_init(struct trigger_etw_ctx *cx, const struct etw_event *ev, int64_t ft,
                          const struct trigger_procmap *procmap,
                          const struct manifests *manifests)
{
  cx->ev = ev;
  cx->ft = ft;
  cx->bi = bi_provider_of_event(ev);
  cx->layout = NULL;
  cx->layout_state = 0;
  cx->tl_state = 0;
  cx->man_state = 0;
  cx->man = NULL;
  cx->procmap = procmap;
  cx->manifests = manifests;
}

/* The event's entry in an EventSource manifest seen in the trace. */
static const struct man_event *ctx_man(struct trigger_etw_ctx *cx)
{
  if (!cx->man_state) {
    cx->man_state = 1;
    if (cx->manifests && cx->manifests->count && (cx->ev->has & ETW_HAS_DESCRIPTOR) &&
        (cx->ev->has & ETW_HAS_PROVIDER))
      cx->man = manifests_lookup(cx->manifests, &cx->ev->provider, cx->ev->id,
                                 cx->ev->version);
  }
  return cx->man;
}

/* The built-in layout is looked up only when a field is needed: most
 * events a trigger sees are rejected on their id alone. */
static const struct bi_event *ctx_layout(struct trigger_etw_ctx *cx)
{
  if (!cx->layout_state) {
    cx->layout = cx->bi != BI_NONE ? bi_lookup(cx->bi, cx->ev) : NULL;
    cx->layout_state = 1;
  }
  return cx->layout;
}

static int ctx_tl(struct trigger_etw_ctx *cx)
{
  if (cx->tl_state == 0)
    cx->tl_state = tl_parse(cx->ev, &cx->tl) == 1 ? 1 : -1;
  return cx->tl_state == 1;
}

/* The fixed layout that decodes the event (built-in, else a manifest's
 * when it has no TraceLogging schema), or NULL. */
static const struct tf_layout *fixed_layout(struct trigger_etw_ctx *cx)
{
  if (ctx_layout(cx))
    return &cx->layout->layout;
  if (ctx_tl(cx))
    return NULL;
  return ctx_man(cx) ? &cx->man->layout : NULL;
}

int trigger_event_field(struct trigger_etw_ctx *cx, const char *name, struct tv_value *v)
{
  const struct etw_event *ev = cx->ev;
  const struct tf_layout *l = fixed_layout(cx);
  if (l)
    return tf_find(l, ev->user_data, ev->user_len, ev->pointer_size, name, v) == 1;
  return cx->tl_state == 1 &&
         tl_find(&cx->tl, ev->user_data, ev->user_len, ev->pointer_size, name, v) == 1;
}

/* --- whole texts ---------------------------------------------------------------- */

/* Room for n more bytes and a NUL after the len bytes of t->text. */
static int text_reserve(struct trigger_etw *t, size_t len, size_t n)
{
  char *grown;
  size_t cap = t->text_cap ? t->text_cap : 256;
  if (len + n < t->text_cap)
    return 0;
  while (cap <= len + n)
    cap *= 2;
  if (!(grown = etwcap_realloc(t->text, cap)))
    return ETWCAP_E_NOMEM;
  t->text = grown;
  t->text_cap = cap;
  return 0;
}

static int text_put(struct trigger_etw *t, size_t *len, const char *s)
{
  size_t n = strlen(s);
  if (text_reserve(t, *len, n) != 0)
    return ETWCAP_E_NOMEM;
  memcpy(t->text + *len, s, n + 1);
  *len += n;
  return 0;
}

/* Field idx of layout l into v, a string's text whole: tv_value keeps only
 * TV_TEXT_MAX bytes of it, and a payload string runs to the end of the
 * event (64 KiB; 3 bytes of UTF-8 for each 2 of UTF-16).  The text (of any
 * value) is appended at t->text + *len.  1, 0 (not there), NOMEM. */
static int layout_whole(struct trigger_etw *t, struct trigger_etw_ctx *cx,
                        const struct tf_layout *l, size_t idx, struct tv_value *v, size_t *len)
{
  const struct etw_event *ev = cx->ev;
  enum tf_kind kind = l->fields[idx].kind;
  char buf[TV_SHORT_TEXT_MAX];
  struct pl_cursor c;
  size_t i, room;
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  for (i = 0; i < idx; i++)
    if (tf_read(&c, l->fields[i].kind, NULL) != 0)
      return 0;
  if (kind != TF_UTF16Z && kind != TF_ANSIZ)
    return tf_read(&c, kind, v) != 0 ? 0 : text_put(t, len, tv_text(v, buf)) ? ETWCAP_E_NOMEM : 1;
  room = kind == TF_UTF16Z ? (c.len - c.pos) / 2 * 3 : c.len - c.pos;
  if (text_reserve(t, *len, room) != 0)
    return ETWCAP_E_NOMEM;
  *len += kind == TF_UTF16Z ? pl_utf16z(&c, t->text + *len, room + 1)
                            : pl_ansiz(&c, t->text + *len, room + 1);
  v->text[0] = '\0';
  tv_set_text(v);
  return 1;
}

/* Field `name` (or the first field, name NULL) into v and its whole text
 * appended at t->text + *len: a TraceLogging string is decoded from where
 * tl_find_string says it lies, as layout_whole does.  1, 0 (no such
 * field), NOMEM. */
static int field_whole(struct trigger_etw *t, struct trigger_etw_ctx *cx, const char *name,
                       struct tv_value *v, size_t *len)
{
  const struct etw_event *ev = cx->ev;
  const struct tf_layout *l = fixed_layout(cx);
  char buf[TV_SHORT_TEXT_MAX];
  struct tl_string s;
  size_t room;
  int idx = name ? tf_index(l, name) : 0;
  if (l)
    return idx >= 0 && (size_t)idx < l->count ? layout_whole(t, cx, l, (size_t)idx, v, len) : 0;
  if (cx->tl_state != 1 || tl_find_string(&cx->tl, ev->user_data, ev->user_len,
                                          ev->pointer_size, name, v, &s) != 1)
    return 0;
  if (v->type != TV_TEXT)
    return text_put(t, len, tv_text(v, buf)) ? ETWCAP_E_NOMEM : 1;
  room = s.utf16 ? s.len / 2 * 3 : s.len;
  if (text_reserve(t, *len, room) != 0)
    return ETWCAP_E_NOMEM;
  *len += tl_string_text(&s, ev->user_data, t->text + *len, room + 1);
  return 1;
}

char *trigger_event_name(struct trigger_etw_ctx *cx, char *buf, size_t cap)
{
  if (ctx_layout(cx))
    return bi_event_name(cx->layout, buf, cap);
  if (ctx_tl(cx)) {
    snprintf(buf, cap, "%s", cx->tl.name);
    return buf;
  }
  if (ctx_man(cx))
    return manifests_event_name(cx->man, buf, cap);
  if (cx->ev->is_kernel)
    snprintf(buf, cap, "kernel group %u opcode %u", cx->ev->group, cx->ev->opcode);
  else
    snprintf(buf, cap, "EventID(%u)", (unsigned)cx->ev->id);
  return buf;
}

/* --- the table of open starts ------------------------------------------------ */

static uint32_t hash_key(const uint8_t *k)
{
  uint32_t h = 2166136261u;
  size_t i;
  for (i = 0; i < KEY_LEN; i++) {
    h ^= k[i];
    h *= 16777619u;
  }
  return h ? h : 1;
}

static struct ss_entry *ss_find(struct trigger_etw *t, const uint8_t *key, uint32_t h)
{
  size_t mask, i;
  if (!t->starts_cap)
    return NULL;
  mask = t->starts_cap - 1;
  for (i = h & mask;; i = (i + 1) & mask) {
    struct ss_entry *e = &t->starts[i];
    if (!e->used)
      return NULL;
    if (e->hash == h && !memcmp(e->key, key, KEY_LEN))
      return e;
  }
}

static int ss_grow(struct trigger_etw *t)
{
  size_t cap = t->starts_cap ? t->starts_cap * 2 : 64, i, j;
  struct ss_entry *n = etwcap_calloc(cap, sizeof(*n));
  if (!n)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < t->starts_cap; i++) {
    struct ss_entry *e = &t->starts[i];
    if (!e->used)
      continue;
    for (j = e->hash & (cap - 1); n[j].used; j = (j + 1) & (cap - 1))
      ;
    n[j] = *e;
  }
  etwcap_free(t->starts);
  t->starts = n;
  t->starts_cap = cap;
  return 0;
}

static int ss_put(struct trigger_etw *t, const uint8_t *key, uint32_t h, int64_t ft)
{
  struct ss_entry *e = ss_find(t, key, h);
  size_t i, mask;
  if (e) { /* a second start for the same context replaces the first */
    e->ft = ft;
    return 0;
  }
  if (t->starts_count >= SS_MAX_OPEN) {
    if (!t->full_warned)
      log_warn("trigger %s: %u starts are waiting for their stop events; further starts are "
               "ignored",
               t->spec.provider_name, SS_MAX_OPEN);
    t->full_warned = 1;
    return 0;
  }
  if ((t->starts_count + 1) * 2 > t->starts_cap) {
    int rc = ss_grow(t);
    if (rc)
      return rc;
  }
  mask = t->starts_cap - 1;
  for (i = h & mask; t->starts[i].used; i = (i + 1) & mask)
    ;
  memcpy(t->starts[i].key, key, KEY_LEN);
  t->starts[i].hash = h;
  t->starts[i].ft = ft;
  t->starts[i].used = 1;
  t->starts_count++;
  return 0;
}

/* Removes e, shifting later entries of its probe run back (no tombstones). */
static void ss_remove(struct trigger_etw *t, struct ss_entry *e)
{
  size_t mask = t->starts_cap - 1, i = (size_t)(e - t->starts), j = i;
  for (;;) {
    size_t home;
    j = (j + 1) & mask;
    if (!t->starts[j].used)
      break;
    home = t->starts[j].hash & mask;
    /* Move j into the hole at i unless its home lies cyclically in (i, j]. */
    if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j))
      continue;
    t->starts[i] = t->starts[j];
    i = j;
  }
  t->starts[i].used = 0;
  t->starts_count--;
}

/* --- setup ------------------------------------------------------------------------ */

int trigger_etw_init(struct trigger_etw *t, struct trigger_etw_spec *spec, unsigned preds,
                     struct trigger_procmap *procmap, int64_t now)
{
  memset(t, 0, sizeof(*t));
  t->spec = *spec;
  memset(spec, 0, sizeof(*spec)); /* the regexes now belong to t */
  t->preds = preds;
  t->proc_slot = -1;
  t->created = now;
  if (t->spec.process[0]) {
    if (trigger_process_is_pid(t->spec.process, &t->proc_pid)) {
      t->proc_is_pid = 1;
    } else {
      t->proc_slot = trigger_procmap_add(procmap, t->spec.process);
      if (t->proc_slot < 0)
        return ETWCAP_E_RANGE;
    }
  }
  return 0;
}

void trigger_etw_reset(struct trigger_etw *t, int64_t now)
{
  if (t->starts)
    memset(t->starts, 0, t->starts_cap * sizeof(*t->starts));
  t->starts_count = 0;
  t->created = now;
  t->pairs = 0;
  t->max_ms = 0;
}

void trigger_etw_release(struct trigger_etw *t)
{
  trigger_etw_spec_release(&t->spec);
  if (t->exc_set)
    trigger_regex_free(&t->exc);
  etwcap_free(t->starts);
  t->starts = NULL;
  t->starts_cap = t->starts_count = 0;
  etwcap_free(t->text);
  t->text = NULL;
  t->text_cap = 0;
}

int64_t trigger_etw_effective_msec(const struct trigger_etw *t, int64_t now)
{
  int64_t ms = t->spec.trigger_msec;
  if (t->spec.decay_hours != 0)
    ms = (int64_t)((double)ms *
                   (1.0 - (double)(now - t->created) / TICKS_PER_HOUR / t->spec.decay_hours));
  return ms;
}

/* --- matching ------------------------------------------------------------------------ */

static int provider_matches(const struct trigger_etw *t, const struct etw_event *ev)
{
  if (t->spec.bi == BI_KERNEL)
    return bi_kernel_group(ev) != 0;
  return (ev->has & ETW_HAS_PROVIDER) && guid_equal(&ev->provider, &t->spec.provider);
}

/* What the live session would have delivered: ETW's level and
 * MatchAnyKeyword rules (kernel events are chosen by flags instead). */
static int delivered(const struct trigger_etw *t, const struct etw_event *ev)
{
  if (t->spec.bi == BI_KERNEL || !(ev->has & ETW_HAS_DESCRIPTOR))
    return 1;
  if (t->spec.level && ev->level > t->spec.level)
    return 0;
  return ev->keyword == 0 || (ev->keyword & t->spec.keywords) != 0;
}

static int ref_matches(struct trigger_etw *t, const struct trigger_event_ref *r,
                       struct trigger_etw_ctx *cx)
{
  const struct etw_event *ev = cx->ev;
  switch (r->kind) {
  case REF_ID:
    return (ev->has & ETW_HAS_DESCRIPTOR) && ev->id == r->id;
  case REF_BUILTIN:
    if (r->bi->prov == BI_KERNEL)
      return bi_same_event(r->bi, ev);
    return (ev->has & ETW_HAS_DESCRIPTOR) && ev->id == r->bi->id;
  case REF_NAME:
    if (ctx_tl(cx))
      return str_caseeq(cx->tl.whole_name, r->name);
    if (ctx_man(cx))
      return manifests_event_named(cx->man, r->name);
    if (cx->manifests && manifests_known(cx->manifests, &ev->provider))
      return 0; /* the manifest has no such event id: not this one */
    t->unnamed++;
    if (!t->unnamed_warned) {
      log_warn("trigger on %s/%s: an event of this provider has no TraceLogging schema and "
               "no manifest of the provider has been seen, so it cannot be named yet",
               t->spec.provider_name, r->name);
      t->unnamed_warned = 1;
    }
    return 0;
  default:
    return 0;
  }
}

static int process_passes(const struct trigger_etw *t, const struct trigger_etw_ctx *cx)
{
  uint32_t pid;
  if (t->proc_is_pid)
    return (cx->ev->has & ETW_HAS_PID_TID) && cx->ev->pid == t->proc_pid;
  if (t->proc_slot < 0)
    return 1;
  if (!trigger_procmap_pid(cx->procmap, t->proc_slot, &pid))
    return 0; /* not mapped yet: PerfView drops the event */
  return (cx->ev->has & ETW_HAS_PID_TID) && cx->ev->pid == pid;
}

/* v and its whole text (len bytes) against the filter. */
static int filter_passes(const struct trigger_field_filter *f, const struct tv_value *v,
                         const char *text, size_t len)
{
  int cmp;
  double d;
  if (f->op == FOP_MATCH)
    return trigger_regex_match(&f->re, text, len);
  if (f->numeric && (tv_as_double(v, &d) || str_parse_double(text, &d) == 0))
    cmp = d < f->number ? -1 : d > f->number ? 1 : 0;
  else
    cmp = strcmp(text, f->value);
  switch (f->op) {
  case FOP_LT: return cmp < 0;
  case FOP_LE: return cmp <= 0;
  case FOP_GT: return cmp > 0;
  case FOP_GE: return cmp >= 0;
  case FOP_EQ: return cmp == 0;
  case FOP_NE: return cmp != 0;
  default: return 0;
  }
}

/* 1 when every field filter passes, 0 when one does not, NOMEM. */
static int filters_pass(struct trigger_etw *t, struct trigger_etw_ctx *cx)
{
  size_t i, len;
  struct tv_value v;
  for (i = 0; i < t->spec.filter_count; i++) {
    const struct trigger_field_filter *f = &t->spec.filters[i];
    int rc;
    len = 0;
    rc = field_whole(t, cx, f->field, &v, &len);
    if (rc < 0)
      return rc;
    if (!rc) {
      /* PerfView drops an event that lacks the field; say so once. */
      if (!t->missing_field[0]) {
        char name[TRIGGER_NAME_MAX];
        tv_copy(t->missing_field, sizeof(t->missing_field), f->field);
        log_warn("trigger on %s: FieldFilter field '%s' is not a field of %s, whose events "
                 "therefore never pass",
                 t->spec.provider_name, f->field, trigger_event_name(cx, name, sizeof(name)));
      }
      return 0;
    }
    if (!filter_passes(f, &v, t->text, len))
      return 0;
  }
  return 1;
}

static const char *gc_reason_name(uint64_t r)
{
  static const char *const names[] = { "AllocSmall",      "Induced",           "LowMemory",
                                       "Empty",           "AllocLarge",        "OutOfSpaceSOH",
                                       "OutOfSpaceLOH",   "InducedNotForced",  "Internal",
                                       "InducedLowMemory", "InducedCompacting", "LowMemoryHost",
                                       "PMFullGC",        "LowMemoryHostBlocking" };
  return r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

static const char *gc_type_name(uint64_t t)
{
  return t == 0 ? "NonConcurrentGC" : t == 1 ? "BackgroundGC" : t == 2 ? "ForegroundGC" : "?";
}

static uint64_t field_u(struct trigger_etw_ctx *cx, const char *name)
{
  struct tv_value v;
  if (!trigger_event_field(cx, name, &v))
    return 0;
  return v.type == TV_INT ? (uint64_t)v.i : v.u;
}

/* Appends to a detail line; tabs and line breaks become spaces. */
static void detail_add(char *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail_add(char *d, const char *fmt, ...)
{
  size_t n = strlen(d), i;
  va_list ap;
  if (n + 1 >= TRIGGER_DETAIL_MAX)
    return;
  va_start(ap, fmt);
  vsnprintf(d + n, TRIGGER_DETAIL_MAX - n, fmt, ap);
  va_end(ap);
  for (i = n; d[i]; i++)
    if (d[i] == '\t' || d[i] == '\n' || d[i] == '\r')
      d[i] = ' ';
}

static int is_induced(uint64_t reason)
{
  return reason == 1 || reason == 7 || reason == 9 || reason == 10;
}

/* PerfView's exception text, "Type: Message", whole at t->text: 1 when it
 * matches the regex, 0 when not, NOMEM. */
static int exception_matches(struct trigger_etw *t, struct trigger_etw_ctx *cx)
{
  struct tv_value v;
  size_t len = 0, type_len;
  int rc = field_whole(t, cx, "ExceptionType", &v, &len);
  type_len = len;
  if (rc >= 0)
    rc = text_put(t, &len, ": ");
  if (rc >= 0)
    rc = field_whole(t, cx, "ExceptionMessage", &v, &len);
  if (rc < 0)
    return rc;
  /* PerfView: no match when the type or the message is empty. */
  if (!t->exc.empty && (!type_len || len == type_len + 2))
    return 0;
  return trigger_regex_match(&t->exc, t->text, len);
}

/* The built-in predicates: 1 when they pass (they may describe the event
 * in d), 0 when not, NOMEM. */
static int preds_pass(struct trigger_etw *t, struct trigger_etw_ctx *cx, char *d)
{
  int rc;
  if (t->preds & (PRED_GEN2 | PRED_NOT_BACKGROUND | PRED_INDUCED)) {
    uint64_t depth = field_u(cx, "Depth"), gtype = field_u(cx, "Type");
    uint64_t reason = field_u(cx, "Reason");
    if ((t->preds & PRED_GEN2) && depth < 2)
      return 0;
    if ((t->preds & (PRED_GEN2 | PRED_NOT_BACKGROUND)) && gtype == CLR_GC_TYPE_BACKGROUND)
      return 0;
    if ((t->preds & PRED_INDUCED) && !is_induced(reason))
      return 0;
    detail_add(d, " Count=%llu Depth=%llu Reason=%s Type=%s",
               (unsigned long long)field_u(cx, "Count"), (unsigned long long)depth,
               gc_reason_name(reason), gc_type_name(gtype));
  }
  if (t->preds & PRED_GC_PREP) {
    if (field_u(cx, "Reason") != CLR_SUSPEND_FOR_GC_PREP)
      return 0;
  }
  if (t->preds & PRED_EXCEPTION) {
    if ((rc = exception_matches(t, cx)) <= 0)
      return rc;
    detail_add(d, " %s", t->text);
  }
  if (t->preds & PRED_HTTP_STATUS) {
    struct tv_value st;
    if (!trigger_event_field(cx, "statusCode", &st) || st.type != TV_INT ||
        !trigger_http_match(&t->http, (int)st.i))
      return 0;
    detail_add(d, " statusCode=%lld", (long long)st.i);
  }
  return 1;
}

/* A few payload fields for the record of a generic trigger. */
struct describe_ctx {
  char *d;
  unsigned n;
};

static int describe_cb(void *ctx, const char *path, const struct tv_value *v)
{
  struct describe_ctx *c = ctx;
  char buf[TV_SHORT_TEXT_MAX];
  if (v->type != TV_NONE)
    detail_add(c->d, " %s=%.80s", path, tv_text(v, buf));
  return ++c->n >= 6;
}

static void describe_layout(struct trigger_etw_ctx *cx, const struct tf_layout *l, char *d)
{
  const struct etw_event *ev = cx->ev;
  struct tv_value v;
  char buf[TV_SHORT_TEXT_MAX];
  size_t i;
  for (i = 0; i < l->count && i < 6; i++)
    if (tf_at(l, ev->user_data, ev->user_len, ev->pointer_size, i, &v) == 1 && v.type != TV_NONE)
      detail_add(d, " %s=%.80s", l->fields[i].name, tv_text(&v, buf));
}

static void describe_fields(struct trigger_etw_ctx *cx, char *d)
{
  const struct etw_event *ev = cx->ev;
  struct describe_ctx c = { d, 0 };
  if (ctx_layout(cx))
    describe_layout(cx, &cx->layout->layout, d);
  else if (ctx_tl(cx))
    (void)tl_walk(&cx->tl, ev->user_data, ev->user_len, ev->pointer_size, describe_cb, &c);
  else if (ctx_man(cx))
    describe_layout(cx, &cx->man->layout, d);
}

/* --- start/stop keys ------------------------------------------------------------------- */

static void key_ctx_tagged(uint8_t *ctx, uint8_t tag, uint64_t value, uint32_t pid, int with_pid)
{
  size_t i;
  ctx[0] = tag;
  for (i = 0; i < 8; i++)
    ctx[1 + i] = (uint8_t)(value >> (8 * i));
  if (with_pid)
    for (i = 0; i < 4; i++)
      ctx[9 + i] = (uint8_t)(pid >> (8 * i));
}

static void key_ctx_guid(uint8_t *ctx, const struct etw_guid *g)
{
  ctx[0] = 0x10;
  guid_to_bytes(g, ctx + 1);
}

/* v as a context id; a string by a hash of its whole text. */
static void key_ctx_value(uint8_t *ctx, const struct tv_value *v, const char *text, uint32_t pid)
{
  uint64_t h = 1469598103934665603ull;
  const char *p;
  switch (v->type) {
  case TV_GUID:
    key_ctx_guid(ctx, &v->guid);
    return;
  case TV_INT:
    /* 32-bit ids are per process (PerfView adds the process id); 64-bit
     * ones are taken as they are. */
    key_ctx_tagged(ctx, 3, (uint64_t)v->i, pid, v->i >= INT32_MIN && v->i <= INT32_MAX);
    return;
  case TV_UINT:
  case TV_BOOL:
    key_ctx_tagged(ctx, 4, v->u, pid, v->u <= UINT32_MAX);
    return;
  default:
    for (p = text; *p; p++) {
      h ^= (uint8_t)*p;
      h *= 1099511628211ull;
    }
    key_ctx_tagged(ctx, 0, h, pid, 1);
  }
}

/* The start/stop key of the event: 0 or NOMEM. */
static int make_key(struct trigger_etw *t, struct trigger_etw_ctx *cx, uint8_t *key)
{
  const struct etw_event *ev = cx->ev;
  uint8_t *ctx = key + 18;
  unsigned task = bi_kernel_group(ev) ? bi_kernel_group(ev) : ev->task;
  struct tv_value v;
  size_t len = 0;
  int rc;
  memset(key, 0, KEY_LEN);
  guid_to_bytes(&ev->provider, key);
  key[16] = (uint8_t)task;
  key[17] = (uint8_t)(task >> 8);
  switch (t->spec.ssid) {
  case SSID_ACTIVITY:
    key_ctx_guid(ctx, &ev->activity_id);
    return 0;
  case SSID_THREAD:
    key_ctx_tagged(ctx, 0x13, ev->tid, ev->pid, 1);
    return 0;
  case SSID_FIELD:
    if ((rc = field_whole(t, cx, t->spec.ssid_field, &v, &len)) < 0)
      return rc;
    if (rc)
      key_ctx_value(ctx, &v, t->text, ev->pid);
    else
      key_ctx_tagged(ctx, 0x15, 0, ev->pid, 1);
    return 0;
  case SSID_DEFAULT:
    break;
  }
  if (trigger_is_activity_path(&ev->activity_id, ev->pid)) {
    key_ctx_guid(ctx, &ev->activity_id);
    return 0;
  }
  if ((rc = field_whole(t, cx, NULL, &v, &len)) < 0)
    return rc;
  if (rc && v.type != TV_NONE)
    key_ctx_value(ctx, &v, t->text, ev->pid);
  else if (!guid_is_zero(&ev->activity_id))
    key_ctx_guid(ctx, &ev->activity_id);
  else
    key_ctx_tagged(ctx, 0x13, ev->tid, ev->pid, 1);
  return 0;
}

int trigger_etw_problem(const struct trigger_etw *t, const struct manifests *m, char *buf,
                        size_t cap)
{
  const char *name = t->spec.start.kind == REF_NAME ? t->spec.start.name : t->spec.stop.name;
  if (t->unnamed && !(m && manifests_known(m, &t->spec.provider))) {
    snprintf(buf, cap, "%llu event(s) of %s could not be named as '%s': they carry no "
             "TraceLogging schema and no manifest of the provider was seen (give the event "
             "as EventID(n))",
             (unsigned long long)t->unnamed, t->spec.provider_name, name);
    return 1;
  }
  if (t->missing_field[0]) {
    snprintf(buf, cap, "FieldFilter field '%s' is not a field of the events that matched, so "
             "none passed", t->missing_field);
    return 1;
  }
  return 0;
}

int trigger_is_activity_path(const struct etw_guid *g, uint32_t pid)
{
  uint8_t b[16];
  uint32_t u[4], sum;
  size_t i;
  guid_to_bytes(g, b);
  for (i = 0; i < 4; i++)
    u[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
           (uint32_t)b[4 * i + 3] << 24;
  if (!u[0] && !u[1] && !u[2] && !u[3])
    return 0;
  sum = u[0] + u[1] + u[2] + 0x599D99ADu;
  if (pid == 0)
    return (sum & 0xFFF00000u) == (u[3] & 0xFFF00000u);
  return (sum ^ pid) == u[3] || sum == u[3];
}

/* --- the event ------------------------------------------------------------------------- */

static void begin_detail(struct trigger_etw_ctx *cx, char *d)
{
  char name[TRIGGER_NAME_MAX];
  d[0] = '\0';
  detail_add(d, "%s", trigger_event_name(cx, name, sizeof(name)));
}

static void add_pid(struct trigger_etw_ctx *cx, char *d)
{
  if (cx->ev->has & ETW_HAS_PID_TID)
    detail_add(d, " pid=%lu tid=%lu", (unsigned long)cx->ev->pid, (unsigned long)cx->ev->tid);
}

int trigger_etw_event(struct trigger_etw *t, struct trigger_etw_ctx *cx, struct trigger_hit *hit)
{
  uint8_t key[KEY_LEN];
  uint32_t h;
  int is_start, is_stop;
  struct ss_entry *e;
  double ms;
  int64_t limit;
  int rc = 0;
  if (!provider_matches(t, cx->ev) || !delivered(t, cx->ev) || !process_passes(t, cx))
    return 0;
  if (t->spec.trigger_msec == 0) {
    if (!ref_matches(t, &t->spec.start, cx) || (rc = filters_pass(t, cx)) <= 0)
      return rc < 0 ? rc : 0;
    begin_detail(cx, hit->detail);
    if ((rc = preds_pass(t, cx, hit->detail)) <= 0)
      return rc;
    if (!t->preds)
      describe_fields(cx, hit->detail);
    add_pid(cx, hit->detail);
    hit->value = 0;
    return 1;
  }
  is_start = ref_matches(t, &t->spec.start, cx);
  is_stop = !is_start && ref_matches(t, &t->spec.stop, cx);
  if (!is_start && !is_stop)
    return 0;
  if ((rc = make_key(t, cx, key)) != 0)
    return rc;
  h = hash_key(key);
  if (is_start) {
    if ((rc = filters_pass(t, cx)) <= 0)
      return rc;
    hit->detail[0] = '\0';
    if ((rc = preds_pass(t, cx, hit->detail)) <= 0)
      return rc;
    return ss_put(t, key, h, cx->ft) < 0 ? ETWCAP_E_NOMEM : 0;
  }
  e = ss_find(t, key, h);
  if (!e)
    return 0; /* an orphan stop */
  ms = (double)(cx->ft - e->ft) / TICKS_PER_MS;
  ss_remove(t, e);
  t->pairs++;
  if (ms > t->max_ms)
    t->max_ms = ms;
  limit = trigger_etw_effective_msec(t, cx->ft);
  if (t->spec.verbose)
    log_debug("trigger %s: pair %.3f ms (trigger %lld ms)", t->spec.provider_name, ms,
              (long long)limit);
  if (!(ms > (double)limit))
    return 0;
  begin_detail(cx, hit->detail);
  detail_add(hit->detail, " %.3f ms after its start > %lld ms", ms, (long long)limit);
  if (limit != t->spec.trigger_msec)
    detail_add(hit->detail, " (decayed from %lld ms)", (long long)t->spec.trigger_msec);
  add_pid(cx, hit->detail);
  hit->value = ms;
  return 1;
}
