/* What etwcap asks a container host, as one seam: its volumes (the map
 * from the device names in image paths to volume GUID paths), a file
 * opened by such a name, and the Host Compute Service's JSON documents
 * (the compute systems and each one's properties).  The product uses the
 * system's (container_host_system: os_volume.h, byte_source_open_file and
 * hcs.h); tests put tests/fakes/fake_container_host.c here, a host with
 * scripted containers.
 *
 * Every answer may be "none": a host with no containers, an older Windows
 * without computecore.dll, a user HCS refuses.  Nothing here fails a
 * capture. */
#ifndef ETWCAP_CONTAINER_HOST_H
#define ETWCAP_CONTAINER_HOST_H

#include "src/base/byte_source.h"
#include "src/base/os/os_volume.h"

#include <stddef.h>

struct container_host {
  void *ctx;
  /* The volumes now (os_volume_list_take's contract). */
  int (*volumes)(void *ctx, struct os_volume_list *out);
  /* Opens a file named "\\?\GLOBALROOT\Device\..." or "\\?\Volume{...}\..."
   * (byte_source_open_file's contract). */
  int (*open_file)(void *ctx, const char *path, struct byte_source *src);
  /* HcsEnumerateComputeSystems' result document (UTF-8, allocated:
   * etwcap_free), or an error with `why` saying what failed
   * (ETWCAP_E_UNSUPPORTED: no HCS on this Windows). */
  int (*systems)(void *ctx, char **json, char *why, size_t why_size);
  /* HcsGetComputeSystemProperties' result document for {"PropertyTypes":
   * ["ProcessList"]} of the compute system `id`, likewise. */
  int (*processes)(void *ctx, const char *id, char **json, char *why, size_t why_size);
  /* The folder of Docker's Windows layers, each container's and each
   * image layer's folder in it: 0, or ETWCAP_E_NOENT when there is none. */
  int (*layer_root)(void *ctx, char *out, size_t size);
};

/* The running system's. */
const struct container_host *container_host_system(void);

#endif
