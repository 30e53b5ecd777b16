/* The running system as a container host (container_host.h). */
#include "src/containers/container_host.h"

#include "src/containers/hcs.h"

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

const struct container_host *container_host_system(void)
{
  static const struct container_host host = { NULL, volumes, open_file, systems, processes };
  return &host;
}
