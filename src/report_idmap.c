/* See report_idmap.h. */
#include "report_idmap.h"

#include "alloc.h"
#include "error.h"

#include <string.h>

int report_idmap_init(struct report_idmap *m, size_t slots)
{
  memset(m, 0, sizeof(*m));
  m->keys = etwcap_calloc(slots, sizeof(*m->keys));
  m->values = etwcap_calloc(slots, sizeof(*m->values));
  m->used = etwcap_calloc(slots, 1);
  m->slots = slots;
  if (!m->keys || !m->values || !m->used) {
    report_idmap_release(m);
    return ETWCAP_E_NOMEM;
  }
  return 0;
}

void report_idmap_release(struct report_idmap *m)
{
  etwcap_free(m->keys);
  etwcap_free(m->values);
  etwcap_free(m->used);
  memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct report_idmap *m, uint32_t key)
{
  /* Fibonacci hashing spreads the multiples of 4 Windows ids are. */
  return (size_t)((key * 2654435769u) >> 7) & (m->slots - 1);
}

int report_idmap_put(struct report_idmap *m, uint32_t key, uint32_t value)
{
  size_t i;
  if (!m->slots)
    return -1;
  for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->slots - 1)) {
    if (m->keys[i] == key) {
      m->values[i] = value;
      return 0;
    }
  }
  if (m->count >= m->slots / 4 * 3)
    return -1;
  m->used[i] = 1;
  m->keys[i] = key;
  m->values[i] = value;
  m->count++;
  return 0;
}

int report_idmap_get(const struct report_idmap *m, uint32_t key, uint32_t *value)
{
  size_t i;
  if (!m->slots)
    return 0;
  for (i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->slots - 1)) {
    if (m->keys[i] == key) {
      *value = m->values[i];
      return 1;
    }
  }
  return 0;
}
