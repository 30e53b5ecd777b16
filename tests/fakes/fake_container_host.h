/* A container host for tests (container_host.h): a few containers, each
 * with a volume (\Device\HarddiskVolumeN and its GUID path) whose files
 * are a folder of the scratch area, and what HCS says of it.  The rules it
 * follows, each with its source, are in tests/fakes/README.md. */
#ifndef ETWCAP_FAKE_CONTAINER_HOST_H
#define ETWCAP_FAKE_CONTAINER_HOST_H

#include "src/containers/container_host.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_CONTAINERS_MAX 4

struct fake_container {
  const char *id, *name, *owner, *system_type, *runtime_id, *state;
  const char *hosting_system_id; /* "" for a process-isolated container */
  unsigned volume;               /* N of \Device\HarddiskVolumeN; 0 none */
  const char *guid;              /* "{...}" of its volume */
  int stopped;                   /* its volume dismounted: nothing opens there */
  uint32_t pids[8];
  size_t pid_count;
};

struct fake_container_host {
  struct container_host host; /* hand &host to the code under test */
  char root[512];             /* volume N's files are in root/volN/ */
  struct fake_container c[FAKE_CONTAINERS_MAX];
  size_t count;
  int globalroot_refused;     /* \\?\GLOBALROOT names fail (access denied) */
  int volumes_fail;           /* the volume list fails (access denied) */
  int no_hcs;                 /* computecore.dll absent: every HCS call says so */
  unsigned opens;             /* files opened through it */
};

/* An empty host whose volumes live under `root`. */
void fake_container_host_init(struct fake_container_host *f, const char *root);

#endif
