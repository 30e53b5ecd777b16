/* A scripted container host (see fake_container_host.h). */
#include "tests/fakes/fake_container_host.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/strbuf.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define GLOBALROOT "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume"
#define HOST_VOLUME 3 /* the host's own C: */

static int volumes(void *ctx, struct os_volume_list *out)
{
  struct fake_container_host *f = ctx;
  size_t i;
  memset(out, 0, sizeof(*out));
  if (f->volumes_fail)
    return ETWCAP_E_ACCES;
  out->filetime = os_time_now_utc_filetime();
  if (!(out->v = etwcap_calloc(f->count + 1, sizeof(*out->v))))
    return ETWCAP_E_NOMEM;
  snprintf(out->v[0].device, sizeof(out->v[0].device), "\\Device\\HarddiskVolume%u", HOST_VOLUME);
  snprintf(out->v[0].guid_path, sizeof(out->v[0].guid_path),
           "\\\\?\\Volume{00000000-0000-0000-0000-000000000003}\\");
  out->v[0].mounted = 1;
  out->count = 1;
  /* A dismounted volume is no longer listed (FindFirstVolumeW lists the
   * volumes there are). */
  for (i = 0; i < f->count; i++) {
    struct os_volume *v = &out->v[out->count];
    if (!f->c[i].volume || f->c[i].stopped)
      continue;
    snprintf(v->device, sizeof(v->device), "\\Device\\HarddiskVolume%u", f->c[i].volume);
    snprintf(v->guid_path, sizeof(v->guid_path), "\\\\?\\Volume%s\\", f->c[i].guid);
    out->count++;
  }
  return 0;
}

/* The container whose volume `name` (after the prefix) is, and the rest. */
static const struct fake_container *by_number(const struct fake_container_host *f,
                                              const char *digits, const char **rest)
{
  size_t i;
  unsigned n = 0;
  const char *p = digits;
  while (*p >= '0' && *p <= '9')
    n = n * 10 + (unsigned)(*p++ - '0');
  *rest = p;
  for (i = 0; i < f->count; i++)
    if (f->c[i].volume == n && p != digits)
      return &f->c[i];
  return NULL;
}

static const struct fake_container *by_guid(const struct fake_container_host *f,
                                            const char *path, const char **rest)
{
  size_t i, n = strlen("\\\\?\\Volume");
  if (!str_ncaseeq(path, "\\\\?\\Volume", n))
    return NULL;
  for (i = 0; i < f->count; i++) {
    size_t g = strlen(f->c[i].guid);
    if (str_ncaseeq(path + n, f->c[i].guid, g) && path[n + g] == '\\') {
      *rest = path + n + g; /* from the '\' after the GUID */
      return &f->c[i];
    }
  }
  return NULL;
}

static int open_file(void *ctx, const char *path, struct byte_source *src)
{
  struct fake_container_host *f = ctx;
  const struct fake_container *c = NULL;
  const char *rest = NULL;
  char local[1024];
  if (str_ncaseeq(path, GLOBALROOT, strlen(GLOBALROOT))) {
    if (f->globalroot_refused)
      return ETWCAP_E_ACCES;
    c = by_number(f, path + strlen(GLOBALROOT), &rest);
  } else if (str_ncaseeq(path, "\\\\?\\", 4)) {
    c = by_guid(f, path, &rest);
  } else {
    /* A folder of the host (the layers): the scratch area itself. */
    snprintf(local, sizeof(local), "%s", path);
    os_native_path(local);
    return byte_source_open_file(src, local);
  }
  /* A stopped container's volume is gone: its names open nothing. */
  if (!c || c->stopped || *rest != '\\')
    return ETWCAP_E_NOENT;
  snprintf(local, sizeof(local), "%s/vol%u%s", f->root, c->volume, rest);
  os_native_path(local);
  f->opens++;
  return byte_source_open_file(src, local);
}

static int systems(void *ctx, char **json, char *why, size_t why_size)
{
  struct fake_container_host *f = ctx;
  struct strbuf b;
  size_t i;
  *json = NULL;
  if (f->no_hcs) {
    snprintf(why, why_size, "computecore.dll is not in System32 (error 126): this Windows has "
             "no Host Compute Service API");
    return ETWCAP_E_UNSUPPORTED;
  }
  memset(&b, 0, sizeof(b));
  strbuf_puts(&b, "[");
  for (i = 0; i < f->count; i++) {
    const struct fake_container *c = &f->c[i];
    strbuf_printf(&b, "%s{\"Id\":", i ? "," : "");
    strbuf_json_string(&b, c->id);
    strbuf_puts(&b, ",\"SystemType\":");
    strbuf_json_string(&b, c->system_type);
    strbuf_puts(&b, ",\"Name\":");
    strbuf_json_string(&b, c->name);
    strbuf_puts(&b, ",\"Owner\":");
    strbuf_json_string(&b, c->owner);
    strbuf_puts(&b, ",\"RuntimeId\":");
    strbuf_json_string(&b, c->runtime_id);
    strbuf_puts(&b, ",\"State\":");
    strbuf_json_string(&b, c->state);
    if (c->hosting_system_id && *c->hosting_system_id) {
      strbuf_puts(&b, ",\"HostingSystemId\":");
      strbuf_json_string(&b, c->hosting_system_id);
    }
    strbuf_puts(&b, "}");
  }
  strbuf_puts(&b, "]");
  return strbuf_finish(&b, json);
}

static int processes(void *ctx, const char *id, char **json, char *why, size_t why_size)
{
  struct fake_container_host *f = ctx;
  struct strbuf b;
  size_t i, k;
  *json = NULL;
  if (f->no_hcs)
    return systems(ctx, json, why, why_size);
  for (i = 0; i < f->count && strcmp(f->c[i].id, id) != 0; i++)
    ;
  if (i == f->count) {
    snprintf(why, why_size, "HcsOpenComputeSystem failed with HRESULT 0xC037010E");
    return ETWCAP_E_NOENT;
  }
  memset(&b, 0, sizeof(b));
  strbuf_puts(&b, "{\"Id\":");
  strbuf_json_string(&b, id);
  strbuf_puts(&b, ",\"ProcessList\":[");
  for (k = 0; k < f->c[i].pid_count; k++)
    strbuf_printf(&b, "%s{\"ProcessId\":%lu,\"ImageName\":\"dotnet.exe\"}", k ? "," : "",
                  (unsigned long)f->c[i].pids[k]);
  strbuf_puts(&b, "]}");
  return strbuf_finish(&b, json);
}

static int layer_root(void *ctx, char *out, size_t size)
{
  struct fake_container_host *f = ctx;
  snprintf(out, size, "%s/windowsfilter", f->root);
  return 0;
}

void fake_container_host_init(struct fake_container_host *f, const char *root)
{
  memset(f, 0, sizeof(*f));
  snprintf(f->root, sizeof(f->root), "%s", root);
  f->host.ctx = f;
  f->host.volumes = volumes;
  f->host.open_file = open_file;
  f->host.systems = systems;
  f->host.processes = processes;
  f->host.layer_root = layer_root;
}
