/* Where the host finds an image that a process-isolated container loaded:
 * its path in the trace is "\Device\HarddiskVolumeN\..." on a volume with
 * no drive letter (docs/containers.md).  While the container runs, the
 * same file opens as "\\?\GLOBALROOT" + that path (the Win32 name of the NT
 * object namespace) or through the volume's GUID path ("\\?\Volume{GUID}\"
 * + the rest, as TraceEvent's WindowsDeviceToVolumeMap.cs rewrites it).
 * Either may name another file by the time the merge runs (a volume number
 * is reused once its container has gone), so a file found this way counts
 * only when its headers are the load event's.  After the container has
 * gone, the files of its image remain in its image layers' folders
 * (`<layer>\Files\...`, layerchain.json lists them topmost first: moby's
 * Windows graph driver); a file there counts on the same terms.
 *
 * Pure: builds names and compares headers; opens nothing. */
#ifndef ETWCAP_CONTAINER_IMAGE_H
#define ETWCAP_CONTAINER_IMAGE_H

#include "etw/image/image_identity.h"
#include "etw/image/pe_image.h"
#include "src/base/os/os_volume.h"

#include <stddef.h>

/* The length of the device part ("\Device\HarddiskVolume7") of `path` when
 * it is a file path on such a volume: the device, then '\' and a name with
 * no "." or ".." component (a hostile trace must not climb out of the
 * volume into another device).  0 for any other path. */
size_t container_image_device_len(const char *path);

/* Where the host may find a container's files. */
struct container_places {
  const struct os_volume *volumes; /* the volume map */
  size_t volume_count;
  const char *const *layers;       /* image layer folders, each container's topmost first */
  size_t layer_count;
};

/* The candidate places of `path` (container_image_device_len > 0), in the
 * order to try them: index 0 the GLOBALROOT name, 1 the GUID path when the
 * volume map names the device, 2 + k layer k's `Files` folder.  0 with the
 * name in `out`; ETWCAP_E_NOENT when there is no candidate `index` nor any
 * after it; another error (NAMETOOLONG, RANGE: no GUID path) when this one
 * cannot be used: try the next. */
int container_image_candidate(const char *path, unsigned index, const struct container_places *pl,
                              char *out, size_t size);
/* 1 when the volume map names the device of `path`: its volume is mounted
 * (its container runs, or another has its number now). */
int container_image_volume_listed(const char *path, const struct container_places *pl);

/* 1 when the PE read from a candidate is the image the event loaded: the
 * same TimeDateStamp and CheckSum, and SizeOfImage equal to the event's
 * ImageSize or to it rounded up to the 4 KiB page (the event gives the
 * size of the mapped view, which is page-rounded). */
int container_image_matches(const struct pe_image *pe, const struct image_event *img);

#endif
