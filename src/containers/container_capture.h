/* What a capture learns about the host's containers and does with it
 * (docs/containers.md): at its stop, while the containers still run, the
 * volume map (device name <-> volume GUID path, with the time), and an
 * image identity injector that reads container images through it; both go
 * into the merge, the map and what could not be read into the capture
 * manifest (`volumeMap`, `containers`).
 *
 * Lifetime: container_capture_release frees what the stop took. */
#ifndef ETWCAP_CONTAINER_CAPTURE_H
#define ETWCAP_CONTAINER_CAPTURE_H

#include "etw/merge/identity_inject.h"
#include "src/base/os/os_volume.h"
#include "src/base/strbuf.h"
#include "src/containers/container_host.h"

struct container_capture {
  const struct container_host *host;
  struct os_volume_list volumes;
  int volumes_rc; /* why there is no map: ETWCAP_E_UNSUPPORTED off Windows */
  struct identity_injector *identity;
};

/* `host` NULL: the system's. */
void container_capture_init(struct container_capture *cc, const struct container_host *host);
/* At the stop: takes the volume map and makes the identity injector the
 * merge uses: `base`'s rules (/PathMap, the drive table), then the
 * container routes through this host.  0 or ETWCAP_E_NOMEM; a host that
 * gives no volumes is no error (volumes_rc says why). */
int container_capture_at_stop(struct container_capture *cc, const struct identity_options *base);
void container_capture_release(struct container_capture *cc);

/* The manifest's members for it: `"volumeMap": ...,\n` (README.md). */
void container_capture_json(struct strbuf *b, const struct container_capture *cc);

#endif
