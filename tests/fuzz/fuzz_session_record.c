/* libFuzzer target: the session record `stop` reads next to the data file
 * (src/capture/session_record.c and its JSON reader), from arbitrary text. */
#include "src/capture/session_record.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct session_record r;
  char why[256];
  if (session_record_parse((const char *)data, size, &r, why, sizeof(why)) == 0)
    session_record_release(&r);
  return 0;
}
