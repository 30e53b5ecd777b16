/* See demo_events.h. */
#include "tests/tools/demo_events.h"

#include "etw/etl/etl_encode.h"
#include "etw/etl/etl_writer.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

void dp_init(struct demo_payload *p)
{
  p->n = 0;
  p->overflow = 0;
}

/* Reserves k bytes; NULL (and overflow) when they do not fit. */
static uint8_t *room(struct demo_payload *p, size_t k)
{
  uint8_t *at;
  if (p->overflow || sizeof(p->b) - p->n < k) {
    p->overflow = 1;
    return NULL;
  }
  at = p->b + p->n;
  p->n += k;
  return at;
}

void dp_u8(struct demo_payload *p, uint8_t v)
{
  uint8_t *q = room(p, 1);
  if (q)
    q[0] = v;
}

void dp_u16(struct demo_payload *p, uint16_t v)
{
  uint8_t *q = room(p, 2);
  if (q)
    etl_put16(q, v);
}

void dp_u32(struct demo_payload *p, uint32_t v)
{
  uint8_t *q = room(p, 4);
  if (q)
    etl_put32(q, v);
}

void dp_u64(struct demo_payload *p, uint64_t v)
{
  uint8_t *q = room(p, 8);
  if (q)
    etl_put64(q, v);
}

/* The IEEE bit pattern, copied (never a cast over the buffer). */
void dp_f64(struct demo_payload *p, double v)
{
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  dp_u64(p, bits);
}

void dp_guid(struct demo_payload *p, const struct etw_guid *g)
{
  uint8_t *q = room(p, 16);
  if (q)
    guid_to_bytes(g, q);
}

void dp_utf16z(struct demo_payload *p, const char *s)
{
  for (; *s; s++)
    dp_u16(p, (uint8_t)*s);
  dp_u16(p, 0);
}

void dp_ansiz(struct demo_payload *p, const char *s)
{
  for (; *s; s++)
    dp_u8(p, (uint8_t)*s);
  dp_u8(p, 0);
}

void dp_sid_nt_authority(struct demo_payload *p, uint32_t rid)
{
  /* TOKEN_USER: User.Sid (a kernel pointer) and User.Attributes, pointer
   * sized each on x64; then the SID: revision 1, one sub-authority,
   * authority {0,0,0,0,0,5} (NT AUTHORITY), the RID. */
  dp_u64(p, 0xFFFF9A8C3E6F2D60ull);
  dp_u64(p, 0);
  dp_u8(p, 1);
  dp_u8(p, 1);
  dp_u8(p, 0);
  dp_u8(p, 0);
  dp_u8(p, 0);
  dp_u8(p, 0);
  dp_u8(p, 0);
  dp_u8(p, 5);
  dp_u32(p, rid);
}

struct demo_rec {
  uint64_t ts;
  size_t seq, at;
  uint32_t size;
  uint16_t cpu;
};

struct demo_session {
  struct demo_rec *recs;
  size_t count, cap;
  uint8_t *pool;
  size_t pool_len, pool_cap;
  int err; /* sticky: the first failure */
};

int demo_session_new(struct demo_session **out)
{
  *out = etwcap_calloc(1, sizeof(**out));
  return *out ? 0 : ETWCAP_E_NOMEM;
}

void demo_session_free(struct demo_session *s)
{
  if (!s)
    return;
  etwcap_free(s->recs);
  etwcap_free(s->pool);
  etwcap_free(s);
}

size_t demo_session_count(const struct demo_session *s)
{
  return s->count;
}

/* Room for one record of `size` bytes; NULL on failure (kept as s->err). */
static uint8_t *new_record(struct demo_session *s, uint16_t cpu, uint64_t ts, uint32_t size)
{
  struct demo_rec *r;
  if (s->err)
    return NULL;
  if (s->count == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4096;
    struct demo_rec *grown = etwcap_reallocarray(s->recs, cap, sizeof(*grown));
    if (!grown) {
      s->err = ETWCAP_E_NOMEM;
      return NULL;
    }
    s->recs = grown;
    s->cap = cap;
  }
  if (s->pool_cap - s->pool_len < size) {
    size_t cap = s->pool_cap ? 2 * s->pool_cap : (size_t)1 << 20;
    uint8_t *grown;
    while (cap - s->pool_len < size)
      cap *= 2;
    grown = etwcap_realloc(s->pool, cap);
    if (!grown) {
      s->err = ETWCAP_E_NOMEM;
      return NULL;
    }
    s->pool = grown;
    s->pool_cap = cap;
  }
  r = &s->recs[s->count];
  r->ts = ts;
  r->seq = s->count;
  r->at = s->pool_len;
  r->size = size;
  r->cpu = cpu;
  s->count++;
  s->pool_len += size;
  memset(s->pool + r->at, 0, size);
  return s->pool + r->at;
}

