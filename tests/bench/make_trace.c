/* Benchmark input: writes OUT.etl holding COPIES repetitions of the events of
 * IN (an .etl, or the first .etl member of a zip whose name ends with
 * MEMBER_SUFFIX), each copy SHIFT raw ticks after the previous one (the
 * stack events' EventTimeStamp too), through
 * etwcap's own writer.  Several session files made with the same SHIFT stay
 * on one clock, so they merge like a real collection.  With --image-pids,
 * each copy's kernel Image events name other processes (ProcessId + copy
 * * 2^20), as on a machine that starts many processes loading the same
 * DLLs: each (process, base) is then new, and only the names repeat.
 *
 * Usage: make_trace [--image-pids] OUT.etl COPIES SHIFT IN [MEMBER_SUFFIX] */
#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_encode.h"
#include "etw/etl/etl_source.h"
#include "etw/etl/etl_writer.h"
#include "etw/image/image_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct job {
  const char *out, *suffix;
  unsigned long copies;
  uint64_t shift;
  int image_pids;
  int done;
};

/* The raw timestamp lives at 0x08 in PERFINFO headers and at 0x10 in the
 * others (docs/etl.md §4.2, §5); MESSAGE records are left as they are. */
static void shift_record(uint8_t *rec, uint32_t size, int header_type, uint64_t by)
{
  int perfinfo = header_type == 0x10 || header_type == 0x11;
  unsigned at = perfinfo ? 0x08 : header_type == 0x0F ? 0 : 0x10;
  if (at && size >= at + 8)
    etl_put64(rec + at, etl_le64(rec + at) + by);
  /* A StackWalk event (hook 0x1820) or stack key use (0x1825, 0x1826)
   * names its event by that event's raw timestamp, the first 8 bytes of
   * its payload (docs/stacks.md): moved with it, each copy's stacks join
   * its own samples. */
  if (perfinfo && size >= 0x18) {
    unsigned hook = etl_le16(rec + 6);
    if (hook == 0x1820 || hook == 0x1825 || hook == 0x1826)
      etl_put64(rec + 0x10, etl_le64(rec + 0x10) + by);
  }
}

struct record {
  uint16_t cpu;
  uint8_t header_type;
  uint64_t ts;
  uint32_t size;
  size_t at;         /* offset in the byte pool */
  uint32_t pid_at;   /* offset of an Image event's ProcessId in the record, or 0 */
};

static int copy_events(void *ctx, const char *display, struct etl_reader *r)
{
  struct job *j = ctx;
  struct etl_writer_config cfg;
  struct etl_writer *w;
  struct etw_event ev;
  struct record *recs = NULL;
  uint8_t *pool = NULL, rec[65536 * 16];
  size_t nrec = 0, cap = 0, pool_len = 0, pool_cap = 0, i;
  unsigned long c;
  int rc;
  size_t n = strlen(display), k = j->suffix ? strlen(j->suffix) : 0;

  if (j->done || (k && (n < k || strcmp(display + n - k, j->suffix))))
    return 0;
  /* The input is a sample of a few MB: keep its records in memory once. */
  while ((rc = etl_reader_next(r, &ev)) > 0) {
    if (ev.buffer_index == 0 || ev.raw_size > sizeof(rec))
      continue;
    if (nrec == cap) {
      cap = cap ? 2 * cap : 65536;
      recs = realloc(recs, cap * sizeof(*recs));
    }
    if (pool_len + ev.raw_size > pool_cap) {
      pool_cap = pool_cap ? 2 * pool_cap + ev.raw_size : (1 << 24);
      pool = realloc(pool, pool_cap);
    }
    if (!recs || !pool)
      return -1;
    memcpy(pool + pool_len, ev.raw, ev.raw_size);
    recs[nrec].cpu = ev.cpu;
    recs[nrec].header_type = (uint8_t)ev.header_type;
    recs[nrec].ts = ev.timestamp;
    recs[nrec].size = ev.raw_size;
    recs[nrec].at = pool_len;
    recs[nrec].pid_at = 0;
    /* Image_Load v2+: ImageBase and ImageSize (pointers), then ProcessId. */
    if (j->image_pids && image_identity_is_image_event(&ev) && ev.version >= 2 &&
        ev.user_len >= 2u * ev.pointer_size + 4)
      recs[nrec].pid_at = (uint32_t)(ev.user_data - ev.raw) + 2u * ev.pointer_size;
    pool_len += ev.raw_size;
    nrec++;
  }
  if (rc < 0)
    return rc;
  memset(&cfg, 0, sizeof(cfg));
  cfg.header = *etl_reader_logfile(r);
  cfg.buffer_size = cfg.header.buffer_size > 65536 ? cfg.header.buffer_size : 65536;
  if (etl_writer_open(&w, j->out, &cfg) != 0) {
    fprintf(stderr, "make_trace: cannot create %s\n", j->out);
    return -1;
  }
  rc = 0;
  for (c = 0; c < j->copies && !rc; c++)
    for (i = 0; i < nrec && !rc; i++) {
      memcpy(rec, pool + recs[i].at, recs[i].size);
      shift_record(rec, recs[i].size, recs[i].header_type, c * j->shift);
      if (recs[i].pid_at)
        etl_put32(rec + recs[i].pid_at, etl_le32(rec + recs[i].pid_at) + (uint32_t)(c << 20));
      rc = etl_writer_write(w, recs[i].cpu, recs[i].ts + c * j->shift, rec, recs[i].size);
    }
  if (rc) {
    etl_writer_abort(w);
  } else {
    /* The copies span COPIES * SHIFT ticks more (FILETIME units assume 10 MHz). */
    etl_writer_header(w)->end_time += (int64_t)(j->copies * j->shift);
    rc = etl_writer_finish(w);
  }
  free(recs);
  free(pool);
  j->done = 1;
  return rc;
}

int main(int argc, char **argv)
{
  struct job j;
  char err[512];
  j.image_pids = argc > 1 && !strcmp(argv[1], "--image-pids");
  argc -= j.image_pids;
  argv += j.image_pids;
  if (argc < 5) {
    fprintf(stderr, "usage: make_trace [--image-pids] OUT.etl COPIES SHIFT IN [MEMBER_SUFFIX]\n");
    return 2;
  }
  j.out = argv[1];
  j.copies = strtoul(argv[2], NULL, 10);
  j.shift = strtoull(argv[3], NULL, 10);
  j.suffix = argc > 5 ? argv[5] : NULL;
  j.done = 0;
  if (etl_source_foreach(argv[4], copy_events, &j, err, sizeof(err)) != 0 || !j.done) {
    fprintf(stderr, "make_trace: %s\n", err[0] ? err : "no matching ETL");
    return 1;
  }
  return 0;
}
