/* See stack_join.h.  Payloads, as TraceEvent's KernelTraceEventParser
 * reads them (StackWalkStackTraceData, StackWalkRefTraceData,
 * StackWalkDefTraceData): StackWalk is EventTimeStamp (u64), StackProcess
 * (u32), StackThread (u32), then the frames (pointers, leaf first); a
 * reference is the same head and a StackKey (pointer); a definition is the
 * StackKey then the frames.  A STACK_TRACE item is a MatchId (u64) then
 * the frames (EVENT_EXTENDED_ITEM_STACK_TRACE32/64). */
#include "etw/stacks/stack_join.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdlib.h>
#include <string.h>

#define KEY_SLOTS (1u << 21)
#define FRAGMENT_SLOTS (1u << 21)
#define FIRST_BLOCK 4096

/* Opcodes of the StackWalk group (TraceEvent's KernelTraceEventParser). */
#define OPCODE_STACK 32
#define OPCODE_KEY_DELETE 35
#define OPCODE_KEY_RUNDOWN 36
#define OPCODE_KEY_KERNEL 37
#define OPCODE_KEY_USER 38

enum { KIND_KERNEL = 1, KIND_USER = 2 };

/* The EventTracing provider (KernelTraceEventParser.EventTracingProviderGuid)
 * logs a thread's user-mode stack as event 18, opcode 24, when it returns
 * from the kernel (TraceLog.ProcessExtendedData). */
static const struct etw_guid event_tracing_guid = {
  0xb675ec37, 0xbdb6, 0x4648, { 0xbc, 0x92, 0xf3, 0xfd, 0xc7, 0x4d, 0x3c, 0xa2 }
};

int stack_is_kernel_address(uint64_t address, unsigned pointer_size)
{
  return pointer_size == 4 ? address >= 0x80000000u : address >= 0xFFFF000000000000ull;
}

int stack_join_init(struct stack_join *s)
{
  memset(s, 0, sizeof(*s));
  stack_keymap_init(&s->fragment_by_hash, FRAGMENT_SLOTS);
  return 0;
}

void stack_join_release(struct stack_join *s)
{
  etwcap_free(s->samples);
  etwcap_free(s->addresses);
  etwcap_free(s->fragments);
  etwcap_free(s->refs);
  etwcap_free(s->defs);
  etwcap_free(s->lates);
  etwcap_free(s->flushes);
  etwcap_free(s->waiting);
  etwcap_free(s->runs);
  stack_keymap_release(&s->fragment_by_hash);
  memset(s, 0, sizeof(*s));
}

static uint64_t frame_at(const uint8_t *p, unsigned ptr, size_t i)
{
  return ptr == 4 ? etl_le32(p + i * 4) : etl_le64(p + i * 8);
}

/* The part of the n frames at p (pointer size ptr): a fragment, the same
 * one for the same frames.  0 when the pool is full (the frames are
 * counted as dropped), or ETWCAP_E_NOMEM as a negative value. */
