/* Plain LZ77 (XPRESS) decompression speed on real compressed ETL buffers:
 * the 359 buffers of ms-perfview__net.4.5.2.x64.etl (in its .etl.zip),
 * against two references measured in the same run on the same bytes:
 * memcpy of the decompressed buffers, and zlib's inflate of them deflated at
 * level 1.  Prints MB/s (10^6 bytes of output per second) and the ratios.
 *
 * Build by hand (release):
 *   cc -O2 -Isrc -Ietw -I/usr/include/minizip tests/bench/bench_xca.c \
 *      etw/etl/xca/xca_plain_lz77.c src/os_time_posix.c -lminizip -lz -o /tmp/bench_xca
 *   /tmp/bench_xca [SAMPLES_DIR]        (default $ETWCAP_SAMPLES or ../shared/samples) */
#include "etw/etl/xca/xca.h"
#include "src/base/os/os_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unzip.h>
#include <zlib.h>

#define SAMPLE_ZIP "ms-perfview__net.4.5.2.x64.etl.zip"
#define SAMPLE_ETL "net.4.5.2.x64.etl"
#define MIN_SECONDS 1.0

struct buffer {
  const uint8_t *in; /* compressed payload, after the 72-byte header */
  size_t in_len;
  size_t out_len; /* Offset - 72 */
  uint8_t *plain; /* the decompressed bytes (for the references) */
  uint8_t *deflated;
  size_t deflated_len;
};

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *load_etl(const char *zip_path, size_t *len)
{
  unzFile zip = unzOpen64(zip_path);
  unz_file_info64 info;
  uint8_t *etl = NULL;
  if (!zip)
    return NULL;
  if (unzLocateFile(zip, SAMPLE_ETL, 0) == UNZ_OK &&
      unzGetCurrentFileInfo64(zip, &info, NULL, 0, NULL, 0, NULL, 0) == UNZ_OK &&
      unzOpenCurrentFile(zip) == UNZ_OK) {
    etl = malloc((size_t)info.uncompressed_size);
    if (etl && unzReadCurrentFile(zip, etl, (unsigned)info.uncompressed_size) !=
                   (int)info.uncompressed_size) {
      free(etl);
      etl = NULL;
    }
    *len = (size_t)info.uncompressed_size;
    unzCloseCurrentFile(zip);
  }
  unzClose(zip);
  return etl;
}

static double seconds_since(uint64_t start)
{
  return (double)(os_time_monotonic_ns() - start) / 1e9;
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : getenv("ETWCAP_SAMPLES");
  char path[1024];
  uint8_t *etl, *out;
  size_t etl_len = 0, pos = 0, n = 0, i, total_out = 0, total_in = 0, sink = 0;
  struct buffer *bufs;
  double xca_mbs, copy_mbs, inflate_mbs;
  unsigned rounds;
  uint64_t start;

  snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "../shared/samples", SAMPLE_ZIP);
  etl = load_etl(path, &etl_len);
  if (!etl) {
    printf("bench_xca: %s not found: nothing to measure (pass the samples folder)\n", path);
    return 0;
  }
  bufs = calloc(etl_len / 72 + 1, sizeof(*bufs));
  out = malloc(1 << 20);
  if (!bufs || !out)
    return 1;
  while (etl_len - pos >= 72) {
    uint32_t size = le32(etl + pos), offset = le32(etl + pos + 0x30);
    unsigned flag = etl[pos + 0x34] | etl[pos + 0x35] << 8;
    if (size < 72 || size > etl_len - pos)
      break;
    if (flag & 0x40) {
      struct buffer *b = &bufs[n++];
      uLongf dlen;
      size_t got;
      b->in = etl + pos + 72;
      b->in_len = size - 72;
      b->out_len = offset - 72;
      b->plain = malloc(b->out_len);
      if (!b->plain || xca_plain_lz77_decompress(b->in, b->in_len, b->plain, b->out_len, &got) ||
          got != b->out_len) {
        printf("bench_xca: buffer at %zu does not decompress\n", pos);
        return 1;
      }
      dlen = compressBound((uLong)b->out_len);
      b->deflated = malloc(dlen);
      if (!b->deflated || compress2(b->deflated, &dlen, b->plain, (uLong)b->out_len, 1) != Z_OK)
        return 1;
      b->deflated_len = dlen;
      total_out += b->out_len;
      total_in += b->in_len;
    }
    pos += size;
  }

  /* XPRESS decompression, repeated until at least MIN_SECONDS. */
  start = os_time_monotonic_ns();
  rounds = 0;
  do {
    for (i = 0; i < n; i++) {
      size_t got;
      xca_plain_lz77_decompress(bufs[i].in, bufs[i].in_len, out, bufs[i].out_len, &got);
      sink += got + out[got / 2];
    }
    rounds++;
  } while (seconds_since(start) < MIN_SECONDS);
  xca_mbs = (double)total_out * rounds / 1e6 / seconds_since(start);

  start = os_time_monotonic_ns();
  rounds = 0;
  do {
    for (i = 0; i < n; i++) {
      memcpy(out, bufs[i].plain, bufs[i].out_len);
      sink += out[bufs[i].out_len / 2];
    }
    rounds++;
  } while (seconds_since(start) < MIN_SECONDS);
  copy_mbs = (double)total_out * rounds / 1e6 / seconds_since(start);

  start = os_time_monotonic_ns();
  rounds = 0;
  do {
    for (i = 0; i < n; i++) {
      uLongf got = 1 << 20;
      uncompress(out, &got, bufs[i].deflated, (uLong)bufs[i].deflated_len);
      sink += got;
    }
    rounds++;
  } while (seconds_since(start) < MIN_SECONDS);
  inflate_mbs = (double)total_out * rounds / 1e6 / seconds_since(start);

  printf("bench_xca: %zu XPRESS buffers of %s, %zu -> %zu bytes (ratio %.2f)\n", n, SAMPLE_ETL,
         total_in, total_out, (double)total_out / (double)total_in);
  printf("  plain LZ77 decompress  %8.0f MB/s of output\n", xca_mbs);
  printf("  memcpy (reference)     %8.0f MB/s   xpress/memcpy  = %.3f\n", copy_mbs,
         xca_mbs / copy_mbs);
  printf("  zlib inflate (ref.)    %8.0f MB/s   xpress/inflate = %.2f\n", inflate_mbs,
         xca_mbs / inflate_mbs);
  printf("  (checksum %zu)\n", sink);
  for (i = 0; i < n; i++) {
    free(bufs[i].plain);
    free(bufs[i].deflated);
  }
  free(bufs);
  free(out);
  free(etl);
  return 0;
}
