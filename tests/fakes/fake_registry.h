/* An in-memory registry behind the registry.h seam, for the portable
 * tests: keys exist while they have values (or were created by a set), as
 * HKLM keys do; every operation is counted.  Lifetime: the caller's
 * struct, no allocation. */
#ifndef ETWCAP_FAKE_REGISTRY_H
#define ETWCAP_FAKE_REGISTRY_H

#include "src/base/os/registry.h"

#include <stddef.h>

#define FAKE_REGISTRY_MAX 32
/* winnt.h's REG_EXPAND_SZ, REG_BINARY and REG_DWORD. */
#define FAKE_REG_EXPAND_SZ 2u
#define FAKE_REG_BINARY 3u
#define FAKE_REG_DWORD 4u

struct fake_registry_value {
  char key[256];
  char name[64];
  unsigned char data[1024];
  size_t size;
  unsigned type;                     /* FAKE_REG_EXPAND_SZ, _BINARY or _DWORD */
};

struct fake_registry {
  struct registry reg; /* hand &reg to the code under test */
  struct fake_registry_value values[FAKE_REGISTRY_MAX];
  size_t count;
  char keys[FAKE_REGISTRY_MAX][256]; /* keys that exist (possibly empty) */
  size_t key_count;
  int fail_set;                      /* every set_* returns this when non-zero */
  size_t subkey_walks;               /* subkeys calls (walks of a key's children) */
};

void fake_registry_init(struct fake_registry *f);
/* The value, or NULL. */
const struct fake_registry_value *fake_registry_find(const struct fake_registry *f,
                                                     const char *key, const char *name);
/* Puts a REG_DWORD there as if someone else had (the key is created). */
int fake_registry_put_dword(struct fake_registry *f, const char *key, const char *name,
                            unsigned long value);
/* 1 when the key exists. */
int fake_registry_has_key(const struct fake_registry *f, const char *key);

#endif
