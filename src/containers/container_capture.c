/* A capture's containers (see container_capture.h). */
#include "src/containers/container_capture.h"

#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/json_tree.h"
#include "src/base/log.h"

#include <stdio.h>
#include <string.h>

#define LAYERCHAIN_MAX (64u << 10) /* bytes of one layerchain.json read */

void container_capture_init(struct container_capture *cc, const struct container_host *host)
{
  memset(cc, 0, sizeof(*cc));
  cc->host = host ? host : container_host_system();
  cc->volumes_rc = ETWCAP_E_NOENT; /* not taken yet */
}

/* A recorded entry is used only when it is what FindFirstVolumeW and
 * QueryDosDeviceW give: "\\?\Volume{GUID}\" (49 characters, "Naming a
 * Volume") and "\Device\NAME".  A zip from elsewhere must not turn the
 * merge's reads to a share or any other path. */
static int recorded_ok(const char *device, const char *guid)
{
  static const char prefix[] = "\\\\?\\Volume{";
  return strlen(guid) == 49 && strncmp(guid, prefix, strlen(prefix)) == 0 &&
         strcmp(guid + 47, "}\\") == 0 && strncmp(device, "\\Device\\", 8) == 0 &&
         device[8] && !strchr(device + 8, '\\');
}

size_t container_capture_recall_volumes_json(struct container_capture *cc, const char *json,
                                             size_t len)
{
  struct json_node *root = NULL;
  const struct json_node *map, *list;
  char why[256];
  size_t i;
  os_volume_list_release(&cc->recorded);
  if (json_parse(json, len, &root, why, sizeof(why)) != 0)
    return 0;
  map = json_get(root, "volumeMap");
  list = map ? json_get(map, "volumes") : NULL;
  if (list && list->type == JSON_ARRAY && list->count &&
      (cc->recorded.v = etwcap_calloc(list->count < OS_VOLUME_MAX ? list->count : OS_VOLUME_MAX,
                                      sizeof(*cc->recorded.v))) != NULL)
    for (i = 0; i < list->count && i < OS_VOLUME_MAX; i++) {
      struct os_volume *v = &cc->recorded.v[cc->recorded.count];
      const char *device = json_string(&list->items[i], "device", "");
      const char *guid = json_string(&list->items[i], "volume", "");
      if (!recorded_ok(device, guid) || strlen(device) >= sizeof(v->device))
        continue;
      memcpy(v->device, device, strlen(device) + 1);
      memcpy(v->guid_path, guid, strlen(guid) + 1);
      v->mounted = json_bool(&list->items[i], "mounted", 0);
      cc->recorded.count++;
    }
  json_free(root);
  return cc->recorded.count;
}

/* The recorded map, then today's, as one list for the injector. */
static int join_volumes(struct container_capture *cc)
{
  size_t n = cc->recorded.count + cc->volumes.count;
  if (!n)
    return 0;
  if (!(cc->joined.v = etwcap_calloc(n, sizeof(*cc->joined.v))))
    return ETWCAP_E_NOMEM;
  if (cc->recorded.count)
    memcpy(cc->joined.v, cc->recorded.v, cc->recorded.count * sizeof(*cc->joined.v));
  if (cc->volumes.count)
    memcpy(cc->joined.v + cc->recorded.count, cc->volumes.v,
           cc->volumes.count * sizeof(*cc->joined.v));
  cc->joined.count = n;
  return 0;
}

void container_capture_at_start(struct container_capture *cc, int64_t filetime)
{
  container_inventory_take(&cc->at_start, cc->host, filetime);
}

/* An Id from HCS names a folder only when it is one plain name. */
static int plain_name(const char *id)
{
  const char *p;
  for (p = id; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          *p == '-' || *p == '_'))
      return 0;
  return p != id;
}

/* Appends the layers of container `id` (its folder's layerchain.json). */
static void layers_of(struct container_capture *cc, const char *root, const char *id)
{
  struct byte_source src;
  char path[1024], why[256], *text = NULL;
  if (!plain_name(id) || snprintf(path, sizeof(path), "%s\\%s\\layerchain.json", root, id) >=
                             (int)sizeof(path))
    return;
  if (cc->host->open_file(cc->host->ctx, path, &src) != 0)
    return; /* not Docker's, or gone with its container */
  if (src.size > 0 && src.size <= (int64_t)LAYERCHAIN_MAX &&
      (text = etwcap_malloc((size_t)src.size)) != NULL &&
      byte_source_read_exact(&src, 0, text, (size_t)src.size, NULL) == 0 &&
      container_inventory_parse_layerchain(text, (size_t)src.size, cc->layers, &cc->layer_count, why,
                                           sizeof(why)) != 0)
    log_warn("'%s': %s", path, why);
  etwcap_free(text);
  byte_source_close(&src);
}