static int64_t fragment(struct stack_join *s, const uint8_t *p, unsigned ptr, size_t n)
{
  uint64_t h = 0x84222325cbf29ce4ull;
  uint32_t known;
  size_t i;
  struct stack_fragment *f;
  for (i = 0; i < n; i++)
    h = (h ^ frame_at(p, ptr, i)) * 0x100000001b3ull;
  known = stack_keymap_get(&s->fragment_by_hash, h, (uint32_t)n);
  if (known) {
    f = &s->fragments[known - 1];
    for (i = 0; i < n && s->addresses[f->first + i] == frame_at(p, ptr, i); i++)
      ;
    if (i == n)
      return STACK_PART_FRAGMENT | (known - 1);
  }
  if (s->address_count + n > STACK_MAX_ADDRESSES) {
    s->frames_dropped += n;
    return 0;
  }
  while (s->address_count + n > s->address_cap)
    if (etwcap_grow((void **)&s->addresses, &s->address_cap, s->address_cap,
                    sizeof(*s->addresses), FIRST_BLOCK * 16) != 0)
      return ETWCAP_E_NOMEM;
  if (etwcap_grow((void **)&s->fragments, &s->fragment_cap, s->fragment_count,
                  sizeof(*s->fragments), FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  f = &s->fragments[s->fragment_count];
  f->first = (uint32_t)s->address_count;
  f->count = (uint32_t)n;
  for (i = 0; i < n; i++)
    s->addresses[s->address_count++] = frame_at(p, ptr, i);
  if (!known)
    stack_keymap_put(&s->fragment_by_hash, h, (uint32_t)n, (uint32_t)s->fragment_count + 1);
  return STACK_PART_FRAGMENT | (uint32_t)s->fragment_count++;
}

/* A reference to (key, kind) at filetime, resolved at the end: its index
 * + 1, 0 when none can be kept, or ETWCAP_E_NOMEM as a negative value. */
static int64_t key_ref(struct stack_join *s, uint64_t key, unsigned kind, int64_t filetime)
{
  struct stack_ref *r;
  if (s->ref_count >= 2 * (size_t)STACK_MAX_SAMPLES) {
    s->stack_records_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->refs, &s->ref_cap, s->ref_count, sizeof(*s->refs),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  r = &s->refs[s->ref_count++];
  r->key = key;
  r->filetime = filetime;
  r->kind = kind;
  r->part = 0;
  return (int64_t)s->ref_count;
}

static int add_flush(struct stack_join *s, int64_t filetime, uint32_t tid, uint32_t part)
{
  struct stack_flush *f;
  if (!part)
    return 0;
  if (s->flush_count >= STACK_MAX_SAMPLES) {
    s->stack_records_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->flushes, &s->flush_cap, s->flush_count, sizeof(*s->flushes),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  f = &s->flushes[s->flush_count++];
  f->filetime = filetime;
  f->tid = tid;
  f->part = part;
  return 0;
}

/* Keeps an entry (a sample, or a context switch) and remembers it on its
 * CPU for its stack events. */
static int keep(struct stack_join *s, const struct etw_event *ev, int64_t filetime,
                uint32_t tid, uint64_t ip, uint32_t flags)
{
  unsigned cpu = ev->cpu % STACK_CPUS;
  struct stack_sample *x;
  struct stack_join_recent *r;
  if (s->sample_count >= STACK_MAX_SAMPLES) {
    s->samples_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->samples, &s->sample_cap, s->sample_count, sizeof(*s->samples),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  x = &s->samples[s->sample_count];
  x->filetime = filetime;
  x->ip = ip;
  x->tid = tid;
  x->kern = x->user = 0;
  x->flags = flags;
  r = &s->recent[cpu][s->recent_next[cpu]];
  s->recent_next[cpu] = (uint8_t)((s->recent_next[cpu] + 1) % STACK_RECENT);
  r->timestamp = ev->timestamp;
  r->tid = tid;
  r->sample = (uint32_t)s->sample_count + 1;
  s->sample_count++;
  return 0;
}

/* The CPU's held idle sample had no stack: into its run. */
static int settle(struct stack_join *s, unsigned cpu)
{
  struct stack_idle_held *h = &s->idle[cpu];
  struct stack_idle_run *run;
  if (!h->held)
    return 0;
  h->held = 0;
  s->idle_run_samples++;
  if (h->open && s->runs[h->run].ip == h->ip) {
    s->runs[h->run].last = h->filetime;
    s->runs[h->run].count++;
    return 0;
  }
  if (s->run_count >= STACK_MAX_SAMPLES) {
    s->idle_run_samples--;
    s->samples_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->runs, &s->run_cap, s->run_count, sizeof(*s->runs), 64) != 0)
    return ETWCAP_E_NOMEM;
  run = &s->runs[s->run_count];
  run->first = run->last = h->filetime;
  run->ip = h->ip;
  run->count = 1;
  h->open = 1;
  h->run = s->run_count++;
  return 0;
}

int stack_join_sample(struct stack_join *s, const struct etw_event *ev, int64_t filetime)
{
  unsigned ptr = ev->pointer_size == 4 ? 4 : 8, cpu = ev->cpu % STACK_CPUS;
  size_t kept = s->sample_count;
  uint32_t tid;
  int rc;
  if (!ev->user_data || ev->user_len < ptr + 4)
    return STACK_NOT_KEPT;
  if ((rc = settle(s, cpu)) != 0)
    return rc;
  tid = etl_le32(ev->user_data + ptr);
  if (tid == 0) {
    struct stack_idle_held *h = &s->idle[cpu];
    struct stack_join_recent *r = &s->recent[cpu][s->recent_next[cpu]];
    s->recent_next[cpu] = (uint8_t)((s->recent_next[cpu] + 1) % STACK_RECENT);
    r->timestamp = ev->timestamp;
    r->tid = 0;
    r->sample = 0;
    h->held = 1;
    h->filetime = filetime;
    h->timestamp = ev->timestamp;
    h->ip = frame_at(ev->user_data, ptr, 0);
    return STACK_KEPT_IDLE;
  }
  rc = keep(s, ev, filetime, tid, frame_at(ev->user_data, ptr, 0), 0);
  return rc < 0 ? rc : s->sample_count > kept ? STACK_KEPT : STACK_NOT_KEPT;
}

int stack_join_cswitch(struct stack_join *s, const struct etw_event *ev, int64_t filetime)
{
  if (!ev->user_data || ev->user_len < 8)
    return 0;
  s->cswitches++;
  return keep(s, ev, filetime, etl_le32(ev->user_data), etl_le32(ev->user_data + 4),
              STACK_SAMPLE_CSWITCH);
}

/* The sample a stack event on this CPU names, or NULL (a stack of another
 * kind of event, or of a sample no longer remembered). */
static struct stack_sample *target(struct stack_join *s, unsigned cpu,
                                          uint64_t timestamp, uint32_t tid)
{
  unsigned i;
  cpu %= STACK_CPUS;
  for (i = 0; i < STACK_RECENT; i++) {
    struct stack_join_recent *r = &s->recent[cpu][i];
    struct stack_idle_held *h = &s->idle[cpu];
    if (r->timestamp != timestamp || r->tid != tid)
      continue;
    if (r->sample)
      return &s->samples[r->sample - 1];
    /* The held idle sample has a stack: it joins the samples. */
    if (h->held && h->timestamp == timestamp && s->sample_count < STACK_MAX_SAMPLES &&
        etwcap_grow((void **)&s->samples, &s->sample_cap, s->sample_count, sizeof(*s->samples),
                    FIRST_BLOCK) == 0) {
      struct stack_sample *x = &s->samples[s->sample_count];
      x->filetime = h->filetime;
      x->ip = h->ip;
      x->tid = 0;
      x->kern = x->user = 0;
      x->flags = 0;
      h->held = 0;
      r->sample = (uint32_t)++s->sample_count;
      return x;
    }
  }
  return NULL;
}

/* A kernel part for x: the whole stack in processes 0 and 4, else it
 * waits for the thread's user part unless that came already. */
static int give_kernel(struct stack_join *s, struct stack_sample *x, uint32_t part,
                       uint32_t pid)
{
  if (x->kern)
    return 0; /* two stacks for one event: TraceLog keeps the first */
  x->kern = part;
  if (pid == 0 || pid == 4) {
    x->flags |= STACK_SAMPLE_NO_USER;
  } else if (!x->user) {
    x->flags |= STACK_SAMPLE_WAITS;
    if (etwcap_grow((void **)&s->waiting, &s->waiting_cap, s->waiting_count,
                    sizeof(*s->waiting), FIRST_BLOCK) != 0)
      return ETWCAP_E_NOMEM;
    s->waiting[s->waiting_count++] = (uint32_t)(x - s->samples);
  }
  return 0;
}

static void give_user(struct stack_sample *x, uint32_t part)
{
  if (x->user)
    return;
  x->user = part;
  x->flags &= ~(uint32_t)STACK_SAMPLE_WAITS;
}

/* Keeps a part whose event was not found at once, to match at the end. */
static int add_late(struct stack_join *s, uint64_t timestamp, uint32_t tid, uint32_t pid,
                    uint32_t part, int is_kernel)
{
  struct stack_late *l;
  int64_t ft;
  if (!s->clock)
    return 0;
  /* On the samples' scale: the report's times, held in [-1, 2^62]. */
  ft = etl_clock_filetime(s->clock, timestamp);
  ft = ft < 0 ? -1 : ft > (INT64_C(1) << 62) ? INT64_C(1) << 62 : ft;
  if (s->late_count >= STACK_MAX_SAMPLES) {
    s->stack_records_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->lates, &s->late_cap, s->late_count, sizeof(*s->lates),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  l = &s->lates[s->late_count++];
  l->filetime = ft;
  l->tid = tid;
  l->pid = pid;
  l->part = part;
  l->is_kernel = (uint32_t)is_kernel;
  return 0;
}

/* A stack event's part for the event x (NULL: not found yet, it names the
 * event at raw time `names`) of thread tid in process pid. */
static int give(struct stack_join *s, struct stack_sample *x, uint64_t names,
                uint32_t tid, uint32_t pid, uint32_t part, int is_kernel)
{
  if (!x)
    return add_late(s, names, tid, pid, part, is_kernel);
  if (is_kernel)
    return give_kernel(s, x, part, pid);
  give_user(x, part);
  return 0;
}

/* A run of n frames at p for the event x (may be NULL: it names the event
 * at raw time `names`) of thread tid in process pid, logged as one stack
 * walk at filetime. */
static int frames(struct stack_join *s, struct stack_sample *x, uint64_t names,
                  const uint8_t *p, unsigned ptr, size_t n, uint32_t pid, uint32_t tid,
                  int64_t filetime)
{
  int64_t part;
  int rc;
  if (n == 0)
    return 0;
  part = fragment(s, p, ptr, n);
  if (part < 0)
    return (int)part;
  if (!part)
    return 0;
  if (stack_is_kernel_address(frame_at(p, ptr, n - 1), ptr))
    return give(s, x, names, tid, pid, (uint32_t)part, 1);
  if ((rc = give(s, x, names, tid, pid, (uint32_t)part, 0)) != 0)
    return rc;
  /* A fragment that starts in user mode is where the thread left the
   * kernel: the user part of every kernel part waiting on the thread. */
  if (!stack_is_kernel_address(frame_at(p, ptr, 0), ptr))
    return add_flush(s, filetime, tid, (uint32_t)part);
  return 0;
}

static int definition(struct stack_join *s, const struct etw_event *ev, unsigned ptr,
                      int64_t filetime)
{
  size_t n = ev->user_len / ptr;
  struct stack_def *d;
  uint64_t key;
  unsigned kind;
  int64_t part;
  if (n < 2)
    return 0;
  n--;
  key = frame_at(ev->user_data, ptr, 0);
  kind = stack_is_kernel_address(frame_at(ev->user_data + ptr, ptr, n - 1), ptr) ? KIND_KERNEL
                                                                                  : KIND_USER;
  part = fragment(s, ev->user_data + ptr, ptr, n);
  if (part <= 0)
    return (int)part;
  if (s->def_count >= STACK_MAX_SAMPLES) {
    s->stack_records_dropped++;
    return 0;
  }
  if (etwcap_grow((void **)&s->defs, &s->def_cap, s->def_count, sizeof(*s->defs),
                  FIRST_BLOCK) != 0)
    return ETWCAP_E_NOMEM;
  d = &s->defs[s->def_count++];
  d->key = key;
  d->kind = kind;
  d->filetime = filetime;
  d->part = (uint32_t)part;
  return 0;
}

int stack_join_walk(struct stack_join *s, const struct etw_event *ev, int64_t filetime)
{
  unsigned ptr = ev->pointer_size == 4 ? 4 : 8;
  struct stack_sample *x;
  uint32_t pid, tid;
  uint64_t names;
  int64_t ref;
  int rc;
  if (!ev->user_data)
    return 0;
  if (ev->opcode == OPCODE_KEY_DELETE || ev->opcode == OPCODE_KEY_RUNDOWN)
    return definition(s, ev, ptr, filetime);
  if ((ev->opcode != OPCODE_STACK && ev->opcode != OPCODE_KEY_KERNEL &&
       ev->opcode != OPCODE_KEY_USER) || ev->user_len < 16)
    return 0;
  s->stack_events++;
  pid = etl_le32(ev->user_data + 8);
  tid = etl_le32(ev->user_data + 12);
  names = etl_le64(ev->user_data);
  x = target(s, ev->cpu, names, tid);
  if (!x)
    s->orphan_stack_events++;
  if (ev->opcode == OPCODE_STACK)
    return frames(s, x, names, ev->user_data + 16, ptr, (ev->user_len - 16) / ptr, pid, tid,
                  filetime);
  if (ev->user_len < 16 + ptr)
    return 0;
  ref = key_ref(s, frame_at(ev->user_data + 16, ptr, 0),
                ev->opcode == OPCODE_KEY_KERNEL ? KIND_KERNEL : KIND_USER, filetime);
  if (ref <= 0)
    return (int)ref;
  if (ev->opcode == OPCODE_KEY_KERNEL)
    return give(s, x, names, tid, pid, (uint32_t)ref, 1);
  if ((rc = give(s, x, names, tid, pid, (uint32_t)ref, 0)) != 0)
    return rc;
  return add_flush(s, filetime, tid, (uint32_t)ref);
}

int stack_join_ext(struct stack_join *s, const struct etw_event *ev, int64_t filetime,
                      int is_sample)
{
  struct stack_sample *x = is_sample && s->sample_count ? &s->samples[s->sample_count - 1]
                                                               : NULL;
  int user_stack_event = !x && !ev->is_kernel && (ev->has & ETW_HAS_PROVIDER) &&
                         ev->id == 18 && ev->opcode == 24 &&
                         guid_equal(&ev->provider, &event_tracing_guid);
  unsigned i;
  if (!x && !user_stack_event)
    return 0;
  for (i = 0; i < ev->ext_count; i++) {
    const struct etw_ext_item *e = &ev->ext[i];
    unsigned ptr = e->type == ETW_EXT_STACK_TRACE64 ? 8 : 4;
    if ((e->type != ETW_EXT_STACK_TRACE32 && e->type != ETW_EXT_STACK_TRACE64) || e->size < 8)
      continue;
    if (x && x->tid != ev->tid)
      return 0;
    return frames(s, x, ev->timestamp, e->data + 8, ptr, (e->size - 8u) / ptr, ev->pid,
                  ev->tid, filetime);
  }
  return 0;
}

static int def_order(uint64_t key, uint32_t kind, int64_t filetime,
                     const struct stack_def *d)
{
  if (key != d->key)
    return key < d->key ? -1 : 1;
  if (kind != d->kind)
    return kind < d->kind ? -1 : 1;
  return filetime < d->filetime ? -1 : filetime > d->filetime;
}

static int by_key_then_time(const void *a, const void *b)
{
  const struct stack_def *x = a;
  return def_order(x->key, x->kind, x->filetime, b);
}

/* The first of the n sorted definitions from `from` on that is not before
 * (key, kind, filetime).  A key may be defined again and again (each time
 * it leaves the cache, and once more in each rundown): it gallops from the
 * start of the key's run, then halves. */
static size_t first_not_before(const struct stack_def *d, size_t from, size_t n,
                               uint64_t key, uint32_t kind, int64_t filetime)
{
  size_t lo = from, hi = from, step = 1;
  /* Every definition in [from, lo) is before; d[hi] is the next to try. */
  while (hi < n && def_order(key, kind, filetime, &d[hi]) > 0) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > n)
    hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (def_order(key, kind, filetime, &d[mid]) > 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Each reference takes the first definition of its key at or after its
 * time (TraceLog, in time order: the next definition resolves every use
 * waiting for it).  The definitions are sorted by key and time, and a map
 * gives where each key's run starts (keys it cannot hold, out of room or
 * memory, stay unresolved). */
static void resolve_refs(struct stack_join *s)
{
  struct stack_keymap first;
  size_t i;
  if (!s->ref_count)
    return;
  if (s->def_count)
    qsort(s->defs, s->def_count, sizeof(*s->defs), by_key_then_time);
  stack_keymap_init(&first, 2 * (size_t)STACK_MAX_SAMPLES);
  for (i = 0; i < s->def_count; i++)
    if ((i == 0 || s->defs[i].key != s->defs[i - 1].key ||
         s->defs[i].kind != s->defs[i - 1].kind) &&
        stack_keymap_put(&first, s->defs[i].key, s->defs[i].kind, (uint32_t)i + 1) != 0)
      break; /* the map is full: later keys stay unresolved */
  for (i = 0; i < s->ref_count; i++) {
    struct stack_ref *r = &s->refs[i];
    uint32_t at = stack_keymap_get(&first, r->key, r->kind);
    size_t j = at ? first_not_before(s->defs, at - 1, s->def_count, r->key, r->kind,
                                     r->filetime)
                  : s->def_count;
    r->part = j < s->def_count && s->defs[j].key == r->key && s->defs[j].kind == r->kind
                  ? s->defs[j].part
                  : 0;
  }
  stack_keymap_release(&first);
}

#define LATE_FILTER_BITS (1u << 20)

static size_t late_bit(int64_t filetime)
{
  return (size_t)(((uint64_t)filetime * 0x9e3779b97f4a7c15ull) >> 44) % LATE_FILTER_BITS;
}

/* The stack events not matched at once, matched to the samples they name
 * by (EventTimeStamp, thread) through a map.  Most samples are named by
 * none: a bit per hash of the times named spares them the lookup. */
static int match_lates(struct stack_join *s)
{
  struct stack_keymap by_time;
  uint8_t *named;
  size_t i;
  int rc = 0;
  if (!s->late_count)
    return 0;
  named = etwcap_calloc(LATE_FILTER_BITS / 8, 1);
  if (!named)
    return ETWCAP_E_NOMEM;
  stack_keymap_init(&by_time, 2 * (size_t)STACK_MAX_SAMPLES);
  for (i = 0; i < s->late_count; i++) {
    struct stack_late *l = &s->lates[i];
    size_t bit = late_bit(l->filetime);
    l->next = stack_keymap_get(&by_time, (uint64_t)l->filetime, l->tid);
    if (stack_keymap_put(&by_time, (uint64_t)l->filetime, l->tid, (uint32_t)i + 1) != 0)
      continue; /* the map is full: this part stays unmatched */
    named[bit / 8] |= (uint8_t)(1u << bit % 8);
  }
  for (i = 0; i < s->sample_count && !rc; i++) {
    struct stack_sample *x = &s->samples[i];
    size_t bit = late_bit(x->filetime);
    uint32_t at;
    if (!(named[bit / 8] & (1u << bit % 8)))
      continue;
    for (at = stack_keymap_get(&by_time, (uint64_t)x->filetime, x->tid); at && !rc;
         at = s->lates[at - 1].next) {
      const struct stack_late *l = &s->lates[at - 1];
      if (!l->is_kernel)
        give_user(x, l->part);
      else
        rc = give_kernel(s, x, l->part, l->pid);
    }
  }
  stack_keymap_release(&by_time);
  etwcap_free(named);
  return rc;
}

/* A kernel part still waiting when the trace ends is a stack of its own:
 * TraceLog ends it at the thread's root. */
static void finish_waits(struct stack_join *s)
{
  size_t i;
  for (i = 0; i < s->waiting_count; i++) {
    struct stack_sample *x = &s->samples[s->waiting[i]];
    if (x->flags & STACK_SAMPLE_WAITS) {
      x->flags &= ~(uint32_t)STACK_SAMPLE_WAITS;
      x->flags |= STACK_SAMPLE_NO_USER;
    }
  }
}

/* A waiting sample, and the first user part of its thread at or after
 * it that finish finds. */
struct wait_item {
  int64_t filetime;
  uint32_t tid, sample;
  int64_t part_time; /* INT64_MAX: none yet */
  uint32_t part;
};

static int by_thread_then_time(const void *a, const void *b)
{
  const struct wait_item *x = a, *y = b;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->filetime != y->filetime)
    return x->filetime < y->filetime ? -1 : 1;
  return x->sample < y->sample ? -1 : x->sample > y->sample;
}

/* Gives each waiting kernel part the first user part of its thread at or
 * after it (TraceLog's EmitStackOnExitFromKernel, in time order).  Only
 * the waits are sorted: each user part goes to the last wait of its
 * thread at or before it, and a wait's answer is the earliest of its own
 * and those of the waits after it on the thread. */
static int give_waits(struct stack_join *s)
{
  struct wait_item *w;
  size_t n = 0, i;
  for (i = 0; i < s->waiting_count; i++)
    n += (s->samples[s->waiting[i]].flags & STACK_SAMPLE_WAITS) != 0;
  if (!n)
    return 0;
  w = etwcap_calloc(n, sizeof(*w));
  if (!w)
    return ETWCAP_E_NOMEM;
  n = 0;
  for (i = 0; i < s->waiting_count; i++) {
    const struct stack_sample *x = &s->samples[s->waiting[i]];
    if (!(x->flags & STACK_SAMPLE_WAITS))
      continue;
    w[n].filetime = x->filetime;
    w[n].tid = x->tid;
    w[n].sample = s->waiting[i];
    w[n++].part_time = INT64_MAX;
  }
  qsort(w, n, sizeof(*w), by_thread_then_time);
  for (i = 0; i < s->flush_count; i++) {
    const struct stack_flush *f = &s->flushes[i];
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first wait after (tid, filetime) */
      size_t mid = lo + (hi - lo) / 2;
      if (w[mid].tid < f->tid || (w[mid].tid == f->tid && w[mid].filetime <= f->filetime))
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo > 0 && w[lo - 1].tid == f->tid && f->filetime < w[lo - 1].part_time) {
      w[lo - 1].part_time = f->filetime;
      w[lo - 1].part = f->part;
    }
  }
  for (i = n; i-- > 0;) {
    if (i + 1 < n && w[i + 1].tid == w[i].tid && w[i + 1].part_time < w[i].part_time) {
      w[i].part_time = w[i + 1].part_time;
      w[i].part = w[i + 1].part;
    }
    if (w[i].part_time != INT64_MAX)
      give_user(&s->samples[w[i].sample], w[i].part);
  }
  etwcap_free(w);
  return 0;
}

int stack_join_settle(struct stack_join *s)
{
  unsigned cpu;
  int rc = 0;
  for (cpu = 0; cpu < STACK_CPUS && !rc; cpu++)
    rc = settle(s, cpu);
  return rc;
}

int stack_join_finish(struct stack_join *s)
{
  int rc = stack_join_settle(s);
  if (rc)
    return rc;
  resolve_refs(s);
  rc = match_lates(s);
  if (!rc)
    rc = give_waits(s);
  if (!rc)
    finish_waits(s);
  return rc;
}

const struct stack_fragment *stack_join_part(const struct stack_join *s, uint32_t part)
{
  unsigned hops;
  for (hops = 0; part && hops < 4; hops++) {
    if (part & STACK_PART_FRAGMENT)
      return (part & ~STACK_PART_FRAGMENT) < s->fragment_count
                 ? &s->fragments[part & ~STACK_PART_FRAGMENT]
                 : NULL;
    part = part - 1 < s->ref_count ? s->refs[part - 1].part : 0;
  }
  return NULL;
}

int stack_join_of(const struct stack_join *s, const struct stack_sample *x,
                     const struct stack_fragment *out[2], unsigned *n_out)
{
  const struct stack_fragment *k = NULL, *u = NULL;
  *n_out = 0;
  if (x->kern) {
    k = stack_join_part(s, x->kern);
    if (!k)
      return 0;
  }
  if (x->user) {
    u = stack_join_part(s, x->user);
    if (!u)
      return 0;
  } else if (!k || !(x->flags & STACK_SAMPLE_NO_USER)) {
    return 0;
  }
  if (k)
    out[(*n_out)++] = k;
  if (u)
    out[(*n_out)++] = u;
  return 1;
}
