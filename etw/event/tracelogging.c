/* See tracelogging.h.  In-type numbers are TraceLoggingProvider.h's TlgIn_t:
 * 1 UNICODESTRING ... 22 COUNTEDSTRING, 23 COUNTEDANSISTRING, 24 STRUCT,
 * 25 COUNTEDBINARY; flags 0x20 constant count, 0x40 variable count, 0x60
 * custom, 0x80 "OutType follows". */
#include "etw/event/tracelogging.h"

#include "etw/event/payload_cursor.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <string.h>

#define TL_IN_TYPE_MASK 0x1F
#define TL_IN_COUNT_MASK 0x60
#define TL_IN_CCOUNT 0x20
#define TL_IN_VCOUNT 0x40
#define TL_IN_CUSTOM 0x60
#define TL_IN_CHAIN 0x80
#define TL_OUT_CHAIN 0x80
#define TL_STRUCT 24
#define TL_MAX_DEPTH 8
#define TL_MAX_FIELDS 4096
#define TL_PATH_MAX 256
/* Steps an event's walk may take per byte of its metadata and payload.  A
 * step is a field visited, a struct element entered or an array element
 * decoded.  Every element of a well-formed event reads at least one payload
 * byte (a struct element, through its members), so it needs at most three
 * steps per byte; the rest is room.  Without this bound a crafted schema of
 * 4096 constant-count arrays of 65,535 elements that read nothing (InType 0,
 * or a string at the payload's end) cost 2.7e8 steps per event. */
#define TL_STEPS_PER_BYTE 4u
#define TL_STEPS_BASE 64u

int tl_parse_bytes(const uint8_t *schema, size_t len, struct tl_meta *m)
{
  size_t total, pos = 2, start, n;
  int tags = 0;
  if (len < 3)
    return -1;
  total = (size_t)(schema[0] | schema[1] << 8);
  if (total < 3 || total > len)
    return -1;
  /* One or more tag bytes: the high bit says another follows. */
  while (pos < total && (schema[pos] & 0x80) && ++tags < 4)
    pos++;
  pos++;
  start = pos;
  while (pos < total && schema[pos])
    pos++;
  if (pos >= total)
    return -1;
  n = pos - start < TL_NAME_MAX - 1 ? pos - start : TL_NAME_MAX - 1;
  memcpy(m->name, schema + start, n);
  m->name[n] = '\0';
  m->whole_name = (const char *)schema + start;
  m->fields = schema + pos + 1;
  m->fields_len = total - pos - 1;
  return 1;
}

int tl_parse(const struct etw_event *ev, struct tl_meta *m)
{
  unsigned i;
  for (i = 0; i < ev->ext_count; i++)
    if (ev->ext[i].type == ETW_EXT_EVENT_SCHEMA_TL)
      return tl_parse_bytes(ev->ext[i].data, ev->ext[i].size, m);
  return 0;
}

struct walker {
  const uint8_t *meta;
  size_t mlen, mpos;
  struct pl_cursor pay;
  tl_field_fn fn;
  void *ctx;
  /* The names of the field being read and of the structs around it,
   * whole (NUL-terminated in the metadata): a path is matched against
   * them, never against a cut copy. */
  const char *names[TL_MAX_DEPTH + 1];
  /* tl_find_string: the field sought (find_first: the first one) and
   * where it goes. */
  const char *find;
  int find_first;
  struct tv_value *found;
  struct tl_string *found_string;
  unsigned fields_seen;
  size_t steps_left; /* see TL_STEPS_PER_BYTE */
  int over_budget;
  int stop; /* callback's value */
};

struct field_meta {
  const char *name; /* in the metadata, NUL-terminated */
  uint8_t in, out;
  uint16_t ccount;
};

static int meta_u8(struct walker *w, uint8_t *out)
{
  if (w->mpos >= w->mlen)
    return -1;
  *out = w->meta[w->mpos++];
  return 0;
}

