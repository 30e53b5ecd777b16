/* What a capture learns about the host's containers and does with it
 * (docs/containers.md): at its start and at its stop the Host Compute
 * Service's inventory (container_inventory.h); at its stop, while the
 * containers still run, the volume map (device name <-> volume GUID path,
 * with the time), and an image identity injector that reads container
 * images through it.  The merge uses the injector; the capture manifest
 * gets the inventory (`containers`) and the map (`volumeMap`).
 *
 * Lifetime: container_capture_release frees what the stop took. */
#ifndef ETWCAP_CONTAINER_CAPTURE_H
#define ETWCAP_CONTAINER_CAPTURE_H

#include "etw/merge/identity_inject.h"
#include "src/base/os/os_volume.h"
#include "src/base/strbuf.h"
#include "src/containers/container_host.h"
#include "src/containers/container_inventory.h"

struct container_capture {
  const struct container_host *host;
  struct os_volume_list volumes;
  int volumes_rc; /* why there is no map: ETWCAP_E_UNSUPPORTED off Windows */
  /* The map a capture recorded (its manifest's volumeMap), for a later
   * merge: tried before today's, since a device number may name another
   * container's volume by now; and both, joined, as the injector sees them. */
  struct os_volume_list recorded, joined;
  struct identity_injector *identity;
  struct container_inventory at_start, at_stop; /* a capture's; not taken by merge */
  /* The image layers of the containers the inventory saw, each one's
   * topmost first: where an image is looked for once its container has
   * gone (container_image.h). */
  char *layers[CONTAINER_LAYERS_MAX];
  size_t layer_count;
};

/* `host` NULL: the system's. */
void container_capture_init(struct container_capture *cc, const struct container_host *host);
/* The volume map recorded in a capture manifest's text `json`
 * (capture_manifest_recall_volumes reads it from a zip), kept for
 * container_capture_at_stop.  The number of volumes read; 0 when there is
 * none or it cannot be read (a later merge then uses today's map alone). */
size_t container_capture_recall_volumes_json(struct container_capture *cc, const char *json,
                                             size_t len);

/* At a capture's start: the inventory.  Never fails (at_start.why). */
void container_capture_at_start(struct container_capture *cc, int64_t filetime);
/* At the stop: the inventory when `inventory` (a capture; merge takes
 * none), the volume map, and the identity injector the merge uses:
 * `base`'s rules (/PathMap, the drive table), then the container routes
 * through this host.  0 or ETWCAP_E_NOMEM; a host that gives no volumes or
 * no inventory is no error (volumes_rc, at_stop.why say why). */
int container_capture_at_stop(struct container_capture *cc, const struct identity_options *base,
                              int inventory, int64_t filetime);
void container_capture_release(struct container_capture *cc);

/* What the manifest says of a container image found nowhere: its volume
 * was gone, and no image layer held it. */
#define CONTAINER_STOPPED_REASON "container stopped before its identity could be read"

/* The manifest's members for it: `"containers"`, `"volumeMap"` and
 * `"containerImagesUnread"` (README.md); cc NULL: all null. */
void container_capture_json(struct strbuf *b, const struct container_capture *cc);

#endif
