/* See report_exceptions.h.  The payload layout is trigger_builtin's CLR
 * Exception/Start row (ClrEtwAll.man ExceptionThrown_V1). */
#include "report_exceptions.h"

#include "alloc.h"
#include "error.h"
#include "builtin_events.h"
#include "payload_layout.h"

#include <stdlib.h>
#include <string.h>

#define KIND_SLOTS 8192 /* REPORT_MAX_EXCEPTION_KINDS fits in three quarters */

int report_exceptions_init(struct report_exceptions *x)
{
  memset(x, 0, sizeof(*x));
  return report_idmap_init(&x->by_hash, KIND_SLOTS);
}

void report_exceptions_release(struct report_exceptions *x)
{
  etwcap_free(x->items);
  report_idmap_release(&x->by_hash);
  memset(x, 0, sizeof(*x));
}

static uint32_t kind_hash(const char *type, uint32_t pid)
{
  uint32_t h = 2166136261u ^ pid; /* FNV-1a over the type, seeded with the pid */
  for (; *type; type++)
    h = (h ^ (uint8_t)*type) * 16777619u;
  return h;
}

static struct report_exception *find(struct report_exceptions *x, const char *type, uint32_t pid,
                                     uint32_t hash)
{
  size_t cursor = 0;
  uint32_t index;
  while (report_idmap_next(&x->by_hash, hash, &cursor, &index))
    if (x->items[index].pid == pid && !strcmp(x->items[index].type, type))
      return &x->items[index];
  return NULL;
}

int report_exceptions_event(struct report_exceptions *x, const struct etw_event *ev,
                            int64_t filetime)
{
  const struct bi_event *row;
  struct report_exception *e;
  struct tv_value v;
  uint32_t hash;
  char type[REPORT_EXCEPTION_TYPE_MAX];
  if (ev->is_kernel || !(ev->has & ETW_HAS_PROVIDER) || ev->id != CLR_ID_EXCEPTION_START ||
      !guid_equal(&ev->provider, &bi_guid_clr))
    return 0;
  row = bi_lookup(BI_CLR, ev);
  if (!row)
    return 0;
  x->total++;
  /* Version 0 has no payload: the type is unknown. */
  if (tf_find(&row->layout, ev->user_data, ev->user_len, ev->pointer_size, "ExceptionType",
              &v) != 1 || v.type != TV_TEXT)
    strcpy(v.text, "(unknown type)");
  tv_copy(type, sizeof(type), v.text);
  hash = kind_hash(type, ev->pid);
  e = find(x, type, ev->pid, hash);
  if (!e) {
    if (x->count >= REPORT_MAX_EXCEPTION_KINDS) {
      x->dropped++;
      return 1;
    }
    if (etwcap_grow((void **)&x->items, &x->cap, x->count, sizeof(*x->items), 16) != 0)
      return ETWCAP_E_NOMEM;
    /* A kind the index cannot hold could not be found again. */
    if (report_idmap_add(&x->by_hash, hash, (uint32_t)x->count) != 0) {
      x->dropped++;
      return 1;
    }
    e = &x->items[x->count];
    memset(e, 0, sizeof(*e));
    memcpy(e->type, type, sizeof(type));
    e->pid = ev->pid;
    e->first_filetime = e->last_filetime = filetime;
    x->count++;
  }
  e->count++;
  if (filetime < e->first_filetime)
    e->first_filetime = filetime;
  if (filetime > e->last_filetime)
    e->last_filetime = filetime;
  return 1;
}

static int by_count(const void *a, const void *b)
{
  const struct report_exception *x = a, *y = b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp(x->type, y->type);
}

void report_exceptions_finish(struct report_exceptions *x)
{
  if (x->count)
    qsort(x->items, x->count, sizeof(*x->items), by_count);
  report_idmap_release(&x->by_hash);
}
