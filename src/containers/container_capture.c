/* A capture's containers (see container_capture.h). */
#include "src/containers/container_capture.h"

#include "src/base/civil_time.h"
#include "src/base/error.h"
#include "src/base/log.h"

#include <string.h>

void container_capture_init(struct container_capture *cc, const struct container_host *host)
{
  memset(cc, 0, sizeof(*cc));
  cc->host = host ? host : container_host_system();
  cc->volumes_rc = ETWCAP_E_NOENT; /* not taken yet */
}

void container_capture_at_start(struct container_capture *cc, int64_t filetime)
{
  container_inventory_take(&cc->at_start, cc->host, filetime);
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
  o.volumes = cc->volumes.v;
  o.volume_count = cc->volumes.count;
  o.open_file = cc->host->open_file;
  o.open_ctx = cc->host->ctx;
  return identity_injector_new(&cc->identity, &o);
}

void container_capture_release(struct container_capture *cc)
{
  identity_injector_free(cc->identity);
  container_inventory_release(&cc->at_start);
  container_inventory_release(&cc->at_stop);
  os_volume_list_release(&cc->volumes);
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

void container_capture_json(struct strbuf *b, const struct container_capture *cc)
{
  if (!cc) {
    strbuf_puts(b, "  \"containers\": null,\n  \"volumeMap\": null,\n");
    return;
  }
  inventory(b, cc);
  volume_map(b, cc);
}
