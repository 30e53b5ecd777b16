/* The in-memory registry (see fake_registry.h).  Keys compare without case,
 * as the registry's do. */
#include "tests/fakes/fake_registry.h"

#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

static struct fake_registry *self(void *impl)
{
  return impl;
}

static int add_key(struct fake_registry *f, const char *key)
{
  size_t i;
  for (i = 0; i < f->key_count; i++)
    if (str_caseeq(f->keys[i], key))
      return 0;
  if (f->key_count == FAKE_REGISTRY_MAX)
    return ETWCAP_E_NOMEM;
  snprintf(f->keys[f->key_count++], sizeof(f->keys[0]), "%s", key);
  return 0;
}

static int set_typed(struct fake_registry *f, const char *key, const char *value, unsigned type,
                     const void *data, size_t size)
{
  struct fake_registry_value *v = (struct fake_registry_value *)fake_registry_find(f, key, value);
  int rc;
  if (size > sizeof(v->data) || (rc = add_key(f, key)) != 0)
    return ETWCAP_E_NOMEM;
  if (!v) {
    if (f->count == FAKE_REGISTRY_MAX)
      return ETWCAP_E_NOMEM;
    v = &f->values[f->count++];
    snprintf(v->key, sizeof(v->key), "%s", key);
    snprintf(v->name, sizeof(v->name), "%s", value);
  }
  memcpy(v->data, data, size);
  v->size = size;
  v->type = type;
  return 0;
}

static int set_binary(void *impl, const char *key, const char *value, const void *data,
                      size_t size)
{
  struct fake_registry *f = self(impl);
  if (f->fail_set)
    return f->fail_set;
  return set_typed(f, key, value, FAKE_REG_BINARY, data, size);
}

/* REG_DWORD: four bytes, little-endian, as the registry keeps them. */
static int set_dword(void *impl, const char *key, const char *value, uint32_t data)
{
  struct fake_registry *f = self(impl);
  unsigned char b[4] = { (unsigned char)data, (unsigned char)(data >> 8),
                         (unsigned char)(data >> 16), (unsigned char)(data >> 24) };
  if (f->fail_set)
    return f->fail_set;
  return set_typed(f, key, value, FAKE_REG_DWORD, b, sizeof(b));
}

/* REG_EXPAND_SZ: kept as the UTF-8 text with its NUL. */
static int set_expand_string(void *impl, const char *key, const char *value, const char *text)
{
  struct fake_registry *f = self(impl);
  if (f->fail_set)
    return f->fail_set;
  return set_typed(f, key, value, FAKE_REG_EXPAND_SZ, text, strlen(text) + 1);
}

static int get_dword(void *impl, const char *key, const char *value, uint32_t *out)
{
  const struct fake_registry_value *v = fake_registry_find(self(impl), key, value);
  if (!v)
    return ETWCAP_E_NOENT;
  if (v->type != FAKE_REG_DWORD || v->size != 4)
    return ETWCAP_E_FORMAT;
  *out = (uint32_t)v->data[0] | (uint32_t)v->data[1] << 8 | (uint32_t)v->data[2] << 16 |
         (uint32_t)v->data[3] << 24;
  return 0;
}

int fake_registry_put_dword(struct fake_registry *f, const char *key, const char *name,
                            unsigned long value)
{
  return set_dword(f, key, name, (uint32_t)value);
}

/* The direct child of `parent` that `key` lies under, or NULL. */
static const char *child_of(const char *parent, const char *key, size_t *len)
{
  size_t n = strlen(parent);
  const char *rest, *end;
  if (strlen(key) <= n + 1 || key[n] != '\\')
    return NULL;
  {
    char head[256];
    snprintf(head, sizeof(head), "%.*s", (int)n, key);
    if (!str_caseeq(head, parent))
      return NULL;
  }
  rest = key + n + 1;
  end = strchr(rest, '\\');
  *len = end ? (size_t)(end - rest) : strlen(rest);
  return rest;
}

