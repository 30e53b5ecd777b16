/* The running system as a container host (container_host.h). */
#include "src/containers/container_host.h"

#include "src/containers/hcs.h"

#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>

static int volumes(void *ctx, struct os_volume_list *out)
{
  (void)ctx;
  return os_volume_list_take(out);
}

static int open_file(void *ctx, const char *path, struct byte_source *src)
{
  (void)ctx;
  return byte_source_open_file(src, path);
}

static int systems(void *ctx, char **json, char *why, size_t why_size)
{
  (void)ctx;
  return hcs_systems_json(json, why, why_size);
}

static int processes(void *ctx, const char *id, char **json, char *why, size_t why_size)
{
  (void)ctx;
  return hcs_processes_json(id, json, why, why_size);
}

/* Learn's "Container Storage Overview": Docker stores the layers in
 * C:\ProgramData\docker, "split across the image and windowsfilter
 * directories" (a daemon.json data-root moves them: not followed here). */
static int layer_root(void *ctx, char *out, size_t size)
{
  const char *data = getenv("ProgramData");
  int w;
  (void)ctx;
  if (!data || !*data)
    return ETWCAP_E_NOENT;
  w = snprintf(out, size, "%s\\docker\\windowsfilter", data);
  return w < 0 || (size_t)w >= size ? ETWCAP_E_NAMETOOLONG : 0;
}

const struct container_host *container_host_system(void)
{
  static const struct container_host host = { NULL,    volumes,   open_file,
                                              systems, processes, layer_root };
  return &host;
}
