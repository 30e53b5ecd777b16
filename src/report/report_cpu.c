/* See report_cpu.h. */
#include "src/report/report_cpu.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdlib.h>
#include <string.h>

#define CHILD_SLOTS (1u << 23)
#define COUNTER_SLOTS (1u << 22)

struct counter {
  uint32_t slot, frame;
  uint64_t self, total;
};

/* What one build holds while it walks the samples. */
struct build {
  struct report_cpu *c;
  const struct report_kernel *k;
  uint32_t fixed_interval; /* the sampling interval of every sample, or 0: it changes */
  const struct stack_join *s;
  struct stack_frames *f;
  unsigned pointer_size;
  struct stack_keymap children; /* (slot << 32 | node, frame) -> child + 1 */
  struct stack_keymap by_frame; /* (slot, frame) -> counter + 1 */
  struct counter *counters;
  size_t counter_count, counter_cap;
  uint32_t *on_path;             /* frame -> how often it is on the path being walked */
  uint32_t *path;                /* a sample's frames, leaf first */
  size_t path_cap;
  size_t nodes;                  /* in all processes */
  /* The node a stack (slot, kernel part, user part) ended at, and the
   * times over which its frames keep their names: most samples repeat a
   * stack seen before. */
  struct stack_keymap stack_node; /* (stack_key, slot) -> memo + 1 */
  struct path_memo *memos;
  size_t memo_count, memo_cap;
  struct recent *recent; /* per process */
  int tables;            /* count frames for the top lists (sel->tables) */
};

/* A process's last counter counted and last child found: its samples
 * repeat the same frame in runs (Idle's most of all). */
struct recent {
  uint32_t counter_frame, counter; /* counter: index + 1 */
  uint32_t child_node, child_frame, child; /* child: index + 1 */
  /* The last sample without a stack: its address, the node and counter
   * it went to, and the times over which its frame's name holds. */
  uint64_t bare_ip;
  int64_t bare_lo, bare_hi;
  uint32_t bare_node, bare_counter; /* bare_counter: index + 1, or 0 */
  int bare_set;
  uint64_t memo_key; /* the last stack looked for, and its memo + 1 (or 0) */
  uint32_t memo;
  /* The last path walked, root first, and its nodes (walk_len of them). */
  uint32_t *walk_frames, *walk_nodes;
  size_t walk_len, walk_cap;
};

struct path_memo {
  int64_t lo, hi;
  uint32_t node;
};

/* A name matches with or without its ".exe", in any case. */
static int selected(const struct report_process *p, const struct report_cpu_select *sel)
{
  size_t n;
  if (sel->pid_given)
    return p->pid == sel->pid;
  if (!sel->name)
    return 1;
  n = strlen(sel->name);
  return str_caseeq(p->name, sel->name) ||
         (str_ncaseeq(p->name, sel->name, n) && str_caseeq(p->name + n, ".exe"));
}

struct candidate {
  uint32_t process;
  uint64_t samples;
};

static int by_samples_desc(const void *a, const void *b)
{
  const struct candidate *x = a, *y = b;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return x->process < y->process ? -1 : x->process > y->process;
}

/* Picks the processes: fills c->list (names and pids) and slot_of
 * (process index -> list index + 1). */
static int choose(struct report_cpu *c, const struct report_kernel *k, const uint32_t *charged,
                  const struct stack_join *s, const struct report_cpu_select *sel,
                  uint32_t *slot_of)
{
  uint64_t *count = etwcap_calloc(k->process_count + 1, sizeof(*count));
  struct candidate *cand = etwcap_calloc(k->process_count + 1, sizeof(*cand));
  size_t i, n = 0, want;
  int rc = 0;
  if (!count || !cand) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  for (i = 0; i < s->sample_count; i++)
    if (!(s->samples[i].flags & STACK_SAMPLE_CSWITCH))
      count[charged[i]]++;
  count[k->idle_process] += s->idle_run_samples;
  for (i = 0; i < k->process_count; i++)
    if (count[i + 1] && selected(&k->processes[i], sel)) {
      cand[n].process = (uint32_t)i;
      cand[n++].samples = count[i + 1];
    }
  qsort(cand, n, sizeof(*cand), by_samples_desc);
  want = sel->all || sel->pid_given || sel->name ? n : n < sel->busiest ? n : sel->busiest;
  if (want) {
    c->list = etwcap_calloc(want, sizeof(*c->list));
    if (!c->list) {
      rc = ETWCAP_E_NOMEM;
      goto cleanup;
    }
  }
  for (i = 0; i < want; i++) {
    const struct report_process *p = &k->processes[cand[i].process];
    c->list[i].pid = p->pid;
    memcpy(c->list[i].name, p->name, sizeof(c->list[i].name));
    slot_of[cand[i].process] = (uint32_t)i + 1;
  }
  c->count = want;
cleanup:
  etwcap_free(count);
  etwcap_free(cand);
  return rc;
}

