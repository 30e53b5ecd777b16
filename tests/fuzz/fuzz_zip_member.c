/* libFuzzer target: the input is a zip archive in memory.  Every .etl
 * member is streamed through minizip into the ETL reader and read in file
 * order and in time order (which restarts members to read backwards). */
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "etw/etl/etl_zip.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_member(void *ctx, const char *display, struct etl_reader *r)
{
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  unsigned n = 0;
  int rc;
  (void)ctx;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) == 1 && n++ < 100000)
    ;
  if (rc < 0)
    return rc;
  if (etl_timeorder_open(&t, r) == 0) {
    n = 0;
    while (etl_timeorder_next(t, &ev) == 1 && n++ < 100000)
      ;
    etl_timeorder_free(t);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[1024];
  struct etl_zip *z = NULL;
  char name[1024];
  /* Through the same entry point the CLI uses when the bytes are a zip... */
  if (etl_zip_magic(data, size))
    etl_source_foreach_memory(data, size, "fuzz.zip", read_member, NULL, err, sizeof(err));
  /* ...and the archive walk on its own, whatever the first bytes are. */
  if (etl_zip_open_memory(&z, data, size) == 0) {
    unsigned members = 0;
    while (etl_zip_next_etl(z, name, sizeof(name)) == 1 && members++ < 64) {
      struct byte_source io;
      uint8_t head[72];
      size_t got;
      if (etl_zip_member_io(z, &io) == 0)
        byte_source_read_exact(&io, 0, head, sizeof(head), &got);
    }
  }
  etl_zip_close(z);
  return 0;
}
