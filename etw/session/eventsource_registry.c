/* The EventSource provider-data hand-off (see eventsource_registry.h). */
#include "etw/session/eventsource_registry.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

#define VALUE_PREFIX "ControllerData_Session_"
#define NAME_KEY "EtwSessionName"

const struct plan_filter *eventsource_registry_data(const struct plan_provider *p)
{
  /* TraceEvent: "don't write anything to the registry for SendManifest
   * commands"; the provider data is always the first descriptor. */
  if (p->filter_count && p->filters[0].type == PLAN_FILTER_PROVIDER_DATA && p->filters[0].size)
    return &p->filters[0];
  return NULL;
}

void eventsource_registry_names(const struct etw_guid *provider, uint64_t session_handle,
                                char *key, size_t key_size, char *value, size_t value_size)
{
  char g[GUID_STRING_SIZE];
  guid_format(provider, g);
  snprintf(key, key_size, "%s\\{%s}", EVENTSOURCE_REGISTRY_BASE, g);
  snprintf(value, value_size, VALUE_PREFIX "%d", (int)(int32_t)(uint32_t)session_handle);
}

int eventsource_registry_put(const struct registry *r, const struct plan_provider *p,
                             uint64_t session_handle)
{
  const struct plan_filter *f = eventsource_registry_data(p);
  char key[256], value[64];
  if (!f)
    return 0;
  eventsource_registry_names(&p->guid, session_handle, key, sizeof(key), value, sizeof(value));
  return r->ops->set_binary(r->impl, key, value, f->data, f->size);
}

int eventsource_registry_drop(const struct registry *r, const struct plan_provider *p,
                              uint64_t session_handle)
{
  char key[256], value[64];
  int rc;
  if (!eventsource_registry_data(p))
    return 0;
  eventsource_registry_names(&p->guid, session_handle, key, sizeof(key), value, sizeof(value));
  rc = r->ops->delete_value(r->impl, key, value);
  r->ops->delete_key_if_empty(r->impl, key);
  return rc == ETWCAP_E_NOENT ? 0 : rc;
}

/* The session name inside provider data: the string after the leading
 * "EtwSessionName\0", or NULL. */
static const char *session_of(const unsigned char *data, size_t size, size_t *len)
{
  size_t k = sizeof(NAME_KEY), n;
  if (size <= k || memcmp(data, NAME_KEY, k) != 0)
    return NULL;
  for (n = 0; k + n < size && data[k + n]; n++)
    ;
  if (k + n == size)
    return NULL;
  *len = n;
  return (const char *)data + k;
}

struct walk {
  const struct registry *r;
  const char *const *names;
  size_t name_count;
  int prefix;
  size_t removed;
  char key[256];
  /* Values to delete once the enumeration of a key is over, and the
   * provider keys to remove if now empty once the walk is over: lists that
   * grow, since a registry holds any number of both and a value or key left
   * out would outlive the session. */
  char **doomed;
  size_t doomed_count;
  char **emptied;
  size_t emptied_count;
};

static int push(char ***list, size_t *count, const char *s)
{
  char **grown = etwcap_reallocarray(*list, *count + 1, sizeof(**list));
  if (!grown)
    return ETWCAP_E_NOMEM;
  *list = grown;
  if (!(grown[*count] = etwcap_strdup(s)))
    return ETWCAP_E_NOMEM;
  (*count)++;
  return 0;
}

static void clear(char ***list, size_t *count)
{
  size_t i;
  for (i = 0; i < *count; i++)
    etwcap_free((*list)[i]);
  etwcap_free(*list);
  *list = NULL;
  *count = 0;
}

static int on_value(void *ctx, const char *value, const unsigned char *data, size_t size)
{
  struct walk *w = ctx;
  size_t len, i;
  const char *s;
  if (strncmp(value, VALUE_PREFIX, sizeof(VALUE_PREFIX) - 1) != 0)
    return 0;
  if (!(s = session_of(data, size, &len)))
    return 0;
  for (i = 0; i < w->name_count; i++) {
    size_t want = strlen(w->names[i]);
    if (w->prefix ? (len >= want && !memcmp(s, w->names[i], want))
                  : (len == want && !memcmp(s, w->names[i], want)))
      break;
  }
  if (i == w->name_count)
    return 0;
  return push(&w->doomed, &w->doomed_count, value);
}

static int on_provider(void *ctx, const char *sub)
{
  struct walk *w = ctx;
  size_t i;
  int n, rc;
  if (sub[0] != '{')
    return 0;
  /* A subkey name has up to 255 characters (Registry element size limits,
   * learn.microsoft.com); the keys TraceEvent and etwcap write are
   * "{guid}", 38.  A longer one is not theirs and is skipped: cut to fit,
   * it would name another key, whose values would be deleted. */
  n = snprintf(w->key, sizeof(w->key), "%s\\%s", EVENTSOURCE_REGISTRY_BASE, sub);
  if (n < 0 || (size_t)n >= sizeof(w->key))
    return 0;
  if ((rc = w->r->ops->values(w->r->impl, w->key, on_value, w)) == ETWCAP_E_NOENT)
    rc = 0;
  /* Deleting while enumerating would skip values: delete afterwards, as
   * TraceEvent does. */
  for (i = 0; !rc && i < w->doomed_count; i++)
    if (w->r->ops->delete_value(w->r->impl, w->key, w->doomed[i]) == 0)
      w->removed++;
  if (!rc && w->doomed_count)
    rc = push(&w->emptied, &w->emptied_count, w->key);
  clear(&w->doomed, &w->doomed_count);
  return rc;
}

int eventsource_registry_remove(const struct registry *r, const char *const *names, size_t count,
                                int prefix, size_t *removed)
{
  struct walk w;
  size_t i;
  int rc;
  memset(&w, 0, sizeof(w));
  w.r = r;
  w.names = names;
  w.name_count = count;
  w.prefix = prefix;
  rc = r->ops->subkeys(r->impl, EVENTSOURCE_REGISTRY_BASE, on_provider, &w);
  /* Keys are removed after the walk: deleting one while enumerating would
   * skip its neighbour. */
  for (i = 0; i < w.emptied_count; i++)
    r->ops->delete_key_if_empty(r->impl, w.emptied[i]);
  clear(&w.emptied, &w.emptied_count);
  if (removed)
    *removed = w.removed;
  return rc == ETWCAP_E_NOENT ? 0 : rc;
}