static int read_field_meta(struct walker *w, struct field_meta *f)
{
  size_t start = w->mpos;
  uint8_t b = 0, lo, hi;
  int tags = 0;
  while (w->mpos < w->mlen && w->meta[w->mpos])
    w->mpos++;
  if (w->mpos >= w->mlen)
    return -1;
  f->name = (const char *)w->meta + start;
  w->mpos++;
  if (meta_u8(w, &f->in))
    return -1;
  f->out = 0;
  if (f->in & TL_IN_CHAIN) {
    if (meta_u8(w, &f->out))
      return -1;
    if (f->out & TL_OUT_CHAIN) {
      do {
        if (meta_u8(w, &b))
          return -1;
      } while ((b & 0x80) && ++tags < 4);
    }
  }
  f->ccount = 0;
  if ((f->in & TL_IN_COUNT_MASK) == TL_IN_CCOUNT) {
    if (meta_u8(w, &lo) || meta_u8(w, &hi))
      return -1;
    f->ccount = (uint16_t)(lo | hi << 8);
  } else if ((f->in & TL_IN_COUNT_MASK) == TL_IN_CUSTOM) {
    uint16_t size;
    if (meta_u8(w, &lo) || meta_u8(w, &hi))
      return -1;
    size = (uint16_t)(lo | hi << 8);
    if (w->mlen - w->mpos < size)
      return -1;
    w->mpos += size;
  }
  return 0;
}

/* Takes one step from the event's budget; -1 when it is spent. */
static int step(struct walker *w)
{
  if (!w->steps_left) {
    w->over_budget = 1;
    return -1;
  }
  w->steps_left--;
  return 0;
}

/* Reads one scalar of in-type t into v (v NULL: skip). */
static int read_scalar(struct walker *w, unsigned t, struct tv_value *v)
{
  struct pl_cursor *c = &w->pay;
  struct tv_value scratch;
  uint16_t n;
  if (!v)
    v = &scratch;
  switch (t) {
  case 0: v->type = TV_NONE; v->text[0] = '\0'; break;
  case 1: pl_utf16z(c, v->text, sizeof(v->text)); tv_set_text(v); break;
  case 2: pl_ansiz(c, v->text, sizeof(v->text)); tv_set_text(v); break;
  case 3: tv_set_int(v, (int8_t)pl_u8(c)); break;
  case 4: tv_set_uint(v, pl_u8(c)); break;
  case 5: tv_set_int(v, (int16_t)pl_u16(c)); break;
  case 6: tv_set_uint(v, pl_u16(c)); break;
  case 7: tv_set_int(v, (int32_t)pl_u32(c)); break;
  case 8: case 20: tv_set_uint(v, pl_u32(c)); break;
  case 9: tv_set_int(v, (int64_t)pl_u64(c)); break;
  case 10: case 21: tv_set_uint(v, pl_u64(c)); break;
  case 11: tv_set_float(v, pl_f32(c)); break;
  case 12: tv_set_float(v, pl_f64(c)); break;
  case 13:
    tv_set_bool(v, pl_u32(c) != 0);
    break;
  case 14: case 25: /* binary: UINT16 byte count, then the bytes */
    n = pl_u16(c);
    pl_skip(c, n);
    v->type = TV_NONE;
    v->text[0] = '\0';
    break;
  case 15: {
    uint8_t g[16];
    struct etw_guid gd;
    unsigned i;
    for (i = 0; i < 16; i++)
      g[i] = pl_u8(c);
    gd = guid_from_bytes(g);
    tv_set_guid(v, &gd);
    break;
  }
  case 17: tv_set_uint(v, pl_u64(c)); break; /* FILETIME as its number */
  case 18: pl_skip(c, 16); v->type = TV_NONE; v->text[0] = '\0'; break;
  case 19: { /* a bare SID: 8 bytes and 4 per sub-authority */
    uint8_t sub;
    pl_skip(c, 1);
    sub = pl_u8(c);
    pl_skip(c, 6 + 4u * sub);
    v->type = TV_NONE;
    v->text[0] = '\0';
    break;
  }
  case 22:
    n = pl_u16(c);
    pl_utf16n(c, n / 2u, v->text, sizeof(v->text));
    if (n & 1)
      pl_skip(c, 1);
    tv_set_text(v);
    break;
  case 23: {
    size_t copy;
    n = pl_u16(c);
    copy = n < sizeof(v->text) - 1 ? n : sizeof(v->text) - 1;
    if (c->len - c->pos >= n && !c->bad) {
      memcpy(v->text, c->p + c->pos, copy);
      v->text[copy] = '\0';
    } else {
      v->text[0] = '\0';
    }
    pl_skip(c, n);
    tv_set_text(v);
    break;
  }
  default:
    return -1; /* 16 (pointer) and unknown types cannot be sized */
  }
  return c->bad ? -1 : 0;
}

