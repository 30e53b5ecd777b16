/* See manifests.h.  The XML reader is deliberately small: it walks
 * start tags in order and reads the attributes it needs; anything it does
 * not understand is skipped, and a manifest it cannot read is ignored (the
 * trigger then reports that it could not name the event). */
#include "etw/event/manifests.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAG 64

struct tag {
  char name[MAX_TAG];
  int closing;     /* </name> */
  int self_closing;
  const char *attrs, *attrs_end;
};

/* Finds the next tag at or after *pos; skips comments, declarations and
 * processing instructions.  0 at the end. */
static int next_tag(const char *x, size_t len, size_t *pos, struct tag *t)
{
  size_t p = *pos;
  for (;;) {
    size_t start, n;
    while (p < len && x[p] != '<')
      p++;
    if (p + 1 >= len)
      return 0;
    if (x[p + 1] == '!' || x[p + 1] == '?') { /* comment, CDATA, <?xml ...?> */
      const char *end = NULL;
      if (p + 3 < len && !strncmp(x + p, "<!--", 4)) {
        size_t q;
        for (q = p + 4; q + 2 < len; q++)
          if (x[q] == '-' && x[q + 1] == '-' && x[q + 2] == '>') {
            end = x + q + 2;
            break;
          }
      } else {
        end = memchr(x + p, '>', len - p);
      }
      if (!end)
        return 0;
      p = (size_t)(end - x) + 1;
      continue;
    }
    p++;
    t->closing = x[p] == '/';
    if (t->closing)
      p++;
    start = p;
    while (p < len && x[p] != ' ' && x[p] != '\t' && x[p] != '\r' && x[p] != '\n' &&
           x[p] != '>' && x[p] != '/')
      p++;
    n = p - start;
    if (n >= MAX_TAG)
      n = MAX_TAG - 1;
    memcpy(t->name, x + start, n);
    t->name[n] = '\0';
    t->attrs = x + p;
    {
      int quote = 0;
      while (p < len && (quote || x[p] != '>')) {
        if (x[p] == '"')
          quote = !quote;
        p++;
      }
    }
    if (p >= len)
      return 0;
    t->attrs_end = x + p;
    t->self_closing = p > 0 && x[p - 1] == '/';
    *pos = p + 1;
    return 1;
  }
}

/* The raw value of attribute `name` (entities not decoded): 1 and v, n
 * when the tag has it, 0 when not. */