static int count_frame(struct build *b, uint32_t slot, uint32_t frame, uint64_t self,
                       uint64_t total)
{
  struct recent *r = &b->recent[slot];
  uint32_t at;
  struct counter *x;
  if (!b->tables)
    return 0;
  at = r->counter && r->counter_frame == frame ? r->counter
                                               : stack_keymap_get(&b->by_frame, slot, frame);
  if (!at) {
    if (etwcap_grow((void **)&b->counters, &b->counter_cap, b->counter_count,
                    sizeof(*b->counters), 4096) != 0)
      return ETWCAP_E_NOMEM;
    if (stack_keymap_put(&b->by_frame, slot, frame, (uint32_t)b->counter_count + 1) != 0)
      return 0; /* more distinct frames than the map holds: left uncounted */
    x = &b->counters[b->counter_count++];
    memset(x, 0, sizeof(*x));
    x->slot = slot;
    x->frame = frame;
    at = (uint32_t)b->counter_count;
  } else {
    x = &b->counters[at - 1];
  }
  x->self += self;
  x->total += total;
  r->counter_frame = frame;
  r->counter = at;
  return 0;
}

/* The child of node for frame, made on first use: its index, or the node
 * itself when the tree is full (the path is cut there). */
static int64_t child(struct build *b, struct report_cpu_process *p, uint32_t slot, uint32_t node,
                     uint32_t frame)
{
  uint64_t key = (uint64_t)slot << 32 | node;
  uint32_t at;
  struct report_cpu_node *x;
  struct recent *r = &b->recent[slot];
  if (r->child && r->child_node == node && r->child_frame == frame)
    return r->child - 1;
  at = stack_keymap_get(&b->children, key, frame);
  if (at) {
    r->child_node = node;
    r->child_frame = frame;
    r->child = at;
    return at - 1;
  }
  if (b->nodes >= REPORT_MAX_CPU_NODES)
    return -1;
  if (etwcap_grow((void **)&p->nodes, &p->node_cap, p->node_count, sizeof(*p->nodes), 1024) != 0)
    return ETWCAP_E_NOMEM;
  if (stack_keymap_put(&b->children, key, frame, (uint32_t)p->node_count + 1) != 0)
    return -1;
  x = &p->nodes[p->node_count];
  x->parent = node;
  x->frame = frame;
  x->weight = x->time = 0;
  b->nodes++;
  return (int64_t)p->node_count++;
}

/* Names the frames of the sample's stack parts, leaf first, into b->path,
 * narrowing [*lo, *hi) to when those names hold: how many, or
 * ETWCAP_E_NOMEM as a negative value. */
static int64_t name_stack(struct build *b, uint32_t pid, const struct stack_sample *x,
                          const struct stack_fragment *const *part, unsigned parts,
                          int64_t *lo, int64_t *hi)
{
  size_t n = 0, j;
  unsigned i;
  for (i = 0; i < parts; i++) {
    const uint64_t *a = b->s->addresses + part[i]->first;
    if (n + part[i]->count > b->path_cap) {
      size_t cap = n + part[i]->count;
      uint32_t *grown = etwcap_reallocarray(b->path, cap, sizeof(*grown));
      if (!grown)
        return ETWCAP_E_NOMEM;
      b->path = grown;
      b->path_cap = cap;
    }
    for (j = 0; j < part[i]->count; j++)
      b->path[n++] = stack_frames_lookup_window(b->f, pid, a[j], x->filetime, b->pointer_size,
                                                 lo, hi);
  }
  return (int64_t)n;
}

/* The node the n frames of b->path (leaf first) lead to from the root,
 * made as needed; cut short when the tree is full. */
