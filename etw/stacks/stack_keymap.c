/* See stack_keymap.h. */
#include "etw/stacks/stack_keymap.h"

#include "src/base/alloc.h"

#include <string.h>

#define FIRST_SLOTS 1024

void stack_keymap_init(struct stack_keymap *m, size_t max_slots)
{
  memset(m, 0, sizeof(*m));
  m->max_slots = max_slots;
}

void stack_keymap_release(struct stack_keymap *m)
{
  etwcap_free(m->slot);
  memset(m, 0, sizeof(*m));
}

/* A 64-bit mix (the finaliser of MurmurHash3): stack keys and code
 * addresses differ mostly in their middle bits. */
static size_t hash(uint64_t a, uint32_t b)
{
  uint64_t h = a ^ ((uint64_t)b * 0x9e3779b97f4a7c15ull);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return (size_t)h;
}

static struct stack_keymap_slot *find(const struct stack_keymap *m, uint64_t a, uint32_t b)
{
  size_t i = hash(a, b) & (m->slots - 1);
  for (;;) {
    struct stack_keymap_slot *s = &m->slot[i];
    if (!s->value || (s->a == a && s->b == b))
      return s;
    i = (i + 1) & (m->slots - 1);
  }
}

static int grow(struct stack_keymap *m)
{
  size_t n = m->slots ? m->slots * 2 : FIRST_SLOTS, i;
  struct stack_keymap old = *m;
  if (n > m->max_slots)
    return -1;
  m->slot = etwcap_calloc(n, sizeof(*m->slot));
  if (!m->slot) {
    m->slot = old.slot;
    return -1;
  }
  m->slots = n;
  for (i = 0; i < old.slots; i++)
    if (old.slot[i].value)
      *find(m, old.slot[i].a, old.slot[i].b) = old.slot[i];
  etwcap_free(old.slot);
  return 0;
}

int stack_keymap_put(struct stack_keymap *m, uint64_t a, uint32_t b, uint32_t value)
{
  struct stack_keymap_slot *s;
  if (value >= STACK_KEYMAP_FORGOTTEN)
    return -1;
  if (m->slots) {
    s = find(m, a, b);
    if (s->value) {
      s->value = value ? value : STACK_KEYMAP_FORGOTTEN;
      return 0;
    }
  }
  if (!value)
    return 0;
  if ((m->count + 1) * 4 > m->slots * 3 && grow(m) != 0)
    return -1;
  s = find(m, a, b);
  s->a = a;
  s->b = b;
  s->value = value;
  m->count++;
  return 0;
}

uint32_t stack_keymap_get(const struct stack_keymap *m, uint64_t a, uint32_t b)
{
  uint32_t value = m->slots ? find(m, a, b)->value : 0;
  return value == STACK_KEYMAP_FORGOTTEN ? 0 : value;
}