static int attr_raw(const struct tag *t, const char *name, const char **v, size_t *n)
{
  const char *p = t->attrs;
  size_t len = strlen(name);
  while (p < t->attrs_end) {
    const char *q, *end;
    while (p < t->attrs_end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
      p++;
    q = p;
    while (q < t->attrs_end && *q != '=' && *q != ' ' && *q != '>')
      q++;
    if (q >= t->attrs_end || *q != '=' || q + 1 >= t->attrs_end || q[1] != '"')
      return 0;
    end = memchr(q + 2, '"', (size_t)(t->attrs_end - (q + 2)));
    if (!end)
      end = t->attrs_end;
    if ((size_t)(q - p) == len && !memcmp(p, name, len)) {
      *v = q + 2;
      *n = (size_t)(end - *v);
      return 1;
    }
    p = end + 1;
  }
  return 0;
}

/* v[0..n) with XML's five predefined entities decoded into out (room for
 * n + 1 bytes: decoding only shortens). */
static void unescape(const char *v, size_t n, char *out)
{
  static const struct {
    const char *ent;
    size_t len;
    char c;
  } ents[] = { { "&amp;", 5, '&' }, { "&lt;", 4, '<' }, { "&gt;", 4, '>' },
               { "&quot;", 6, '"' }, { "&apos;", 6, '\'' } };
  size_t i = 0, k = 0, e;
  while (i < n) {
    for (e = 0; v[i] == '&' && e < 5; e++)
      if (n - i >= ents[e].len && !memcmp(v + i, ents[e].ent, ents[e].len))
        break;
    if (v[i] == '&' && e < 5) {
      out[k++] = ents[e].c;
      i += ents[e].len;
    } else {
      out[k++] = v[i++];
    }
  }
  out[k] = '\0';
}

/* A short attribute (a number or a type name) into out: 1 when present,
 * 0 when absent, -1 when longer than out holds: such a value is never
 * read as a cut one (the cut of "0...01" would be 0). */
static int attr(const struct tag *t, const char *name, char *out, size_t cap)
{
  const char *v;
  size_t n;
  if (!attr_raw(t, name, &v, &n))
    return 0;
  if (n >= cap)
    return -1;
  unescape(v, n, out);
  return 1;
}

/* A name-like attribute whole, allocated into *out (NULL when absent or
 * empty): names are compared, and a cut name would equal a shorter one.
 * 0 or NOMEM. */
static int attr_name(const struct tag *t, const char *name, char **out)
{
  const char *v;
  size_t n;
  *out = NULL;
  if (!attr_raw(t, name, &v, &n) || !n)
    return 0;
  if (!(*out = etwcap_malloc(n + 1)))
    return ETWCAP_E_NOMEM;
  unescape(v, n, *out);
  return 0;
}

/* A template: its fields are fields[first, first + count) of the parse,
 * shared by every event that names the template (an event does not copy
 * them: F fields used by E events would cost F x E). */
struct tmpl {
  char *tid;
  size_t first, count;
  size_t order; /* in the manifest: the first of two equal tids wins */
};

struct parser {
  const char *x;
  size_t len;
  struct tmpl *tmpls;
  size_t ntmpl, tmpl_cap;
  struct tf_field *fields;
  size_t nfields, fields_cap;
  struct man_event *events;
  size_t nev, ev_cap;
};

#define ATTR_SHORT 64 /* room for a number or a win: type name */

/* win:Type names to layout kinds; -1 for types whose size is not fixed by
 * the type alone (Binary, arrays, SID ...). */
static int kind_of(const char *in_type)
{
  static const struct { const char *name; enum tf_kind kind; } map[] = {
    { "win:UnicodeString", TF_UTF16Z }, { "win:AnsiString", TF_ANSIZ },
    { "win:Int8", TF_U8 }, { "win:UInt8", TF_U8 }, { "win:Int16", TF_U16 },
    { "win:UInt16", TF_U16 }, { "win:Int32", TF_I32 }, { "win:UInt32", TF_U32 },
    { "win:HexInt32", TF_U32 }, { "win:Int64", TF_I64 }, { "win:UInt64", TF_U64 },
    { "win:HexInt64", TF_U64 }, { "win:Float", TF_F32 }, { "win:Double", TF_F64 },
    { "win:Boolean", TF_BOOL32 }, { "win:GUID", TF_GUID }, { "win:Pointer", TF_PTR },
    { "win:FILETIME", TF_U64 },
  };
  size_t i;
  for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
    if (!strcmp(map[i].name, in_type))
      return (int)map[i].kind;
  return -1;
}

static void free_event(struct man_event *e)
{
  etwcap_free(e->symbol);
  etwcap_free(e->task);
  etwcap_free(e->opcode);
}

static void free_fields(struct tf_field *fields, size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    etwcap_free((char *)fields[i].name);
  etwcap_free(fields);
}

static void free_events(struct man_provider *p)
{
  size_t i;
  for (i = 0; i < p->count; i++)
    free_event(&p->events[i]);
  etwcap_free(p->events);
  p->events = NULL;
  p->count = 0;
  free_fields(p->fields, p->field_count);
  p->fields = NULL;
  p->field_count = 0;
}

/* A <data> element of the current template: a field, or the end of what
 * can be located (a type of unknown size, an array, a missing name). */
static int read_data(struct parser *ps, const struct tag *t, struct tmpl *cur, int *broken)
{
  char type[ATTR_SHORT];
  char *name;
  const char *v;
  size_t n;
  int kind;
  struct tf_field *f;
  if (attr(t, "inType", type, sizeof(type)) != 1 || (kind = kind_of(type)) < 0 ||
      attr_raw(t, "count", &v, &n) || attr_raw(t, "length", &v, &n) ||
      !attr_raw(t, "name", &v, &n)) {
    *broken = 1; /* later fields cannot be located */
    return 0;
  }
  if (etwcap_grow((void **)&ps->fields, &ps->fields_cap, ps->nfields, sizeof(*f), 16) != 0)
    return ETWCAP_E_NOMEM;
  if (attr_name(t, "name", &name) != 0 || (!name && !(name = etwcap_strdup(""))))
    return ETWCAP_E_NOMEM;
  f = &ps->fields[ps->nfields++];
  f->kind = (enum tf_kind)kind;
  f->name = name;
  cur->count++;
  return 0;
}

static int by_tid(const void *a, const void *b)
{
  const struct tmpl *x = a, *y = b;
  int c = strcmp(x->tid, y->tid);
  return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* The templates and their fields, sorted by tid. */
static int read_templates(struct parser *ps)
{
  struct tag t;
  size_t pos = 0;
  struct tmpl *cur = NULL;
  int broken = 0, rc; /* broken: the current template hit a field of unknown size */
  while (next_tag(ps->x, ps->len, &pos, &t)) {
    if (t.closing) {
      if (!strcmp(t.name, "template"))
        cur = NULL;
    } else if (!strcmp(t.name, "template")) {
      char *tid;
      cur = NULL;
      if (attr_name(&t, "tid", &tid) != 0)
        return ETWCAP_E_NOMEM;
      if (!tid)
        continue;
      if (etwcap_grow((void **)&ps->tmpls, &ps->tmpl_cap, ps->ntmpl, sizeof(*cur), 16) != 0) {
        etwcap_free(tid);
        return ETWCAP_E_NOMEM;
      }
      cur = &ps->tmpls[ps->ntmpl];
      cur->tid = tid;
      cur->first = ps->nfields;
      cur->count = 0;
      cur->order = ps->ntmpl++;
      broken = 0;
      if (t.self_closing)
        cur = NULL;
    } else if (cur && !broken && !strcmp(t.name, "data")) {
      if ((rc = read_data(ps, &t, cur, &broken)) != 0)
        return rc;
    } else if (cur && !strcmp(t.name, "struct")) {
      broken = 1;
    }
  }
  if (ps->ntmpl)
    qsort(ps->tmpls, ps->ntmpl, sizeof(*ps->tmpls), by_tid);
  return 0;
}

/* The template `tid` (the first of that tid in the manifest), or NULL. */
static const struct tmpl *find_template(const struct parser *ps, const char *tid)
{
  size_t lo = 0, hi = ps->ntmpl;
  while (lo < hi) { /* the first template whose tid is not below `tid` */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(ps->tmpls[mid].tid, tid) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ps->ntmpl && !strcmp(ps->tmpls[lo].tid, tid) ? &ps->tmpls[lo] : NULL;
}

/* An <event> element; one without a usable value is skipped. */
static int read_event(struct parser *ps, const struct tag *t)
{
  char num[ATTR_SHORT];
  char *tid;
  int64_t v;
  struct man_event *e;
  const struct tmpl *tm;
  if (attr(t, "value", num, sizeof(num)) != 1 || str_parse_int64(num, &v) != 0 || v < 0 ||
      v > 65535)
    return 0;
  if (etwcap_grow((void **)&ps->events, &ps->ev_cap, ps->nev, sizeof(*e), 16) != 0)
    return ETWCAP_E_NOMEM;
  e = &ps->events[ps->nev++];
  memset(e, 0, sizeof(*e));
  e->id = (uint16_t)v;
  if (attr(t, "version", num, sizeof(num)) == 1 && str_parse_int64(num, &v) == 0 && v >= 0 &&
      v < 256)
    e->version = (uint8_t)v;
  if (attr_name(t, "symbol", &e->symbol) || attr_name(t, "task", &e->task) ||
      attr_name(t, "opcode", &e->opcode) || attr_name(t, "template", &tid))
    return ETWCAP_E_NOMEM;
  /* The opcode name TraceEvent shows: win:Start -> Start, win:Info -> none. */
  if (e->opcode && !strcmp(e->opcode, "win:Info")) {
    etwcap_free(e->opcode);
    e->opcode = NULL;
  } else if (e->opcode && !strncmp(e->opcode, "win:", 4)) {
    memmove(e->opcode, e->opcode + 4, strlen(e->opcode + 4) + 1);
  }
  tm = tid ? find_template(ps, tid) : NULL;
  etwcap_free(tid);
  if (tm && tm->count) {
    e->layout.fields = ps->fields + tm->first;
    e->layout.count = tm->count;
  }
  if (!e->task && e->symbol && !(e->task = etwcap_strdup(e->symbol)))
    return ETWCAP_E_NOMEM;
  return 0;
}

static uint32_t event_key(uint16_t id, uint8_t version)
{
  return (uint32_t)id << 8 | version;
}

static int by_id_version(const void *a, const void *b)
{
  const struct man_event *x = a, *y = b;
  uint32_t kx = event_key(x->id, x->version), ky = event_key(y->id, y->version);
  return kx < ky ? -1 : kx > ky;
}

/* Reads the manifest into p (replacing what p had).  The work and memory
 * are a small multiple of the XML's size: fields are stored once per
 * template, events and templates are found by binary search. */
static int parse(struct man_provider *p, const char *x, size_t len)
{
  struct parser ps;
  struct tag t;
  size_t pos = 0, i;
  int rc;
  memset(&ps, 0, sizeof(ps));
  ps.x = x;
  ps.len = len;
  free_events(p);
  if ((rc = read_templates(&ps)) != 0)
    goto cleanup;
  /* Events after the templates are known (EventSource writes events first). */
  while (next_tag(x, len, &pos, &t))
    if (!t.closing && !strcmp(t.name, "event") && (rc = read_event(&ps, &t)) != 0)
      goto cleanup;
  if (ps.nev)
    qsort(ps.events, ps.nev, sizeof(*ps.events), by_id_version);
  p->events = ps.events;
  p->count = ps.nev;
  p->fields = ps.fields;
  p->field_count = ps.nfields;
  p->parsed = 1;
  ps.events = NULL;
  ps.nev = 0;
  ps.fields = NULL;
  ps.nfields = 0;
cleanup:
  for (i = 0; i < ps.nev; i++)
    free_event(&ps.events[i]);
  etwcap_free(ps.events);
  free_fields(ps.fields, ps.nfields);
  for (i = 0; i < ps.ntmpl; i++)
    etwcap_free(ps.tmpls[i].tid);
  etwcap_free(ps.tmpls);
  return rc;
}

static struct man_provider *provider(struct manifests *m, const struct etw_guid *g,
                                     int create)
{
  size_t i;
  for (i = 0; i < m->count; i++)
    if (guid_equal(&m->p[i].guid, g))
      return &m->p[i];
  if (!create || etwcap_grow((void **)&m->p, &m->cap, m->count, sizeof(*m->p), 4) != 0)
    return NULL;
  memset(&m->p[m->count], 0, sizeof(m->p[0]));
  m->p[m->count].guid = *g;
  return &m->p[m->count++];
}

int manifests_add_xml(struct manifests *m, const struct etw_guid *g, const char *xml,
                      size_t len)
{
  struct man_provider *p = provider(m, g, 1);
  if (!p)
    return ETWCAP_E_NOMEM;
  return parse(p, xml, len);
}

int manifests_feed(struct manifests *m, const struct etw_event *ev)
{
  const uint8_t *d = ev->user_data;
  struct man_provider *p;
  unsigned total, number;
  size_t n;
  uint8_t *grown;
  int rc;
  if (!(ev->has & ETW_HAS_DESCRIPTOR) || !(ev->has & ETW_HAS_PROVIDER) ||
      ev->id != MANIFEST_ID || ev->user_len < 8 || d[3] != 0x5B)
    return 0;
  total = (unsigned)(d[4] | d[5] << 8);
  number = (unsigned)(d[6] | d[7] << 8);
  n = ev->user_len - 8;
  p = provider(m, &ev->provider, 1);
  if (!p)
    return ETWCAP_E_NOMEM;
  if (number == 0) { /* a (new) manifest starts */
    p->xml_len = 0;
    p->chunks = total;
    p->next_chunk = 0;
  }
  if (!total || number != p->next_chunk || total != p->chunks ||
      p->xml_len + n > MANIFEST_MAX_BYTES) {
    p->next_chunk = 0; /* out of order: wait for the next chunk 0 */
    p->chunks = 0;
    return 0;
  }
  if (p->xml_len + n + 1 > p->xml_cap) { /* doubling: a manifest comes in up to 65,535 chunks */
    size_t cap = p->xml_cap ? p->xml_cap : 4096;
    while (cap < p->xml_len + n + 1)
      cap *= 2;
    if (!(grown = etwcap_realloc(p->xml, cap)))
      return ETWCAP_E_NOMEM;
    p->xml = grown;
    p->xml_cap = cap;
  }
  memcpy(p->xml + p->xml_len, d + 8, n);
  p->xml_len += n;
  p->next_chunk++;
  if (p->next_chunk < p->chunks)
    return 0;
  rc = parse(p, (const char *)p->xml, p->xml_len);
  p->next_chunk = 0;
  p->chunks = 0;
  p->xml_len = 0;
  return rc;
}

int manifests_known(const struct manifests *m, const struct etw_guid *g)
{
  const struct man_provider *p = provider((struct manifests *)m, g, 0);
  return p && p->parsed;
}

const struct man_event *manifests_lookup(const struct manifests *m,
                                         const struct etw_guid *g, uint16_t id,
                                         uint8_t version)
{
  const struct man_provider *p = provider((struct manifests *)m, g, 0);
  uint32_t key = event_key(id, version);
  size_t lo = 0, hi;
  if (!p)
    return NULL;
  hi = p->count;
  while (lo < hi) { /* the first event above (id, version) */
    size_t mid = lo + (hi - lo) / 2;
    if (event_key(p->events[mid].id, p->events[mid].version) <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && p->events[lo - 1].id == id)
    return &p->events[lo - 1]; /* the highest version not above the event's */
  if (lo < p->count && p->events[lo].id == id)
    return &p->events[lo]; /* a newer event than the manifest knows: same layout prefix */
  return NULL;
}

char *manifests_event_name(const struct man_event *e, char *buf, size_t cap)
{
  if (e->opcode)
    snprintf(buf, cap, "%s/%s", e->task ? e->task : "?", e->opcode);
  else
    snprintf(buf, cap, "%s", e->task ? e->task : "?");
  return buf;
}

int manifests_event_named(const struct man_event *e, const char *name)
{
  const char *task = e->task ? e->task : "?";
  size_t n = strlen(task);
  if (e->symbol && str_caseeq(e->symbol, name))
    return 1;
  if (!e->opcode)
    return str_caseeq(task, name);
  /* "Task/Opcode" compared in place: a built copy would be cut. */
  return str_ncaseeq(task, name, n) && name[n] == '/' && str_caseeq(e->opcode, name + n + 1);
}

void manifests_free(struct manifests *m)
{
  size_t i;
  for (i = 0; i < m->count; i++) {
    free_events(&m->p[i]);
    etwcap_free(m->p[i].xml);
  }
  etwcap_free(m->p);
  m->p = NULL;
  m->count = 0;
}