/* The layers of every process-isolated container either inventory saw. */
static void gather_layers(struct container_capture *cc)
{
  const struct container_inventory *inv[2] = { &cc->at_start, &cc->at_stop };
  char root[700];
  size_t i, k, j;
  if (!cc->host->layer_root || cc->host->layer_root(cc->host->ctx, root, sizeof(root)) != 0)
    return;

  for (k = 0; k < 2; k++)
    for (i = 0; i < inv[k]->count; i++) {
      const struct container_system *s = &inv[k]->systems[i];
      int again = 0;
      for (j = 0; k == 1 && j < cc->at_start.count; j++)
        again |= strcmp(cc->at_start.systems[j].id, s->id) == 0;
      if (s->isolation == CONTAINER_PROCESS && !again)
        layers_of(cc, root, s->id);
    }
}

int container_capture_at_stop(struct container_capture *cc, const struct identity_options *base,
                              int inventory, int64_t filetime)
{
  struct identity_options o = *base;
  if (inventory)
    container_inventory_take(&cc->at_stop, cc->host, filetime);
  cc->volumes_rc = cc->host->volumes(cc->host->ctx, &cc->volumes);
  if (cc->volumes_rc && cc->volumes_rc != ETWCAP_E_UNSUPPORTED)
    log_warn("cannot list the volumes (%s): images inside containers get no identity "
             "unless their volumes open through \\\\?\\GLOBALROOT",
             etwcap_strerror(cc->volumes_rc));
  o.containers = 1;
  gather_layers(cc);
  if (join_volumes(cc) != 0)
    return ETWCAP_E_NOMEM;
  o.places.volumes = cc->joined.v;
  o.places.volume_count = cc->joined.count;
  o.places.layers = (const char *const *)cc->layers;
  o.places.layer_count = cc->layer_count;
  o.open_file = cc->host->open_file;
  o.open_ctx = cc->host->ctx;
  return identity_injector_new(&cc->identity, &o);
}

void container_capture_release(struct container_capture *cc)
{
  size_t i;
  identity_injector_free(cc->identity);
  container_inventory_release(&cc->at_start);
  container_inventory_release(&cc->at_stop);
  for (i = 0; i < cc->layer_count; i++)
    etwcap_free(cc->layers[i]);
  os_volume_list_release(&cc->volumes);
  os_volume_list_release(&cc->recorded);
  os_volume_list_release(&cc->joined);
  memset(cc, 0, sizeof(*cc));
}

static void volume_map(struct strbuf *b, const struct container_capture *cc)
{
  char text[40];
  size_t i;
  if (cc->volumes_rc) {
    strbuf_puts(b, "  \"volumeMap\": null,\n");
    return;
  }
  strbuf_printf(b, "  \"volumeMap\": {\"utc\": \"%s\", \"volumes\": [",
                filetime_format_iso7(cc->volumes.filetime, text, sizeof(text)));
  for (i = 0; i < cc->volumes.count; i++) {
    const struct os_volume *v = &cc->volumes.v[i];
    strbuf_puts(b, i ? ",\n    {\"device\": " : "\n    {\"device\": ");
    strbuf_json_string(b, v->device);
    strbuf_puts(b, ", \"volume\": ");
    strbuf_json_string(b, v->guid_path);
    strbuf_printf(b, ", \"mounted\": %s}", v->mounted ? "true" : "false");
  }
  strbuf_puts(b, cc->volumes.count ? "\n  ]},\n" : "]},\n");
}

/* Whether the capture has an inventory, and why not when it has none. */
static void inventory(struct strbuf *b, const struct container_capture *cc)
{
  const struct container_inventory *any =
      cc->at_stop.taken ? &cc->at_stop : cc->at_start.taken ? &cc->at_start : NULL;
  int available = cc->at_start.available || cc->at_stop.available;
  if (!any) {
    strbuf_puts(b, "  \"containers\": null,\n");
    return;
  }
  strbuf_printf(b, "  \"containers\": {\"inventory\": %s, \"why\": ",
                available ? "true" : "false");
  if (available)
    strbuf_puts(b, "null");
  else
    strbuf_json_string(b, any->why);
  strbuf_puts(b, ",\n    \"atStart\": ");
  container_inventory_json(b, &cc->at_start);
  strbuf_puts(b, ",\n    \"atStop\": ");
  container_inventory_json(b, &cc->at_stop);
  strbuf_puts(b, "},\n");
}

/* The container images the merge found nowhere. */
static void unread(struct strbuf *b, const struct container_capture *cc)
{
  size_t i, n = cc->identity ? identity_injector_unread_count(cc->identity) : 0;
  strbuf_puts(b, "  \"containerImagesUnread\": [");
  for (i = 0; i < n; i++) {
    const struct identity_unread *u = identity_injector_unread(cc->identity, i);
    strbuf_puts(b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
    strbuf_json_string(b, u->path);
    strbuf_printf(b, ", \"pid\": %lu, \"reason\": \"%s\"}", (unsigned long)u->pid,
                  u->volume_listed ? "not readable on its container's volume"
                                   : CONTAINER_STOPPED_REASON);
  }
  strbuf_puts(b, n ? "\n  ],\n" : "],\n");
}

void container_capture_json(struct strbuf *b, const struct container_capture *cc)
{
  if (!cc) {
    strbuf_puts(b, "  \"containers\": null,\n  \"volumeMap\": null,\n"
                   "  \"containerImagesUnread\": null,\n");
    return;
  }
  inventory(b, cc);
  volume_map(b, cc);
  unread(b, cc);
}