static int64_t walk(struct build *b, struct report_cpu_process *p, uint32_t slot, size_t n)
{
  struct recent *r = &b->recent[slot];
  uint32_t node = 0;
  size_t j, depth = 0;
  /* The process's last walk, root first: a thread's stacks share their
   * first frames, and those nodes need no lookup. */
  if (n > r->walk_cap) {
    uint32_t *frames = etwcap_reallocarray(r->walk_frames, n, sizeof(*frames));
    uint32_t *nodes = frames ? etwcap_reallocarray(r->walk_nodes, n, sizeof(*nodes)) : NULL;
    if (frames)
      r->walk_frames = frames;
    if (!nodes)
      return ETWCAP_E_NOMEM;
    r->walk_nodes = nodes;
    r->walk_cap = n;
  }
  for (j = n; j-- > 0; depth++) {
    int64_t next;
    if (depth < r->walk_len && r->walk_frames[depth] == b->path[j]) {
      node = r->walk_nodes[depth];
      continue;
    }
    next = child(b, p, slot, node, b->path[j]);
    if (next < -1)
      return next;
    if (next < 0) {
      b->c->paths_cut++;
      break;
    }
    node = (uint32_t)next;
    r->walk_frames[depth] = b->path[j];
    r->walk_nodes[depth] = node;
    r->walk_len = depth + 1;
  }
  if (depth < r->walk_len)
    r->walk_len = depth;
  return node;
}

/* Whether frame is at node or above it. */
static int on_path(const struct report_cpu_process *p, uint32_t node, uint32_t frame)
{
  for (; node; node = p->nodes[node].parent)
    if (p->nodes[node].frame == frame)
      return 1;
  return 0;
}

/* What a stack's frames are: its fragments (index + 1), the first one in
 * the upper half when there are two.  Not the sample's parts: with stack
 * caching, each sample's parts are references of its own. */
static uint64_t stack_key(const struct stack_join *s,
                          const struct stack_fragment *const *part, unsigned parts)
{
  uint64_t key = 0;
  unsigned i;
  for (i = 0; i < parts; i++)
    key = key << 32 | (uint32_t)(part[i] - s->fragments + 1);
  return key;
}

/* The node of p's tree (slot: its key space) that the stack of x leads
 * to, its frames named at x's time; remembered per stack for as long as
 * its names hold. */
static int64_t stack_node(struct build *b, struct report_cpu_process *p, uint32_t pid,
                          uint32_t slot, const struct stack_sample *x,
                          const struct stack_fragment *const *part, unsigned parts)
{
  uint64_t key = stack_key(b->s, part, parts);
  struct recent *r = &b->recent[slot];
  uint32_t at = r->memo && r->memo_key == key ? r->memo
                                               : stack_keymap_get(&b->stack_node, key, slot);
  struct path_memo *m = at ? &b->memos[at - 1] : NULL;
  int64_t node, n, lo = INT64_MIN, hi = INT64_MAX;
  r->memo_key = key;
  r->memo = at;
  if (m && m->lo <= x->filetime && x->filetime < m->hi)
    return m->node;
  n = name_stack(b, pid, x, part, parts, &lo, &hi);
  if (n < 0)
    return n;
  if ((node = walk(b, p, slot, (size_t)n)) < 0)
    return node;
  if (!m) {
    if (etwcap_grow((void **)&b->memos, &b->memo_cap, b->memo_count, sizeof(*b->memos), 1024) !=
        0)
      return ETWCAP_E_NOMEM;
    if (stack_keymap_put(&b->stack_node, key, slot, (uint32_t)b->memo_count + 1) == 0) {
      m = &b->memos[b->memo_count++];
      r->memo = (uint32_t)b->memo_count;
    }
  }
  if (m) {
    m->lo = lo;
    m->hi = hi;
    m->node = (uint32_t)node;
  }
  return node;
}

/* Counts `count` samples from filetime on at node: their weight and their
 * time, at the sampling interval then in effect. */
static void add_time(struct build *b, struct report_cpu_process *p, uint32_t node,
                     int64_t filetime, uint64_t count)
{
  uint64_t time =
    count * (b->fixed_interval ? b->fixed_interval : report_kernel_interval(b->k, filetime));
  p->nodes[node].weight += count;
  p->nodes[node].time += time;
  p->cpu_time += time;
}

