/* libFuzzer target: the input is a whole ETL file in memory.  Reads every
 * event in file order (formatting each as a dump line) and again in time
 * order.  Any crash, leak or sanitizer report is a bug in the reader. */
#include "etw/etl/etl_dump.h"
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/byte_source.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  char line[ETL_DUMP_LINE_MAX];
  unsigned n = 0;

  if (byte_source_open_memory(&io, data, size))
    return 0;
  if (etl_reader_open(&r, &io, "fuzz.etl") == 0) {
    while (etl_reader_next(r, &ev) == 1 && n++ < 100000)
      etl_dump_format_event(&ev, etl_reader_clock(r), line, sizeof(line));
    if (etl_timeorder_open(&t, r) == 0) {
      n = 0;
      while (etl_timeorder_next(t, &ev) == 1 && n++ < 100000)
        etl_dump_format_event(&ev, etl_reader_clock(r), line, sizeof(line));
      etl_timeorder_free(t);
    }
  }
  etl_reader_free(r);
  byte_source_close(&io);
  return 0;
}
