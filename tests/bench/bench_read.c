/* Reading benchmark (the ETL issue): iterates every event of an ETL, in file
 * order and in time order, and in the same run reads the same file in the
 * same 1 MiB chunks computing zlib's crc32 (a "touch every byte once"
 * reference).  Prints MB/s, events/s and the ratios.  Peak memory is taken
 * by the caller with /usr/bin/time -v.
 *
 * Usage: bench_read FILE.etl */
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/os/os_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

static double seconds_since(uint64_t t0)
{
  return (double)(os_time_monotonic_ns() - t0) / 1e9;
}

static int iterate(const char *path, int time_order, uint64_t *events, uint64_t *sum)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  int rc;
  if (byte_source_open_file(&io, path) != 0)
    return -1;
  rc = etl_reader_open(&r, &io, path);
  if (!rc && time_order)
    rc = etl_timeorder_open(&t, r);
  *events = *sum = 0;
  while (!rc && (rc = time_order ? etl_timeorder_next(t, &ev) : etl_reader_next(r, &ev)) > 0) {
    (*events)++;
    *sum += ev.timestamp ^ ev.user_len; /* use the decoded fields */
    rc = 0;
  }
  if (rc < 0)
    fprintf(stderr, "bench_read: %s\n", etl_reader_error(r));
  if (t)
    etl_timeorder_free(t);
  if (r)
    etl_reader_free(r);
  byte_source_close(&io);
  return rc;
}

int main(int argc, char **argv)
{
  static unsigned char buf[1 << 20];
  uint64_t t0, events, sum, bytes = 0;
  double crc_s, file_s, time_s, mb;
  unsigned long crc = crc32(0, NULL, 0);
  FILE *f;
  size_t n;

  if (argc != 2) {
    fprintf(stderr, "usage: bench_read FILE.etl\n");
    return 2;
  }
  t0 = os_time_monotonic_ns();
  f = fopen(argv[1], "rb");
  if (!f)
    return 1;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
    crc = crc32(crc, buf, (uInt)n);
    bytes += n;
  }
  fclose(f);
  crc_s = seconds_since(t0);
  mb = (double)bytes / 1048576.0;

  t0 = os_time_monotonic_ns();
  if (iterate(argv[1], 0, &events, &sum) < 0)
    return 1;
  file_s = seconds_since(t0);
  t0 = os_time_monotonic_ns();
  if (iterate(argv[1], 1, &events, &sum) < 0)
    return 1;
  time_s = seconds_since(t0);

  printf("input: %.0f MB, %llu events (crc %08lx, check %llx)\n", mb, (unsigned long long)events,
         crc, (unsigned long long)sum);
  printf("crc32 reference:  %7.0f MB/s\n", mb / crc_s);
  printf("file order:       %7.0f MB/s  %6.1f M events/s  ratio to crc32 %.2f\n", mb / file_s,
         (double)events / file_s / 1e6, crc_s / file_s);
  printf("time order:       %7.0f MB/s  %6.1f M events/s  ratio to crc32 %.2f\n", mb / time_s,
         (double)events / time_s / 1e6, crc_s / time_s);
  return 0;
}