/* A sample without a stack at the address of the process's last one, while
 * its name holds (Idle's samples, most of all): 1 when counted. */
static int same_bare(struct build *b, struct report_cpu_process *p, struct recent *r,
                     const struct stack_sample *x)
{
  if (!r->bare_set || x->ip != r->bare_ip || x->filetime < r->bare_lo ||
      x->filetime >= r->bare_hi || x->kern || x->user)
    return 0;
  p->samples++;
  add_time(b, p, r->bare_node, x->filetime, 1);
  if (r->bare_counter)
    b->counters[r->bare_counter - 1].self++; /* its total comes from the tree */
  return 1;
}

static int one_sample(struct build *b, uint32_t slot, const struct stack_sample *x)
{
  struct report_cpu_process *p = &b->c->list[slot];
  struct recent *r = &b->recent[slot];
  const struct stack_fragment *part[2];
  unsigned parts;
  int64_t node, lo = INT64_MIN, hi = INT64_MAX;
  uint32_t leaf;
  int bare, rc;
  if (same_bare(b, p, r, x))
    return 0;
  leaf = stack_frames_lookup_window(b->f, p->pid, x->ip, x->filetime, b->pointer_size, &lo,
                                     &hi);
  p->samples++;
  bare = !stack_join_of(b->s, x, part, &parts);
  if (!bare) {
    p->with_stack++;
    node = stack_node(b, p, p->pid, slot, x, part, parts);
  } else {
    b->path[0] = leaf;
    node = walk(b, p, slot, 1);
  }
  if (node < 0)
    return (int)node;
  add_time(b, p, (uint32_t)node, x->filetime, 1);
  /* The leaf counts in total too, also when the stack walk starts in the
   * caller of the interrupted code (the path's totals are counted from the
   * tree at the end). */
  rc = count_frame(b, slot, leaf, 1,
                   p->nodes[node].frame != leaf && !on_path(p, (uint32_t)node, leaf));
  if (!rc && bare && p->nodes[node].frame == leaf &&
      (!b->tables || (r->counter && r->counter_frame == leaf))) {
    r->bare_set = 1;
    r->bare_ip = x->ip;
    r->bare_lo = lo;
    r->bare_hi = hi;
    r->bare_node = (uint32_t)node;
    r->bare_counter = b->tables ? r->counter : 0;
  }
  return rc;
}

/* Idle's runs of samples without a stack, each named at its first time. */
static int idle_runs(struct build *b, uint32_t slot)
{
  struct report_cpu_process *p = &b->c->list[slot];
  size_t i;
  int rc = 0;
  for (i = 0; i < b->s->run_count && !rc; i++) {
    const struct stack_idle_run *run = &b->s->runs[i];
    int64_t node;
    b->path[0] = stack_frames_lookup(b->f, p->pid, run->ip, run->first, b->pointer_size);
    if ((node = walk(b, p, slot, 1)) < 0)
      return (int)node;
    p->samples += run->count;
    add_time(b, p, (uint32_t)node, run->first, run->count);
    rc = count_frame(b, slot, b->path[0], run->count, 0);
  }
  return rc;
}

/* Adds each frame's inclusive samples from the tree: a node's weight and
 * those of the nodes below it, counted for its frame where no node above
 * has the same frame (recursion counts once). */
static int totals(struct build *b, uint32_t slot)
{
  struct report_cpu_process *p = &b->c->list[slot];
  size_t n = p->node_count, i, depth = 0;
  uint64_t *incl = etwcap_calloc(n, sizeof(*incl));
  uint32_t *first = etwcap_calloc(n, sizeof(*first)), *next = etwcap_calloc(n, sizeof(*next));
  uint32_t *stack = etwcap_calloc(2 * n + 1, sizeof(*stack));
  int rc = 0;
  if (!incl || !first || !next || !stack) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  /* A node comes after its parent: one backward sweep sums the weights. */
  for (i = n; i-- > 1;) {
    incl[i] += p->nodes[i].weight;
    incl[p->nodes[i].parent] += incl[i];
    next[i] = first[p->nodes[i].parent];
    first[p->nodes[i].parent] = (uint32_t)i;
  }
  /* Depth first; an entry with the top bit set leaves its node. */
  for (i = first[0]; i; i = next[i])
    stack[depth++] = (uint32_t)i;
  while (depth && !rc) {
    uint32_t at = stack[--depth], frame;
    if (at & 0x80000000u) {
      b->on_path[p->nodes[at & 0x7FFFFFFFu].frame]--;
      continue;
    }
    frame = p->nodes[at].frame;
    if (!b->on_path[frame]++)
      rc = count_frame(b, slot, frame, 0, incl[at]);
    stack[depth++] = at | 0x80000000u;
    for (i = first[at]; i; i = next[i])
      stack[depth++] = (uint32_t)i;
  }
cleanup:
  etwcap_free(incl);
  etwcap_free(first);
  etwcap_free(next);
  etwcap_free(stack);
  return rc;
}