static int payload_ok(struct demo_session *s, const struct demo_payload *p, size_t header)
{
  if (!s->err && (p->overflow || header + p->n > 0xFFFF))
    s->err = ETWCAP_E_RANGE; /* Size is a u16 */
  return !s->err;
}

int demo_add_event(struct demo_session *s, uint16_t cpu, uint64_t ts, uint32_t pid, uint32_t tid,
                   const struct demo_manifest_event *e, const struct demo_payload *p)
{
  uint32_t size = (uint32_t)(0x50 + p->n);
  uint8_t *q;
  if (!payload_ok(s, p, 0x50) || !(q = new_record(s, cpu, ts, size)))
    return s->err;
  /* EVENT_HEADER as ETW stores it (docs/etl.md §4.2): Size, HeaderType
   * 0x13 (EVENT_HEADER64), Flags 0xC0; the Flags and EventProperty words
   * stay 0, as in the samples' CLR events; no extended items. */
  etl_put16(q + 0x00, (uint16_t)size);
  q[0x02] = 0x13;
  q[0x03] = 0xC0;
  etl_put32(q + 0x08, tid);
  etl_put32(q + 0x0C, pid);
  etl_put64(q + 0x10, ts);
  guid_to_bytes(e->provider, q + 0x18);
  etl_put16(q + 0x28, e->id);
  q[0x2A] = e->version;
  q[0x2B] = 0; /* channel */
  q[0x2C] = e->level;
  q[0x2D] = e->opcode;
  etl_put16(q + 0x2E, e->task);
  etl_put64(q + 0x30, e->keyword);
  /* ProcessorTime (0x38) and ActivityId (0x40) stay zero. */
  memcpy(q + 0x50, p->b, p->n);
  return 0;
}

int demo_add_system(struct demo_session *s, uint16_t cpu, uint64_t ts, uint16_t hook,
                    uint16_t version, uint32_t pid, uint32_t tid, const struct demo_payload *p)
{
  uint32_t size = (uint32_t)(0x20 + p->n);
  uint8_t *q;
  if (!payload_ok(s, p, 0x20) || !(q = new_record(s, cpu, ts, size)))
    return s->err;
  etl_system_header_encode(q, 1, (uint16_t)size, hook, tid, pid, ts);
  etl_put16(q + 0x00, version); /* the event's version, not the header event's 2 */
  memcpy(q + 0x20, p->b, p->n);
  return 0;
}

int demo_add_perfinfo(struct demo_session *s, uint16_t cpu, uint64_t ts, uint16_t hook,
                      uint16_t version, const struct demo_payload *p)
{
  uint32_t size = (uint32_t)(0x10 + p->n);
  uint8_t *q;
  if (!payload_ok(s, p, 0x10) || !(q = new_record(s, cpu, ts, size)))
    return s->err;
  /* PERFINFO_TRACE_HEADER: Version, HeaderType 0x11 (PERFINFO64), Flags
   * 0xC0, Size, HookId, SystemTime; no PMC or PEBS bits in Version. */
  etl_put16(q + 0x00, version);
  q[0x02] = 0x11;
  q[0x03] = 0xC0;
  etl_put16(q + 0x04, (uint16_t)size);
  etl_put16(q + 0x06, hook);
  etl_put64(q + 0x08, ts);
  memcpy(q + 0x10, p->b, p->n);
  return 0;
}

static int by_cpu_time(const void *a, const void *b)
{
  const struct demo_rec *x = a, *y = b;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int demo_session_write(struct demo_session *s, const char *path, const struct etl_logfile *header,
                       uint32_t header_pid, uint32_t header_tid)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  size_t i;
  int rc;
  if (s->err)
    return s->err;
  qsort(s->recs, s->count, sizeof(s->recs[0]), by_cpu_time);
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = *header;
  cfg.buffer_size = ETL_WRITER_DEFAULT_BUFFER_SIZE;
  cfg.header_pid = header_pid;
  cfg.header_tid = header_tid;
  rc = etl_writer_open(&w, path, &cfg);
  if (rc)
    return rc;
  for (i = 0; i < s->count && !rc; i++)
    rc = etl_writer_write(w, s->recs[i].cpu, s->recs[i].ts, s->pool + s->recs[i].at,
                          s->recs[i].size);
  if (rc) {
    etl_writer_abort(w);
    return rc;
  }
  return etl_writer_finish(w);
}
