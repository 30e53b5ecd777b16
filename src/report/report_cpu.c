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
  const struct report_stacks *s;
  const struct report_frames *f;
  unsigned pointer_size;
  struct report_keymap children; /* (slot << 32 | node, frame) -> child + 1 */
  struct report_keymap by_frame; /* (slot, frame) -> counter + 1 */
  struct counter *counters;
  size_t counter_count, counter_cap;
  uint32_t *stamp;               /* frame -> the serial of the last sample that counted it */
  uint32_t *path;                /* a sample's frames, leaf first */
  size_t path_cap;
  size_t nodes;                  /* in all processes */
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
static int choose(struct report_cpu *c, const struct report_kernel *k, const uint32_t *process_of,
                  size_t n_samples, const struct report_cpu_select *sel, uint32_t *slot_of)
{
  uint64_t *count = etwcap_calloc(k->process_count + 1, sizeof(*count));
  struct candidate *cand = etwcap_calloc(k->process_count + 1, sizeof(*cand));
  size_t i, n = 0, want;
  int rc = 0;
  if (!count || !cand) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  for (i = 0; i < n_samples; i++)
    count[process_of[i]]++;
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

static int count_frame(struct build *b, uint32_t slot, uint32_t frame, int self, int total)
{
  uint32_t at = report_keymap_get(&b->by_frame, slot, frame);
  struct counter *x;
  if (!at) {
    if (etwcap_grow((void **)&b->counters, &b->counter_cap, b->counter_count,
                    sizeof(*b->counters), 4096) != 0)
      return ETWCAP_E_NOMEM;
    if (report_keymap_put(&b->by_frame, slot, frame, (uint32_t)b->counter_count + 1) != 0)
      return 0; /* more distinct frames than the map holds: left uncounted */
    x = &b->counters[b->counter_count++];
    memset(x, 0, sizeof(*x));
    x->slot = slot;
    x->frame = frame;
  } else {
    x = &b->counters[at - 1];
  }
  x->self += (uint64_t)self;
  x->total += (uint64_t)total;
  return 0;
}

/* The child of node for frame, made on first use: its index, or the node
 * itself when the tree is full (the path is cut there). */
static int64_t child(struct build *b, struct report_cpu_process *p, uint32_t slot, uint32_t node,
                     uint32_t frame)
{
  uint64_t key = (uint64_t)slot << 32 | node;
  uint32_t at = report_keymap_get(&b->children, key, frame);
  struct report_cpu_node *x;
  if (at)
    return at - 1;
  if (b->nodes >= REPORT_MAX_CPU_NODES)
    return -1;
  if (etwcap_grow((void **)&p->nodes, &p->node_cap, p->node_count, sizeof(*p->nodes), 1024) != 0)
    return ETWCAP_E_NOMEM;
  if (report_keymap_put(&b->children, key, frame, (uint32_t)p->node_count + 1) != 0)
    return -1;
  x = &p->nodes[p->node_count];
  x->parent = node;
  x->frame = frame;
  x->weight = 0;
  b->nodes++;
  return (int64_t)p->node_count++;
}

static int one_sample(struct build *b, uint32_t slot, const struct report_stack_sample *x,
                      uint32_t serial)
{
  struct report_cpu_process *p = &b->c->list[slot];
  const struct report_fragment *part[2];
  unsigned parts, i;
  size_t n = 0, j;
  uint32_t node = 0, leaf;
  int rc;
  leaf = report_frames_lookup(b->f, p->pid, x->ip, x->filetime, b->pointer_size);
  p->samples++;
  if (report_stacks_of(b->s, x, part, &parts)) {
    p->with_stack++;
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
        b->path[n++] = report_frames_lookup(b->f, p->pid, a[j], x->filetime, b->pointer_size);
    }
  }
  if (n == 0) {
    if (!b->path_cap) {
      b->path = etwcap_malloc(64 * sizeof(*b->path));
      if (!b->path)
        return ETWCAP_E_NOMEM;
      b->path_cap = 64;
    }
    b->path[n++] = leaf;
  }
  for (j = n; j-- > 0;) {
    int64_t next = child(b, p, slot, node, b->path[j]);
    if (next < -1)
      return (int)next;
    if (next < 0) {
      b->c->paths_cut++;
      break;
    }
    node = (uint32_t)next;
  }
  p->nodes[node].weight++;
  /* The leaf counts in total too: a stack walk that starts in the caller
   * of the interrupted code still has the sample in its leaf frame. */
  rc = count_frame(b, slot, leaf, 1, 1);
  b->stamp[leaf] = serial;
  for (j = 0; j < n && !rc; j++)
    if (b->stamp[b->path[j]] != serial) {
      b->stamp[b->path[j]] = serial;
      rc = count_frame(b, slot, b->path[j], 0, 1);
    }
  return rc;
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
                     const struct report_stacks *s, const struct report_frames *f,
                     unsigned pointer_size, const struct report_cpu_select *sel)
{
  struct build b;
  uint32_t *process_of = NULL, *slot_of = NULL;
  size_t i;
  int rc = 0;
  memset(c, 0, sizeof(*c));
  memset(&b, 0, sizeof(b));
  b.c = c;
  b.s = s;
  b.f = f;
  b.pointer_size = pointer_size == 4 ? 4 : 8;
  report_keymap_init(&b.children, CHILD_SLOTS);
  report_keymap_init(&b.by_frame, COUNTER_SLOTS);
  process_of = etwcap_calloc(s->sample_count + 1, sizeof(*process_of));
  slot_of = etwcap_calloc(k->process_count + 1, sizeof(*slot_of));
  b.stamp = etwcap_calloc(f->frame_count + 1, sizeof(*b.stamp));
  if (!process_of || !slot_of || !b.stamp) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  for (i = 0; i < s->sample_count; i++)
    process_of[i] = report_kernel_charged(k, s->samples[i].tid, s->samples[i].filetime);
  rc = choose(c, k, process_of, s->sample_count, sel, slot_of);
  for (i = 0; i < c->count && !rc; i++) {
    c->list[i].nodes = etwcap_calloc(1024, sizeof(*c->list[i].nodes));
    if (!c->list[i].nodes)
      rc = ETWCAP_E_NOMEM;
    c->list[i].node_cap = 1024;
    c->list[i].node_count = 1; /* the process */
  }
  for (i = 0; i < s->sample_count && !rc; i++) {
    uint32_t slot = process_of[i] ? slot_of[process_of[i] - 1] : 0;
    if (slot)
      rc = one_sample(&b, slot - 1, &s->samples[i], (uint32_t)i + 1);
  }
  if (!rc)
    rc = keep_top(&b);
  for (i = 0; i < c->count; i++) {
    c->samples += c->list[i].samples;
    c->with_stack += c->list[i].with_stack;
  }
cleanup:
  report_keymap_release(&b.children);
  report_keymap_release(&b.by_frame);
  etwcap_free(b.counters);
  etwcap_free(b.stamp);
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
    etwcap_free(c->list[i].nodes);
  }
  etwcap_free(c->list);
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