/* Where the string of in-type t read from `at` lies in the payload (the
 * cursor is past it): its bytes without the count or the terminator. */
static void string_at(const struct pl_cursor *c, unsigned t, size_t at, struct tl_string *s)
{
  size_t end = c->pos;
  s->utf16 = t == 1 || t == 22;
  s->pos = t >= 22 ? at + 2 : at;
  s->len = end - s->pos;
  if (t == 1 && s->len >= 2 && !(s->len & 1) && !c->p[end - 2] && !c->p[end - 1])
    s->len -= 2; /* the NUL; a string that ran to the payload's end has none */
  else if (t == 2 && s->len && !c->p[end - 1])
    s->len--;
}

/* Is `name` the dotted path of the field at `depth`, or the path's last
 * part (after its last dot)? */
static int path_matches(const struct walker *w, int depth, const char *name)
{
  const char *tail = strrchr(w->names[depth], '.'), *p = name;
  int i;
  if (str_caseeq(tail ? tail + 1 : w->names[depth], name))
    return 1;
  for (i = 0; i <= depth; i++) {
    size_t n = strlen(w->names[i]);
    if (!str_ncaseeq(w->names[i], p, n))
      return 0;
    p += n;
    if (i < depth && *p++ != '.')
      return 0;
  }
  return !*p;
}

/* A scalar field read into v: the one sought, or one for the callback.
 * Non-zero stops the walk. */
static int report_field(struct walker *w, int depth, unsigned t, size_t at,
                        const struct tv_value *v)
{
  char path[TL_PATH_MAX];
  int i;
  if (w->find || w->find_first) {
    if (!w->find_first && !path_matches(w, depth, w->find))
      return 0;
    *w->found = *v;
    if (w->found_string && v->type == TV_TEXT)
      string_at(&w->pay, t, at, w->found_string);
    return w->stop = 1;
  }
  if (!w->fn)
    return 0;
  path[0] = '\0';
  for (i = 0; i <= depth; i++) {
    if (i)
      tv_append(path, sizeof(path), ".");
    tv_append(path, sizeof(path), w->names[i]);
  }
  return w->stop = w->fn(w->ctx, path, v);
}

static int walk(struct walker *w, size_t count, int depth, int report);

