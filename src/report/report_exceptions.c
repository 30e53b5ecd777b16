/* See report_exceptions.h.  The payload layout is trigger_builtin's CLR
 * Exception/Start row (ClrEtwAll.man ExceptionThrown_V1). */
#include "src/report/report_exceptions.h"

#include "etw/event/builtin_events.h"
#include "etw/event/payload_layout.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

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
  size_t i;
  for (i = 0; i < x->count; i++)
    etwcap_free(x->items[i].type);
  etwcap_free(x->items);
  etwcap_free(x->scratch);
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

/* The event's ExceptionType, whole, into x->scratch: the first field of
 * ExceptionThrown_V1 (version 0 has no payload: the type is unknown).
 * The text of a payload string (up to 64 KiB) is at most 3 bytes of UTF-8
 * per UTF-16 unit.  0 or NOMEM. */
static int read_type(struct report_exceptions *x, const struct etw_event *ev,
                     const struct bi_event *row)
{
  static const char unknown[] = "(unknown type)";
  size_t room = ev->user_len / 2 * 3 + sizeof(unknown);
  struct pl_cursor c;
  if (room > x->scratch_cap) {
    char *grown = etwcap_realloc(x->scratch, room);
    if (!grown)
      return ETWCAP_E_NOMEM;
    x->scratch = grown;
    x->scratch_cap = room;
  }
  pl_init(&c, ev->user_data, ev->user_len, ev->pointer_size);
  if (tf_index(&row->layout, "ExceptionType") != 0)
    memcpy(x->scratch, unknown, sizeof(unknown));
  else
    pl_utf16z(&c, x->scratch, room);
  return 0;
}

int report_exceptions_event(struct report_exceptions *x, const struct etw_event *ev,
                            int64_t filetime)
{
  const struct bi_event *row;
  struct report_exception *e;
  uint32_t hash;
  const char *type;
  if (ev->is_kernel || !(ev->has & ETW_HAS_PROVIDER) || ev->id != CLR_ID_EXCEPTION_START ||
      !guid_equal(&ev->provider, &bi_guid_clr))
    return 0;
  row = bi_lookup(BI_CLR, ev);
  if (!row)
    return 0;
  x->total++;
  if (read_type(x, ev, row) != 0)
    return ETWCAP_E_NOMEM;
  type = x->scratch;
  hash = kind_hash(type, ev->pid);
  e = find(x, type, ev->pid, hash);
  if (!e) {
    if (x->count >= REPORT_MAX_EXCEPTION_KINDS) {
      x->dropped++;
      return 1;
    }
    if (etwcap_grow((void **)&x->items, &x->cap, x->count, sizeof(*x->items), 16) != 0)
      return ETWCAP_E_NOMEM;
    e = &x->items[x->count];
    memset(e, 0, sizeof(*e));
    if (!(e->type = etwcap_strdup(type)))
      return ETWCAP_E_NOMEM;
    /* A kind the index cannot hold could not be found again. */
    if (report_idmap_add(&x->by_hash, hash, (uint32_t)x->count) != 0) {
      etwcap_free(e->type);
      x->dropped++;
      return 1;
    }
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
