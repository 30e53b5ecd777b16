/* Which images already had their FileVersion event in a merged trace.
 * KernelTraceControl writes FileVersion once per image identity, keyed by
 * what the ImageID/Info event says (OriginalFileName, ImageSize,
 * TimeDateStamp), not by path: the same file under \SystemRoot\ and
 * \Device\HarddiskVolumeN\ gets one, and two WinSxS copies of one DLL get one
 * (observed in net.4.5.2.x64 and diaghub.etl; see image_identity.c).
 *
 * A small hash set of those keys, owned by the merger for one output trace.
 * Lifetime: image_identity_seen_new .. image_identity_seen_free. */
#ifndef ETWCAP_IMAGE_IDENTITY_SEEN_H
#define ETWCAP_IMAGE_IDENTITY_SEEN_H

#include <stddef.h>
#include <stdint.h>

struct image_identity_seen;

int image_identity_seen_new(struct image_identity_seen **out);
void image_identity_seen_free(struct image_identity_seen *s);
/* Remembers the key `len` bytes at `key`: 1 when it is new, 0 when it was
 * there already, ETWCAP_E_NOMEM. */
int image_identity_seen_add(struct image_identity_seen *s, const uint8_t *key, size_t len);
/* 1 when the key is there. */
int image_identity_seen_contains(const struct image_identity_seen *s, const uint8_t *key,
                                 size_t len);
/* Number of distinct keys remembered. */
size_t image_identity_seen_count(const struct image_identity_seen *s);

#endif
