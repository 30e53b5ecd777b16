/* Candidate places of a container's image (see container_image.h). */
#include "etw/merge/container_image.h"

#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define VOLUME_PREFIX "\\Device\\HarddiskVolume"
#define GLOBALROOT "\\\\?\\GLOBALROOT"
#define PAGE 4096u

/* 1 when a component of `rest` ("\a\b.dll") is empty, "." or "..". */
static int climbs(const char *rest)
{
  const char *p = rest;
  while (*p == '\\') {
    const char *name = p + 1, *end = strchr(name, '\\');
    size_t len = end ? (size_t)(end - name) : strlen(name);
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
      return 1;
    if (!end)
      return 0;
    p = end;
  }
  return 1;
}

size_t container_image_device_len(const char *path)
{
  size_t n = strlen(VOLUME_PREFIX), digits = 0;
  if (!str_ncaseeq(path, VOLUME_PREFIX, n))
    return 0;
  while (path[n + digits] >= '0' && path[n + digits] <= '9' && digits < 10)
    digits++;
  if (!digits || path[n + digits] != '\\' || climbs(path + n + digits))
    return 0;
  return n + digits;
}

static const struct os_volume *volume_of(const char *path, size_t dev,
                                        const struct container_places *pl)
{
  size_t i;
  for (i = 0; i < pl->volume_count; i++)
    if (strlen(pl->volumes[i].device) == dev && str_ncaseeq(pl->volumes[i].device, path, dev))
      return &pl->volumes[i];
  return NULL;
}

int container_image_volume_listed(const char *path, const struct container_places *pl)
{
  size_t dev = container_image_device_len(path);
  return dev && volume_of(path, dev, pl) != NULL;
}

static int fits(int w, size_t size)
{
  return w < 0 || (size_t)w >= size ? ETWCAP_E_NAMETOOLONG : 0;
}

int container_image_candidate(const char *path, unsigned index, const struct container_places *pl,
                              char *out, size_t size)
{
  size_t dev = container_image_device_len(path);
  const struct os_volume *v;
  if (!dev)
    return ETWCAP_E_NOENT;
  if (index == 0)
    return fits(snprintf(out, size, "%s%s", GLOBALROOT, path), size);
  if (index == 1) {
    if (!(v = volume_of(path, dev, pl)))
      return ETWCAP_E_RANGE; /* no GUID path: on to the layers */
    /* The GUID path ends in '\'; the rest of the path starts with one. */
    return fits(snprintf(out, size, "%s%s", v->guid_path, path + dev + 1), size);
  }
  if (index - 2 >= pl->layer_count)
    return ETWCAP_E_NOENT;
  return fits(snprintf(out, size, "%s\\Files%s", pl->layers[index - 2], path + dev), size);
}

int container_image_matches(const struct pe_image *pe, const struct image_event *img)
{
  uint64_t rounded = ((uint64_t)pe->size_of_image + PAGE - 1) / PAGE * PAGE;
  return pe->time_date_stamp == img->time_date_stamp && pe->checksum == img->image_checksum &&
         (img->image_size == pe->size_of_image || img->image_size == rounded);
}
