/* An open-addressing hash set of byte strings (FNV-1a), for
 * image_identity_seen.h.  Keys are copied; the table doubles at 1/2 load. */
#include "etw/image/image_identity_seen.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

struct slot {
  uint64_t hash;
  uint8_t *key; /* NULL: empty */
  size_t len;
};

struct image_identity_seen {
  struct slot *slots;
  size_t cap, count; /* cap is a power of two */
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int image_identity_seen_new(struct image_identity_seen **out)
{
  struct image_identity_seen *s = etwcap_calloc(1, sizeof *s);
  *out = NULL;
  if (!s)
    return ETWCAP_E_NOMEM;
  s->cap = 256;
  s->slots = etwcap_calloc(s->cap, sizeof *s->slots);
  if (!s->slots) {
    etwcap_free(s);
    return ETWCAP_E_NOMEM;
  }
  *out = s;
  return 0;
}

void image_identity_seen_free(struct image_identity_seen *s)
{
  size_t i;
  if (!s)
    return;
  for (i = 0; i < s->cap; i++)
    etwcap_free(s->slots[i].key);
  etwcap_free(s->slots);
  etwcap_free(s);
}

static struct slot *find(struct slot *slots, size_t cap, uint64_t hash, const uint8_t *key,
                         size_t len)
{
  size_t i = (size_t)hash & (cap - 1);
  for (;;) {
    struct slot *sl = &slots[i];
    if (!sl->key || (sl->hash == hash && sl->len == len && memcmp(sl->key, key, len) == 0))
      return sl;
    i = (i + 1) & (cap - 1);
  }
}

static int grow(struct image_identity_seen *s)
{
  size_t cap = s->cap * 2, i;
  struct slot *slots = etwcap_calloc(cap, sizeof *slots);
  if (!slots)
    return ETWCAP_E_NOMEM;
  for (i = 0; i < s->cap; i++)
    if (s->slots[i].key)
      *find(slots, cap, s->slots[i].hash, s->slots[i].key, s->slots[i].len) = s->slots[i];
  etwcap_free(s->slots);
  s->slots = slots;
  s->cap = cap;
  return 0;
}

int image_identity_seen_add(struct image_identity_seen *s, const uint8_t *key, size_t len)
{
  uint64_t hash = fnv1a(key, len);
  struct slot *sl = find(s->slots, s->cap, hash, key, len);
  uint8_t *copy;
  if (sl->key)
    return 0;
  if (2 * (s->count + 1) > s->cap) {
    int rc = grow(s);
    if (rc < 0)
      return rc;
    sl = find(s->slots, s->cap, hash, key, len);
  }
  copy = etwcap_malloc(len ? len : 1);
  if (!copy)
    return ETWCAP_E_NOMEM;
  if (len)
    memcpy(copy, key, len);
  sl->hash = hash;
  sl->key = copy;
  sl->len = len;
  s->count++;
  return 1;
}

int image_identity_seen_contains(const struct image_identity_seen *s, const uint8_t *key,
                                 size_t len)
{
  return find(s->slots, s->cap, fnv1a(key, len), key, len)->key != NULL;
}

size_t image_identity_seen_count(const struct image_identity_seen *s)
{
  return s->count;
}
