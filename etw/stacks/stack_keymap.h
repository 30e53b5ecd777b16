/* A map from 96-bit keys (a 64-bit value and a 32-bit qualifier: a stack
 * key and its kind, an address and its process) to 32-bit values, for the
 * CPU stacks of `etwcap report`.  Open addressing, no deletion: a value of
 * 0 reads as absent, so setting a key's value to 0 forgets it and the slot
 * is found again when the key comes back.  It starts small and doubles up
 * to a fixed number of slots; when that is three quarters full, new keys
 * are refused and the caller counts them: memory stays bounded. */
#ifndef ETWCAP_STACK_KEYMAP_H
#define ETWCAP_STACK_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

/* 16 bytes: four to a cache line, as most lookups miss the cache. */
struct stack_keymap_slot {
  uint64_t a;
  uint32_t b;
  uint32_t value; /* 0: empty; STACK_KEYMAP_FORGOTTEN: used, value 0 */
};

#define STACK_KEYMAP_FORGOTTEN UINT32_MAX

struct stack_keymap {
  struct stack_keymap_slot *slot;
  size_t slots;     /* a power of two, 0 before the first put */
  size_t max_slots; /* a power of two */
  size_t count;     /* slots used */
};

void stack_keymap_init(struct stack_keymap *m, size_t max_slots);
void stack_keymap_release(struct stack_keymap *m);
/* Sets (a, b) to value (below STACK_KEYMAP_FORGOTTEN; 0 forgets it): 0,
 * or -1 when the map is full or memory ran out. */
int stack_keymap_put(struct stack_keymap *m, uint64_t a, uint32_t b, uint32_t value);
/* The value of (a, b), or 0. */
uint32_t stack_keymap_get(const struct stack_keymap *m, uint64_t a, uint32_t b);

#endif
