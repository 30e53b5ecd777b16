/* The one-call form for the merger: reads the PE at a path (UTF-8, through
 * a byte_source) and builds its identity events.  Kept apart from
 * image_identity.c so that the encoder itself stays free of I/O. */
#include "etw/image/image_identity.h"

int image_identity_build_file(struct image_identity_set *set, const struct image_event *img,
                              const char *path, struct image_identity_seen *seen)
{
  struct byte_source src;
  struct pe_image pe;
  int rc;
  set->count = 0;
  rc = byte_source_open_file(&src, path);
  if (rc < 0)
    return rc;
  rc = pe_image_read(&pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  if (rc < 0)
    return rc;
  rc = seen ? image_identity_build_once(set, img, &pe, seen)
            : image_identity_build(set, img, &pe, IMAGE_IDENTITY_FILE_VERSION);
  pe_image_release(&pe);
  return rc;
}