/* A thread's switch-out (what = entry index | OUT_BIT) or switch-in. */
struct switch_item {
  int64_t filetime;
  uint32_t tid, what;
};
#define OUT_BIT 0x80000000u

static int by_thread_then_time(const void *a, const void *b)
{
  const struct switch_item *x = a, *y = b;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->filetime != y->filetime)
    return x->filetime < y->filetime ? -1 : 1;
  return x->what < y->what ? -1 : x->what > y->what;
}

/* Adds weight at the frame `leaf` below node of thread-time tree slot. */
static int add_leaf(struct build *b, uint32_t slot, uint32_t node, uint32_t leaf,
                    uint64_t weight)
{
  struct report_cpu_process *t = &b->c->thread_time[slot];
  int64_t at = child(b, t, slot + (uint32_t)b->c->count, node, leaf);
  if (at < -1)
    return (int)at;
  t->nodes[at < 0 ? node : (uint32_t)at].weight += weight;
  return 0;
}

/* The thread-time trees: the CPU trees with each sample as its sampling
 * interval of CPU_TIME, then each blocked span of a thread
 * (from its switch-out to its switch-in, paired thread by thread in time
 * order) as BLOCKED_TIME on the switch-in's stack. */
static int thread_time(struct build *b, const uint32_t *charged, const uint32_t *slot_of)
{
  struct report_cpu *c = b->c;
  const struct stack_join *s = b->s;
  struct switch_item *items = NULL;
  uint32_t *copy = NULL, cpu_frame, blocked_frame;
  size_t i, j, n = 0;
  int64_t f1 = stack_frames_intern(b->f, "CPU_TIME", 8), f2;
  int rc = 0;
  f2 = stack_frames_intern(b->f, "BLOCKED_TIME", 12);
  c->thread_time = etwcap_calloc(c->count, sizeof(*c->thread_time));
  c->blocked = etwcap_calloc(c->count, sizeof(*c->blocked));
  items = etwcap_calloc(2 * s->cswitches + 1, sizeof(*items));
  if (f1 < 0 || f2 < 0 || !c->thread_time || !c->blocked || !items)
    goto nomem;
  cpu_frame = (uint32_t)f1;
  blocked_frame = (uint32_t)f2;
  for (i = 0; i < c->count; i++) {
    struct report_cpu_process *p = &c->list[i], *t = &c->thread_time[i];
    t->pid = p->pid;
    memcpy(t->name, p->name, sizeof(t->name));
    t->node_cap = p->node_count;
    t->nodes = etwcap_calloc(t->node_cap, sizeof(*t->nodes));
    copy = etwcap_reallocarray(copy, p->node_count, sizeof(*copy));
    if (!t->nodes || !copy)
      goto nomem;
    t->node_count = 1;
    copy[0] = 0;
    for (j = 1; j < p->node_count; j++) {
      int64_t at = child(b, t, (uint32_t)(i + c->count), copy[p->nodes[j].parent],
                         p->nodes[j].frame);
      if (at < -1)
        goto nomem;
      copy[j] = at < 0 ? copy[p->nodes[j].parent] : (uint32_t)at;
    }
    for (j = 0; j < p->node_count && !rc; j++)
      if (p->nodes[j].time)
        rc = add_leaf(b, (uint32_t)i, copy[j], cpu_frame, p->nodes[j].time);
  }
  for (i = 0; i < s->sample_count; i++) {
    const struct stack_sample *x = &s->samples[i];
    if (!(x->flags & STACK_SAMPLE_CSWITCH))
      continue;
    if (x->tid && n < 2 * s->cswitches) {
      items[n].filetime = x->filetime;
      items[n].tid = x->tid;
      items[n++].what = (uint32_t)i;
    }
    if (x->ip && n < 2 * s->cswitches) {
      items[n].filetime = x->filetime;
      items[n].tid = (uint32_t)x->ip;
      items[n++].what = (uint32_t)i | OUT_BIT;
    }
  }
  qsort(items, n, sizeof(*items), by_thread_then_time);
  for (i = 0; i < n && !rc; i++) {
    const struct stack_sample *x = &s->samples[items[i].what & ~OUT_BIT];
    const struct stack_fragment *part[2];
    unsigned parts;
    uint32_t slot, entry = items[i].what & ~OUT_BIT;
    int64_t node = 0;
    /* A switch-in that follows a switch-out of the same thread. */
    if ((items[i].what & OUT_BIT) || i == 0 || !(items[i - 1].what & OUT_BIT) ||
        items[i - 1].tid != items[i].tid)
      continue;
    slot = charged[entry] ? slot_of[charged[entry] - 1] : 0;
    if (!slot--)
      continue;
    if (stack_join_of(s, x, part, &parts))
      node = stack_node(b, &c->thread_time[slot], c->list[slot].pid,
                        slot + (uint32_t)c->count, x, part, parts);
    if (node < 0) {
      rc = (int)node;
      break;
    }
    c->blocked[slot] += (uint64_t)(x->filetime - items[i - 1].filetime);
    rc = add_leaf(b, slot, (uint32_t)node, blocked_frame,
                  (uint64_t)(x->filetime - items[i - 1].filetime));
  }
  etwcap_free(items);
  etwcap_free(copy);
  return rc;
nomem:
  etwcap_free(items);
  etwcap_free(copy);
  return ETWCAP_E_NOMEM;
}

