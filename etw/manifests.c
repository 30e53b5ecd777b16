/* See manifests.h.  The XML reader is deliberately small: it walks
 * start tags in order and reads the attributes it needs; anything it does
 * not understand is skipped, and a manifest it cannot read is ignored (the
 * trigger then reports that it could not name the event). */
#include "manifests.h"

#include "alloc.h"
#include "error.h"
#include "strutil.h"

#include <stdio.h>
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

/* The value of attribute `name`, entity-decoded, into out; 1 found. */
static int attr(const struct tag *t, const char *name, char *out, size_t cap)
{
  const char *p = t->attrs;
  size_t n = strlen(name);
  while (p < t->attrs_end) {
    const char *q;
    while (p < t->attrs_end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
      p++;
    q = p;
    while (q < t->attrs_end && *q != '=' && *q != ' ' && *q != '>')
      q++;
    if (q >= t->attrs_end || *q != '=' || q + 1 >= t->attrs_end || q[1] != '"')
      return 0;
    if ((size_t)(q - p) == n && !memcmp(p, name, n)) {
      size_t k = 0;
      const char *v = q + 2;
      while (v < t->attrs_end && *v != '"' && k + 1 < cap) {
        if (*v == '&') {
          static const struct {
            const char *ent;
            char c;
          } ents[] = { { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' },
                       { "&quot;", '"' }, { "&apos;", '\'' } };
          size_t e;
          for (e = 0; e < 5; e++)
            if ((size_t)(t->attrs_end - v) >= strlen(ents[e].ent) &&
                !strncmp(v, ents[e].ent, strlen(ents[e].ent)))
              break;
          if (e < 5) {
            out[k++] = ents[e].c;
            v += strlen(ents[e].ent);
            continue;
          }
        }
        out[k++] = *v++;
      }
      out[k] = '\0';
      return 1;
    }
    /* skip this attribute's value */
    q += 2;
    while (q < t->attrs_end && *q != '"')
      q++;
    p = q + 1;
  }
  return 0;
}

struct tmpl {
  char tid[128];
  struct tf_field *fields;
  size_t count;
};

struct named {
  char name[128];
  char value[128];
};

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
  size_t i;
  etwcap_free(e->symbol);
  etwcap_free(e->task);
  etwcap_free(e->opcode);
  for (i = 0; i < e->layout.count; i++)
    etwcap_free((char *)e->layout.fields[i].name);
  etwcap_free((void *)e->layout.fields);
  memset(e, 0, sizeof(*e));
}

static void free_events(struct man_provider *p)
{
  size_t i;
  for (i = 0; i < p->count; i++)
    free_event(&p->events[i]);
  etwcap_free(p->events);
  p->events = NULL;
  p->count = 0;
}

static char *dup_or_null(const char *s)
{
  return s && s[0] ? etwcap_strdup(s) : NULL;
}

/* The opcode name TraceEvent shows: win:Start -> Start, win:Info -> none. */
static const char *opcode_name(const char *attr_value, const struct named *opcodes, size_t n)
{
  size_t i;
  if (!attr_value[0] || !strcmp(attr_value, "win:Info"))
    return NULL;
  if (!strncmp(attr_value, "win:", 4))
    return attr_value + 4;
  for (i = 0; i < n; i++)
    if (!strcmp(opcodes[i].name, attr_value))
      return opcodes[i].name;
  return attr_value;
}

static int parse(struct man_provider *p, const char *x, size_t len)
{
  struct tag t;
  size_t pos = 0, ntmpl = 0, nop = 0, i;
  struct tmpl *tmpls = NULL, *cur = NULL;
  struct named *opcodes = NULL;
  struct man_event *events = NULL;
  size_t nev = 0;
  int rc = 0, broken = 0; /* broken: the current template hit a field of unknown size */
  char a[256], b[256];
  free_events(p);
  while (next_tag(x, len, &pos, &t)) {
    if (t.closing) {
      if (!strcmp(t.name, "template"))
        cur = NULL;
      continue;
    }
    if (!strcmp(t.name, "opcode") && attr(&t, "name", a, sizeof(a))) {
      struct named *g = etwcap_reallocarray(opcodes, nop + 1, sizeof(*g));
      if (!g)
        goto nomem;
      opcodes = g;
      tv_copy(opcodes[nop].name, sizeof(opcodes[nop].name), a);
      opcodes[nop].value[0] = '\0';
      nop++;
    } else if (!strcmp(t.name, "template") && attr(&t, "tid", a, sizeof(a))) {
      struct tmpl *g = etwcap_reallocarray(tmpls, ntmpl + 1, sizeof(*g));
      if (!g)
        goto nomem;
      tmpls = g;
      cur = &tmpls[ntmpl++];
      memset(cur, 0, sizeof(*cur));
      tv_copy(cur->tid, sizeof(cur->tid), a);
      broken = t.self_closing;
      if (t.self_closing)
        cur = NULL;
    } else if (cur && !broken && !strcmp(t.name, "data") && attr(&t, "name", a, sizeof(a)) &&
               attr(&t, "inType", b, sizeof(b))) {
      int kind = kind_of(b);
      struct tf_field *g;
      if (kind < 0 || attr(&t, "count", b, sizeof(b)) || attr(&t, "length", b, sizeof(b))) {
        broken = 1; /* later fields cannot be located */
        continue;
      }
      g = etwcap_reallocarray(cur->fields, cur->count + 1, sizeof(*g));
      if (!g)
        goto nomem;
      cur->fields = g;
      g[cur->count].kind = (enum tf_kind)kind;
      g[cur->count].name = etwcap_strdup(a);
      if (!g[cur->count].name)
        goto nomem;
      cur->count++;
    } else if (cur && !strcmp(t.name, "struct")) {
      broken = 1;
    }
  }
  /* Events after the templates are known (EventSource writes events first). */
  pos = 0;
  while (next_tag(x, len, &pos, &t)) {
    struct man_event *e, *g;
    int64_t v;
    if (t.closing || strcmp(t.name, "event") || !attr(&t, "value", a, sizeof(a)) ||
        str_parse_int64(a, &v) != 0 || v < 0 || v > 65535)
      continue;
    g = etwcap_reallocarray(events, nev + 1, sizeof(*g));
    if (!g)
      goto nomem;
    events = g;
    e = &events[nev++];
    memset(e, 0, sizeof(*e));
    e->id = (uint16_t)v;
    if (attr(&t, "version", a, sizeof(a)) && str_parse_int64(a, &v) == 0 && v >= 0 && v < 256)
      e->version = (uint8_t)v;
    if (attr(&t, "symbol", a, sizeof(a)) && a[0] && !(e->symbol = dup_or_null(a)))
      goto nomem;
    if (attr(&t, "task", a, sizeof(a)) && a[0] && !(e->task = dup_or_null(a)))
      goto nomem;
    if (!attr(&t, "opcode", a, sizeof(a)))
      a[0] = '\0';
    {
      const char *op = opcode_name(a, opcodes, nop);
      if (op && !(e->opcode = etwcap_strdup(op)))
        goto nomem;
    }
    if (!e->task && e->symbol && !(e->task = etwcap_strdup(e->symbol)))
      goto nomem;
    if (attr(&t, "template", a, sizeof(a)))
      for (i = 0; i < ntmpl; i++)
        if (!strcmp(tmpls[i].tid, a)) {
          size_t k;
          struct tf_field *f = etwcap_calloc(tmpls[i].count ? tmpls[i].count : 1, sizeof(*f));
          if (!f)
            goto nomem;
          for (k = 0; k < tmpls[i].count; k++) {
            f[k].kind = tmpls[i].fields[k].kind;
            f[k].name = etwcap_strdup(tmpls[i].fields[k].name);
            if (!f[k].name) {
              e->layout.fields = f;
              e->layout.count = k;
              goto nomem;
            }
          }
          e->layout.fields = f;
          e->layout.count = tmpls[i].count;
          break;
        }
  }
  p->events = events;
  p->count = nev;
  p->parsed = 1;
  events = NULL;
  nev = 0;
  goto cleanup;
nomem:
  rc = ETWCAP_E_NOMEM;
cleanup:
  for (i = 0; i < nev; i++)
    free_event(&events[i]);
  etwcap_free(events);
  for (i = 0; i < ntmpl; i++) {
    size_t k;
    for (k = 0; k < tmpls[i].count; k++)
      etwcap_free((char *)tmpls[i].fields[k].name);
    etwcap_free(tmpls[i].fields);
  }
  etwcap_free(tmpls);
  etwcap_free(opcodes);
  return rc;
}

static struct man_provider *provider(struct manifests *m, const struct etw_guid *g,
                                     int create)
{
  size_t i;
  struct man_provider *grown;
  for (i = 0; i < m->count; i++)
    if (guid_equal(&m->p[i].guid, g))
      return &m->p[i];
  if (!create)
    return NULL;
  grown = etwcap_reallocarray(m->p, m->count + 1, sizeof(*grown));
  if (!grown)
    return NULL;
  m->p = grown;
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
  grown = etwcap_realloc(p->xml, p->xml_len + n + 1);
  if (!grown)
    return ETWCAP_E_NOMEM;
  p->xml = grown;
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
  const struct man_event *best = NULL;
  size_t i;
  if (!p)
    return NULL;
  for (i = 0; i < p->count; i++) {
    const struct man_event *e = &p->events[i];
    if (e->id != id)
      continue;
    if (e->version <= version && (!best || e->version > best->version))
      best = e;
    else if (!best)
      best = e; /* a newer event than the manifest knows: same layout prefix */
  }
  return best;
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
  char full[300];
  if (e->symbol && str_caseeq(e->symbol, name))
    return 1;
  return str_caseeq(manifests_event_name(e, full, sizeof(full)), name);
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
