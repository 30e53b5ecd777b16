/* libFuzzer target: the PE reader (headers, sections, debug directory,
 * version resource) on arbitrary bytes, and, for what it accepts, the image
 * identity events built from it, written out as records. */
#include "etw/image/image_identity.h"
#include "etw/image/pe_image.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const uint16_t name16[] = { 'C', ':', '\\', 'x', '.', 'd', 'l', 'l' };
  struct byte_source src;
  struct pe_image pe;
  struct image_event img;
  struct image_identity_set set;
  struct image_identity_seen *seen;
  size_t i;
  int round;
  int rc;
  if (byte_source_open_memory(&src, data, size) != 0)
    return 0;
  rc = pe_image_read(&pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  if (rc != 0)
    return 0;
  memset(&img, 0, sizeof img);
  img.opcode = IMAGE_EVENT_DCSTART;
  img.pointer_size = pe.is_pe32plus ? 8 : 4;
  img.image_base = pe.image_base;
  img.image_size = pe.size_of_image;
  img.process_id = 4;
  img.file_name = (const uint8_t *)name16;
  img.file_name_bytes = sizeof name16;
  if (image_identity_seen_new(&seen) == 0) {
    /* Twice: the second time the Info key is known (no FileVersion). */
    for (round = 0; round < 2; round++) {
      if (image_identity_build_once(&set, &img, &pe, seen) != 0)
        break;
      for (i = 0; i < set.count; i++) {
        uint8_t out[0x10000];
        image_identity_write_record(&set.ev[i], out, sizeof out);
      }
      image_identity_release(&set);
    }
    image_identity_seen_free(seen);
  }
  pe_image_release(&pe);
  return 0;
}
