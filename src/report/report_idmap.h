/* A map from 32-bit ids (thread ids, process ids, name hashes) to 32-bit
 * values for `etwcap report`: open addressing, no deletion.  A key that is
 * a hash can hold several values (report_idmap_add), one per item with
 * that hash, which the caller tells apart.  It starts small and doubles up
 * to a fixed number of slots; when that is full, new ids are not remembered
 * (report_idmap_put fails) and the caller counts them: memory stays bounded
 * on any trace, and small on a small one. */
#ifndef ETWCAP_REPORT_IDMAP_H
#define ETWCAP_REPORT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct report_idmap_slot {
  uint32_t key, value;
  uint32_t used;
};

struct report_idmap {
  struct report_idmap_slot *slot; /* one array: a lookup touches one cache line */
  size_t slots;                   /* a power of two */
  size_t max_slots;
  size_t count;
};

/* 0 or ETWCAP_E_NOMEM.  max_slots must be a power of two. */
int report_idmap_init(struct report_idmap *m, size_t max_slots);
void report_idmap_release(struct report_idmap *m);
/* Sets key's value (replacing an earlier one): 0, or -1 when the map is
 * full (three quarters of max_slots used) or memory ran out. */
int report_idmap_put(struct report_idmap *m, uint32_t key, uint32_t value);
/* Adds key -> value beside the values key already has (two items whose
 * hashes are equal): 0, or -1 as report_idmap_put. */
int report_idmap_add(struct report_idmap *m, uint32_t key, uint32_t value);
/* 1 with *value, or 0 when key is unknown.  With several values, one of
 * them: use report_idmap_next. */
int report_idmap_get(const struct report_idmap *m, uint32_t key, uint32_t *value);
/* The values of key one by one: *cursor is 0 before the first call; 1 with
 * the next *value, or 0 when there is none left. */
int report_idmap_next(const struct report_idmap *m, uint32_t key, size_t *cursor,
                      uint32_t *value);

#endif