static int walk_one(struct walker *w, int depth, int report)
{
  struct field_meta f;
  unsigned t;
  size_t elems = 1, e;
  int is_array;
  struct tv_value v;
  if (++w->fields_seen > TL_MAX_FIELDS || step(w) || read_field_meta(w, &f))
    return -1;
  w->names[depth] = f.name;
  t = f.in & TL_IN_TYPE_MASK;
  is_array = (f.in & TL_IN_COUNT_MASK) == TL_IN_CCOUNT || (f.in & TL_IN_COUNT_MASK) == TL_IN_VCOUNT;
  if ((f.in & TL_IN_COUNT_MASK) == TL_IN_CCOUNT)
    elems = f.ccount;
  else if ((f.in & TL_IN_COUNT_MASK) == TL_IN_VCOUNT)
    elems = report >= 0 ? pl_u16(&w->pay) : 0;
  if (w->pay.bad)
    return -1;
  if (t == TL_STRUCT) {
    size_t members = f.out & 0x7F, member_meta = w->mpos;
    if (!(f.in & TL_IN_CHAIN) || members == 0 || depth >= TL_MAX_DEPTH)
      return -1;
    if (report < 0 || elems == 0) { /* only step over the members' metadata */
      return walk(w, members, depth + 1, -1);
    }
    for (e = 0; e < elems; e++) {
      int rc;
      if (step(w))
        return -1;
      w->mpos = member_meta;
      rc = walk(w, members, depth + 1, is_array ? 0 : report);
      if (rc)
        return rc;
    }
    return 0;
  }
  if ((f.in & TL_IN_COUNT_MASK) == TL_IN_CUSTOM) {
    /* Custom-typed data: UINT16 size, then bytes nobody here can read. */
    if (report >= 0)
      pl_skip(&w->pay, pl_u16(&w->pay));
    return w->pay.bad ? -1 : 0;
  }
  if (report < 0)
    return 0;
  for (e = 0; e < elems; e++) {
    int last_scalar = !is_array && report > 0;
    size_t at = w->pay.pos;
    int rc;
    if (step(w) || read_scalar(w, t, last_scalar ? &v : NULL) != 0)
      return -1;
    if (last_scalar && (rc = report_field(w, depth, t, at, &v)) != 0)
      return rc;
  }
  return 0;
}

/* report: 1 decode and report, 0 decode silently (array elements),
 * -1 metadata only (no payload). */
static int walk(struct walker *w, size_t count, int depth, int report)
{
  size_t i;
  for (i = 0; i < count; i++) {
    int rc = walk_one(w, depth, report);
    if (rc)
      return rc;
  }
  return 0;
}

/* Walks the event with w's callback or search set. */
static int run(struct walker *w, const struct tl_meta *m, const uint8_t *payload, size_t len,
               unsigned ptr_size)
{
  size_t bytes;
  w->meta = m->fields;
  w->mlen = m->fields_len;
  pl_init(&w->pay, payload, len, ptr_size);
  bytes = w->mlen + len; /* two buffers in memory: no wrap */
  w->steps_left = bytes > (SIZE_MAX - TL_STEPS_BASE) / TL_STEPS_PER_BYTE
                      ? SIZE_MAX
                      : TL_STEPS_BASE + TL_STEPS_PER_BYTE * bytes;
  while (w->mpos < w->mlen) {
    int rc = walk_one(w, 0, 1);
    if (rc)
      return w->stop ? w->stop : w->over_budget ? ETWCAP_E_CORRUPT : -1;
  }
  return 0;
}

int tl_walk(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
            tl_field_fn fn, void *ctx)
{
  struct walker w;
  memset(&w, 0, sizeof(w));
  w.fn = fn;
  w.ctx = ctx;
  return run(&w, m, payload, len, ptr_size);
}

int tl_find_string(const struct tl_meta *m, const uint8_t *payload, size_t len,
                   unsigned ptr_size, const char *name, struct tv_value *v, struct tl_string *s)
{
  struct walker w;
  int rc;
  memset(&w, 0, sizeof(w));
  w.find = name;
  w.find_first = !name;
  w.found = v;
  w.found_string = s;
  rc = run(&w, m, payload, len, ptr_size);
  return rc == 1 ? 1 : rc < 0 ? -1 : 0;
}

int tl_find(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
            const char *name, struct tv_value *v)
{
  return tl_find_string(m, payload, len, ptr_size, name, v, NULL);
}

int tl_first(const struct tl_meta *m, const uint8_t *payload, size_t len, unsigned ptr_size,
             struct tv_value *v)
{
  return tl_find_string(m, payload, len, ptr_size, NULL, v, NULL);
}

size_t tl_string_text(const struct tl_string *s, const uint8_t *payload, char *out, size_t cap)
{
  size_t n;
  if (s->utf16)
    return pl_utf16_to_utf8(payload + s->pos, s->len / 2, out, cap);
  n = s->len < cap - 1 ? s->len : cap - 1;
  memcpy(out, payload + s->pos, n);
  out[n] = '\0';
  return n;
}
