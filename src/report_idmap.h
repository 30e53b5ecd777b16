/* A map from 32-bit ids (thread ids, process ids, name hashes) to 32-bit
 * values for `etwcap report`: open addressing, no deletion.  It starts small
 * and doubles up to a fixed number of slots; when that is full, new ids are
 * not remembered (report_idmap_put fails) and the caller counts them: memory
 * stays bounded on any trace, and small on a small one. */
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
/* 1 with *value, or 0 when key is unknown. */
int report_idmap_get(const struct report_idmap *m, uint32_t key, uint32_t *value);

#endif