static int by_self_desc(const void *a, const void *b)
{
  const struct counter *x = a, *y = b;
  if (x->slot != y->slot)
    return x->slot < y->slot ? -1 : 1;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int by_total_desc(const void *a, const void *b)
{
  const struct counter *x = a, *y = b;
  if (x->slot != y->slot)
    return x->slot < y->slot ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* Sorts the counters by self (by_total: by total) and keeps each
 * process's first REPORT_CPU_TOP in top (top_total). */
static int keep_first(struct build *b, int by_total)
{
  size_t i, run;
  if (b->counter_count)
    qsort(b->counters, b->counter_count, sizeof(*b->counters),
          by_total ? by_total_desc : by_self_desc);
  for (i = 0; i < b->counter_count; i = run) {
    struct report_cpu_process *p = &b->c->list[b->counters[i].slot];
    struct report_cpu_frame *top;
    size_t k, n;
    for (run = i; run < b->counter_count && b->counters[run].slot == b->counters[i].slot; run++)
      ;
    n = run - i < REPORT_CPU_TOP ? run - i : REPORT_CPU_TOP;
    top = etwcap_calloc(n, sizeof(*top));
    if (!top)
      return ETWCAP_E_NOMEM;
    for (k = 0; k < n; k++) {
      top[k].frame = b->counters[i + k].frame;
      top[k].self = b->counters[i + k].self;
      top[k].total = b->counters[i + k].total;
    }
    if (by_total) {
      p->top_total = top;
      p->top_total_count = n;
    } else {
      p->top = top;
      p->top_count = n;
    }
  }
  return 0;
}

static int keep_top(struct build *b)
{
  int rc = keep_first(b, 0);
  return rc ? rc : keep_first(b, 1);
}

int report_cpu_build(struct report_cpu *c, const struct report_kernel *k,
                     const struct stack_join *s, struct stack_frames *f,
                     unsigned pointer_size, const struct report_cpu_select *sel)
{
  struct build b;
  uint32_t *process_of = NULL, *slot_of = NULL;
  const uint32_t *charged;
  size_t i;
  int rc = 0;
  memset(c, 0, sizeof(*c));
  memset(&b, 0, sizeof(b));
  b.c = c;
  b.k = k;
  b.fixed_interval = report_kernel_interval_fixed(k) ? report_kernel_interval(k, 0) : 0;
  b.s = s;
  b.f = f;
  b.pointer_size = pointer_size == 4 ? 4 : 8;
  b.tables = sel->tables;
  stack_keymap_init(&b.children, CHILD_SLOTS);
  stack_keymap_init(&b.by_frame, COUNTER_SLOTS);
  stack_keymap_init(&b.stack_node, CHILD_SLOTS);
  /* The kernel's charges follow the samples one for one, unless a cap
   * parted them: then each sample is charged again. */
  if (k->charge_count != s->sample_count)
    process_of = etwcap_calloc(s->sample_count + 1, sizeof(*process_of));
  slot_of = etwcap_calloc(k->process_count + 1, sizeof(*slot_of));
  b.on_path = etwcap_calloc(f->frame_count + 1, sizeof(*b.on_path));
  b.path = etwcap_calloc(64, sizeof(*b.path));
  b.path_cap = 64;
  if ((!process_of && k->charge_count != s->sample_count) || !slot_of || !b.on_path || !b.path) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  for (i = 0; process_of && i < s->sample_count; i++)
    process_of[i] = report_kernel_charged(k, s->samples[i].tid, s->samples[i].filetime);
  charged = process_of ? process_of : k->charges;
  rc = choose(c, k, charged, s, sel, slot_of);
  if (!rc && !(b.recent = etwcap_calloc(2 * c->count + 1, sizeof(*b.recent))))
    rc = ETWCAP_E_NOMEM;
  for (i = 0; i < c->count && !rc; i++) {
    c->list[i].nodes = etwcap_calloc(1024, sizeof(*c->list[i].nodes));
    if (!c->list[i].nodes)
      rc = ETWCAP_E_NOMEM;
    c->list[i].node_cap = 1024;
    c->list[i].node_count = 1; /* the process */
  }
  for (i = 0; i < s->sample_count && !rc; i++) {
    uint32_t slot = charged[i] ? slot_of[charged[i] - 1] : 0;
    if (slot && !(s->samples[i].flags & STACK_SAMPLE_CSWITCH))
      rc = one_sample(&b, slot - 1, &s->samples[i]);
  }
  if (!rc && k->idle_process && slot_of[k->idle_process - 1])
    rc = idle_runs(&b, slot_of[k->idle_process - 1] - 1);
  if (!rc && sel->thread_time && s->cswitches)
    rc = thread_time(&b, charged, slot_of);
  for (i = 0; b.tables && i < c->count && !rc; i++)
    rc = totals(&b, (uint32_t)i);
  if (!rc && b.tables)
    rc = keep_top(&b);
  for (i = 0; i < c->count; i++) {
    c->samples += c->list[i].samples;
    c->with_stack += c->list[i].with_stack;
  }
cleanup:
  stack_keymap_release(&b.children);
  stack_keymap_release(&b.by_frame);
  stack_keymap_release(&b.stack_node);
  for (i = 0; b.recent && i < 2 * c->count + 1; i++) {
    etwcap_free(b.recent[i].walk_frames);
    etwcap_free(b.recent[i].walk_nodes);
  }
  etwcap_free(b.recent);
  etwcap_free(b.memos);
  etwcap_free(b.counters);
  etwcap_free(b.on_path);
  etwcap_free(b.path);
  etwcap_free(process_of);
  etwcap_free(slot_of);
  return rc;
}

void report_cpu_release(struct report_cpu *c)
{
  size_t i;
  for (i = 0; i < c->count; i++) {
    etwcap_free(c->list[i].top);
    etwcap_free(c->list[i].top_total);
    if (c->thread_time)
      etwcap_free(c->thread_time[i].nodes);
    etwcap_free(c->list[i].nodes);
  }
  etwcap_free(c->list);
  etwcap_free(c->thread_time);
  etwcap_free(c->blocked);
  memset(c, 0, sizeof(*c));
}

size_t report_cpu_path(const struct report_cpu_process *p, uint32_t node, uint32_t *out,
                       size_t cap)
{
  size_t depth = 0, i;
  uint32_t at;
  for (at = node; at && at < p->node_count; at = p->nodes[at].parent)
    depth++;
  for (; depth > cap; depth--)
    node = p->nodes[node].parent;
  for (i = depth, at = node; i > 0; at = p->nodes[at].parent)
    out[--i] = p->nodes[at].frame;
  return depth;
}
