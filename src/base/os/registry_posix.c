/* registry.h off Windows: there is no registry. */
#include "src/base/os/registry.h"

#include "src/base/error.h"

static int set_binary(void *impl, const char *key, const char *value, const void *data,
                      size_t size)
{
  (void)impl, (void)key, (void)value, (void)data, (void)size;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int subkeys(void *impl, const char *key, registry_key_fn fn, void *ctx)
{
  (void)impl, (void)key, (void)fn, (void)ctx;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int values(void *impl, const char *key, registry_value_fn fn, void *ctx)
{
  (void)impl, (void)key, (void)fn, (void)ctx;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int delete_value(void *impl, const char *key, const char *value)
{
  (void)impl, (void)key, (void)value;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int delete_key_if_empty(void *impl, const char *key)
{
  (void)impl, (void)key;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int get_dword(void *impl, const char *key, const char *value, uint32_t *out)
{
  (void)impl, (void)key, (void)value, (void)out;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int set_dword(void *impl, const char *key, const char *value, uint32_t data)
{
  (void)impl, (void)key, (void)value, (void)data;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int set_expand_string(void *impl, const char *key, const char *value, const char *text)
{
  (void)impl, (void)key, (void)value, (void)text;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static int get_string(void *impl, const char *key, const char *value, char *out, size_t size)
{
  (void)impl, (void)key, (void)value, (void)out, (void)size;
  return ETWCAP_E_NEEDS_WINDOWS;
}

static const struct registry_ops none_ops = { set_binary, subkeys, values, delete_value,
                                              delete_key_if_empty, get_dword, set_dword,
                                              set_expand_string, get_string };

void registry_system(struct registry *r)
{
  r->ops = &none_ops;
  r->impl = NULL;
}
