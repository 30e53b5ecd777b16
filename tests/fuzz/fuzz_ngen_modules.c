/* libFuzzer target: choosing the native images that need NGEN PDBs
 * (ngen_modules.h) from arbitrary bytes, and the framework of each chosen
 * path (ngen_pdb_framework).  The input is read as a trace (an ETL or a zip
 * of them, in memory); it is also cut into events of every kind the
 * chooser reads (first byte: the kind and the pointer size, then the
 * payload), so payloads reach it without a valid file around them.  Any
 * crash, leak or sanitizer report is a bug. */
#include "etw/etl/etl_source.h"
#include "etw/event/builtin_events.h"
#include "etw/image/ngen_modules.h"
#include "src/finish/ngen_pdb.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int feed(void *ctx, const char *display, struct etl_reader *r)
{
  struct etw_event ev;
  int rc;
  (void)display;
  while ((rc = etl_reader_next(r, &ev)) > 0)
    if (ngen_modules_observe(ctx, &ev) != 0)
      return -1;
  return rc < 0 ? rc : 0;
}

/* Kernel (group, opcode) pairs the chooser reads, and ClrStackWalk. */
static const uint8_t kinds[][2] = { { 0x03, 10 }, { 0x14, 2 },  { 0x14, 3 },  { 0x05, 1 },
                                    { 0x05, 3 },  { 0x0F, 46 }, { 0x18, 32 }, { 0x18, 35 },
                                    { 0x18, 36 }, { 0x18, 38 }, { 0, 0 } };

static void feed_payloads(struct ngen_modules *m, const uint8_t *data, size_t size)
{
  while (size >= 3) {
    size_t len = data[1] | (size_t)data[2] << 8, k = data[0] % (sizeof(kinds) / 2);
    struct etw_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.pointer_size = data[0] & 0x80 ? 4 : 8;
    ev.version = data[0] & 0x40 ? 1 : 3;
    ev.pid = data[0] & 0x20 ? 0 : 1234;
    ev.has = ETW_HAS_PID_TID;
    data += 3, size -= 3;
    if (len > size)
      len = size;
    if (kinds[k][0]) {
      ev.is_kernel = 1;
      ev.group = kinds[k][0];
      ev.opcode = kinds[k][1];
      ev.hook_id = (uint16_t)(ev.group << 8 | ev.opcode);
    } else {
      ev.has |= ETW_HAS_PROVIDER | ETW_HAS_DESCRIPTOR;
      ev.provider = bi_guid_clr;
      ev.id = 82;
    }
    ev.user_data = data;
    ev.user_len = (uint32_t)len;
    if (ngen_modules_observe(m, &ev) != 0)
      return;
    data += len, size -= len;
  }
}

static void choose(struct ngen_modules *m)
{
  const char *const *paths;
  size_t n, i;
  if (ngen_modules_finish(m, &paths, &n) == 0)
    for (i = 0; i < n; i++)
      ngen_pdb_framework(paths[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct ngen_modules *m;
  char err[512];
  if (ngen_modules_new(&m) != 0)
    return 0;
  etl_source_foreach_memory(data, size, "fuzz.etl", feed, m, err, sizeof(err));
  choose(m);
  ngen_modules_free(m);
  if (ngen_modules_new(&m) != 0)
    return 0;
  feed_payloads(m, data, size);
  choose(m);
  ngen_modules_free(m);
  return 0;
}
