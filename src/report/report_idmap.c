/* See report_idmap.h. */
#include "src/report/report_idmap.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

#define FIRST_SLOTS 256

int report_idmap_init(struct report_idmap *m, size_t max_slots)
{
  memset(m, 0, sizeof(*m));
  m->slots = max_slots < FIRST_SLOTS ? max_slots : FIRST_SLOTS;
  m->max_slots = max_slots;
  m->slot = etwcap_calloc(m->slots, sizeof(*m->slot));
  return m->slot ? 0 : ETWCAP_E_NOMEM;
}

void report_idmap_release(struct report_idmap *m)
{
  etwcap_free(m->slot);
  memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct report_idmap *m, uint32_t key)
{
  /* Fibonacci hashing spreads the multiples of 4 Windows ids are. */
  return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15u) >> 40) & (m->slots - 1);
}

/* Doubles the slots and places every entry again. */
static int grow(struct report_idmap *m)
{
  struct report_idmap_slot *old = m->slot;
  size_t n = m->slots, i;
  m->slot = etwcap_calloc(n * 2, sizeof(*m->slot));
  if (!m->slot) {
    m->slot = old;
    return -1;
  }
  m->slots = n * 2;
  for (i = 0; i < n; i++) {
    size_t j;
    if (!old[i].used)
      continue;
    for (j = slot_of(m, old[i].key); m->slot[j].used; j = (j + 1) & (m->slots - 1))
      ;
    m->slot[j] = old[i];
  }
  etwcap_free(old);
  return 0;
}

/* Puts key -> value in the first free slot of key's run, or, when `replace`
 * is set and key is already there, over its value. */
static int place(struct report_idmap *m, uint32_t key, uint32_t value, int replace)
{
  size_t i;
  if (!m->slots)
    return -1;
  /* Grown at half full: a key not there is looked for to the end of its
   * run, and at three quarters full runs average eight slots. */
  if (m->count >= m->slots / 2 && m->slots < m->max_slots && grow(m) != 0)
    return -1;
  for (i = slot_of(m, key); m->slot[i].used; i = (i + 1) & (m->slots - 1)) {
    if (replace && m->slot[i].key == key) {
      m->slot[i].value = value;
      return 0;
    }
  }
  if (m->count >= m->slots / 4 * 3)
    return -1;
  m->slot[i].used = 1;
  m->slot[i].key = key;
  m->slot[i].value = value;
  m->count++;
  return 0;
}

int report_idmap_put(struct report_idmap *m, uint32_t key, uint32_t value)
{
  return place(m, key, value, 1);
}

int report_idmap_add(struct report_idmap *m, uint32_t key, uint32_t value)
{
  return place(m, key, value, 0);
}

/* *cursor counts the slots of key's run already looked at: the run ends at
 * a free slot, and a quarter of the slots always is one. */
int report_idmap_next(const struct report_idmap *m, uint32_t key, size_t *cursor,
                      uint32_t *value)
{
  size_t i;
  if (!m->slots)
    return 0;
  for (i = (slot_of(m, key) + *cursor) & (m->slots - 1); m->slot[i].used;
       i = (i + 1) & (m->slots - 1)) {
    ++*cursor;
    if (m->slot[i].key == key) {
      *value = m->slot[i].value;
      return 1;
    }
  }
  return 0;
}

int report_idmap_get(const struct report_idmap *m, uint32_t key, uint32_t *value)
{
  size_t cursor = 0;
  return report_idmap_next(m, key, &cursor, value);
}
