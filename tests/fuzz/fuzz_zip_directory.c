/* libFuzzer target: the zip central-directory reader and member check over
 * arbitrary bytes (src/zip_directory.c). */
#include "byte_source.h"
#include "zip_directory.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct byte_source io;
  struct zip_directory dir;
  char why[256];
  size_t i;
  if (byte_source_open_memory(&io, data, size) != 0)
    return 0;
  if (zip_directory_read(&io, &dir, why, sizeof(why)) == 0) {
    for (i = 0; i < dir.count && i < 16; i++) {
      uint64_t n;
      uint32_t crc;
      zip_entry_measure(&io, &dir.entries[i], &n, &crc, why, sizeof(why));
    }
    zip_directory_release(&dir);
  }
  byte_source_close(&io);
  return 0;
}