static int subkeys(void *impl, const char *key, registry_key_fn fn, void *ctx)
{
  struct fake_registry *f = self(impl);
  char seen[FAKE_REGISTRY_MAX][256];
  size_t i, j, n = 0, len;
  int rc;
  f->subkey_walks++;
  for (i = 0; i < f->key_count; i++) {
    const char *c = child_of(key, f->keys[i], &len);
    char name[256];
    if (!c)
      continue;
    snprintf(name, sizeof(name), "%.*s", (int)len, c);
    for (j = 0; j < n && !str_caseeq(seen[j], name); j++)
      ;
    if (j < n)
      continue;
    snprintf(seen[n++], sizeof(seen[0]), "%s", name);
  }
  if (!n && !fake_registry_has_key(f, key))
    return ETWCAP_E_NOENT;
  for (i = 0; i < n; i++)
    if ((rc = fn(ctx, seen[i])) != 0)
      return rc;
  return 0;
}

static int values(void *impl, const char *key, registry_value_fn fn, void *ctx)
{
  struct fake_registry *f = self(impl);
  size_t i;
  int rc;
  if (!fake_registry_has_key(f, key))
    return ETWCAP_E_NOENT;
  for (i = 0; i < f->count; i++)
    if (str_caseeq(f->values[i].key, key) &&
        (rc = fn(ctx, f->values[i].name, f->values[i].data,
                 f->values[i].type == FAKE_REG_BINARY ? f->values[i].size : 0)) != 0)
      return rc;
  return 0;
}

static int delete_value(void *impl, const char *key, const char *value)
{
  struct fake_registry *f = self(impl);
  const struct fake_registry_value *v = fake_registry_find(f, key, value);
  size_t i;
  if (!v)
    return ETWCAP_E_NOENT;
  i = (size_t)(v - f->values);
  memmove(&f->values[i], &f->values[i + 1], (f->count - i - 1) * sizeof(f->values[0]));
  f->count--;
  return 0;
}

static int delete_key_if_empty(void *impl, const char *key)
{
  struct fake_registry *f = self(impl);
  size_t i, len;
  for (i = 0; i < f->count; i++)
    if (str_caseeq(f->values[i].key, key))
      return 0;
  for (i = 0; i < f->key_count; i++)
    if (child_of(key, f->keys[i], &len))
      return 0;
  for (i = 0; i < f->key_count; i++)
    if (str_caseeq(f->keys[i], key)) {
      memmove(&f->keys[i], &f->keys[i + 1], (f->key_count - i - 1) * sizeof(f->keys[0]));
      f->key_count--;
      return 0;
    }
  return ETWCAP_E_NOENT;
}

static int get_string(void *impl, const char *key, const char *value, char *out, size_t size)
{
  const struct fake_registry_value *v = fake_registry_find(self(impl), key, value);
  if (!v)
    return ETWCAP_E_NOENT;
  if (v->type != FAKE_REG_EXPAND_SZ)
    return ETWCAP_E_FORMAT;
  if (v->size > size)
    return ETWCAP_E_RANGE;
  memcpy(out, v->data, v->size);
  return 0;
}

static const struct registry_ops fake_ops = { set_binary, subkeys, values, delete_value,
                                              delete_key_if_empty, get_dword, set_dword,
                                              set_expand_string, get_string };

void fake_registry_init(struct fake_registry *f)
{
  memset(f, 0, sizeof(*f));
  f->reg.ops = &fake_ops;
  f->reg.impl = f;
}

const struct fake_registry_value *fake_registry_find(const struct fake_registry *f,
                                                     const char *key, const char *name)
{
  size_t i;
  for (i = 0; i < f->count; i++)
    if (str_caseeq(f->values[i].key, key) && str_caseeq(f->values[i].name, name))
      return &f->values[i];
  return NULL;
}

int fake_registry_has_key(const struct fake_registry *f, const char *key)
{
  size_t i;
  for (i = 0; i < f->key_count; i++)
    if (str_caseeq(f->keys[i], key))
      return 1;
  return 0;
}
