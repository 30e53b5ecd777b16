/* Event fingerprints for tests (see event_fingerprint.h). */
#include "tests/fakes/event_fingerprint.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void fingerprint_add(struct fingerprint_list *l, const struct etw_event *ev)
{
  struct event_fingerprint *f;
  if (l->count == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4096;
    l->items = realloc(l->items, l->cap * sizeof(*l->items));
    if (!l->items)
      abort();
  }
  f = &l->items[l->count];
  memset(f, 0, sizeof(*f)); /* padding too: records are compared with memcmp */
  f->order = (uint32_t)l->count++;
  f->cpu = ev->cpu;
  f->timestamp = ev->timestamp;
  f->header_type = ev->header_type;
  f->provider = ev->provider;
  f->hook_id = ev->hook_id;
  f->id = ev->id;
  f->task = ev->task;
  f->flags = ev->flags;
  f->version = ev->version;
  f->opcode = ev->opcode;
  f->level = ev->level;
  f->keyword = ev->keyword;
  f->pid = ev->pid;
  f->tid = ev->tid;
  f->user_len = ev->user_len;
  f->crc = (uint32_t)crc32(0, ev->user_data, ev->user_len);
  f->ext_count = ev->ext_count;
}

int fingerprint_compare(const struct event_fingerprint *a, const struct event_fingerprint *b)
{
  struct event_fingerprint x = *a, y = *b;
  x.order = y.order = 0;
  return memcmp(&x, &y, sizeof(x));
}

static int by_everything(const void *a, const void *b)
{
  return fingerprint_compare(a, b);
}

static int by_cpu_then_order(const void *a, const void *b)
{
  const struct event_fingerprint *x = a, *y = b;
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

void fingerprint_sort_all(struct fingerprint_list *l)
{
  qsort(l->items, l->count, sizeof(*l->items), by_everything);
}

void fingerprint_sort_by_cpu(struct fingerprint_list *l)
{
  qsort(l->items, l->count, sizeof(*l->items), by_cpu_then_order);
}

void fingerprint_release(struct fingerprint_list *l)
{
  free(l->items);
  memset(l, 0, sizeof(*l));
}
