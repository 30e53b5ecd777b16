/* deflate_seal: the walk finds where a raw-deflate stream's last block
 * starts and ends, and the sealed stream is followed by another.  Expected
 * bytes are assembled by hand from RFC 1951 (3.2.3 block header, 3.2.4
 * stored block, 3.2.5 codes, 3.2.6 fixed codes); streams of every block kind
 * come from zlib, an independent encoder, and zlib's inflate judges the
 * joined result. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/zip/deflate_seal.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* zlib's raw deflate of data as one whole stream. */
static uint8_t *zlib_stream(const uint8_t *data, size_t len, int level, int strategy,
                            size_t *out_len)
{
  z_stream z;
  size_t cap = len + len / 8 + 64 + DEFLATE_SEAL_EXTRA;
  uint8_t *out = malloc(cap);
  assert_non_null(out);
  memset(&z, 0, sizeof(z));
  assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, strategy), Z_OK);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)(cap - DEFLATE_SEAL_EXTRA);
  assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
  *out_len = z.total_out;
  deflateEnd(&z);
  return out;
}

/* zlib's inflate of buf must end exactly at its end, giving `expect`. */
static void inflates_to(const uint8_t *buf, size_t len, const uint8_t *expect, size_t expect_len)
{
  z_stream z;
  uint8_t *out = malloc(expect_len + 1);
  assert_non_null(out);
  memset(&z, 0, sizeof(z));
  assert_int_equal(inflateInit2(&z, -MAX_WBITS), Z_OK);
  z.next_in = (Bytef *)buf;
  z.avail_in = (uInt)len;
  z.next_out = out;
  z.avail_out = (uInt)expect_len + 1;
  assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
  assert_int_equal(z.avail_in, 0);
  assert_int_equal(z.total_out, expect_len);
  assert_memory_equal(out, expect, expect_len);
  inflateEnd(&z);
  free(out);
}

static uint8_t *sample_data(size_t len, unsigned seed)
{
  uint8_t *d = malloc(len ? len : 1);
  uint32_t x = seed;
  size_t i;
  assert_non_null(d);
  for (i = 0; i < len; i++) {
    x = x * 1103515245u + 12345u;
    d[i] = (i / 700) % 2 ? (uint8_t)("buffer header event "[i % 20]) : (uint8_t)(x >> 24);
  }
  return d;
}

/* 3.2.6: an empty block with fixed codes is BFINAL, BTYPE 01 (bits 0..2),
 * then code 256, seven zero bits: 0x03 0x00, ending at bit 10. */
static void empty_fixed_block_by_hand(void **state)
{
  uint8_t buf[2 + DEFLATE_SEAL_EXTRA] = {0x03, 0x00};
  const uint8_t sealed[] = {0x02, 0x00, 0x00, 0x00, 0xFF, 0xFF};
  struct deflate_walk w;
  size_t len;
  (void)state;
  assert_int_equal(deflate_seal_walk(buf, 2, &w), 0);
  assert_int_equal(w.decoded, 0);
  assert_int_equal(w.final_bit, 0);
  assert_int_equal(w.end_bit, 10);
  assert_memory_equal(deflate_seal_final_block, buf, 2);
  /* BFINAL cleared; three zero bits at 10..12 and padding fill byte 1; then
   * LEN 0x0000 and NLEN 0xFFFF (3.2.4). */
  assert_int_equal(deflate_seal(buf, 2, sizeof(buf), 0, &len), 0);
  assert_int_equal(len, sizeof(sealed));
  assert_memory_equal(buf, sealed, sizeof(sealed));
}

/* 3.2.4: a final stored block of "hello": header bits 1,00 padded to a
 * byte, LEN 5, NLEN, the bytes; the stream ends at bit 80. */
static void stored_block_by_hand(void **state)
{
  /* 0xAA beyond the stream: the seal must not keep whatever follows it. */
  uint8_t buf[10 + DEFLATE_SEAL_EXTRA] = {0x01, 0x05, 0x00, 0xFA, 0xFF, 'h', 'e', 'l', 'l', 'o'};
  const uint8_t sealed[] = {0x00, 0x05, 0x00, 0xFA, 0xFF, 'h', 'e', 'l', 'l',
                            'o',  0x00, 0x00, 0x00, 0xFF, 0xFF};
  uint8_t joined[sizeof(sealed) + 2];
  struct deflate_walk w;
  size_t len;
  (void)state;
  memset(buf + 10, 0xAA, DEFLATE_SEAL_EXTRA);
  assert_int_equal(deflate_seal_walk(buf, 10, &w), 0);
  assert_int_equal(w.decoded, 5);
  assert_int_equal(w.end_bit, 80);
  assert_int_equal(deflate_seal(buf, 10, sizeof(buf), 5, &len), 0);
  assert_int_equal(len, sizeof(sealed));
  assert_memory_equal(buf, sealed, sizeof(sealed));
  memcpy(joined, buf, len);
  memcpy(joined + len, deflate_seal_final_block, 2);
  inflates_to(joined, sizeof(joined), (const uint8_t *)"hello", 5);
}

/* Every kind of block zlib writes walks to the length zlib was given. */
static void walks_every_block_kind_zlib_writes(void **state)
{
  const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED};
  const int levels[] = {0, 1, 6, 9};
  const size_t sizes[] = {0, 1, 258, 70000, 300000};
  size_t s, l, n;
  (void)state;
  for (n = 0; n < sizeof(sizes) / sizeof(sizes[0]); n++) {
    uint8_t *data = sample_data(sizes[n], (unsigned)n + 1);
    for (s = 0; s < sizeof(strategies) / sizeof(strategies[0]); s++)
      for (l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        size_t len;
        struct deflate_walk w;
        uint8_t *z = zlib_stream(data, sizes[n], levels[l], strategies[s], &len);
        assert_int_equal(deflate_seal_walk(z, len, &w), 0);
        assert_int_equal(w.decoded, sizes[n]);
        assert_true(w.end_bit <= len * 8 && w.end_bit + 8 > len * 8);
        free(z);
      }
    free(data);
  }
}

/* Chunks sealed one after another (from zlib and from libdeflate, the
 * compressor etwcap uses) and an empty final block are one stream that
 * zlib's inflate reads back to the whole input. */
static void sealed_chunks_join_into_one_stream(void **state)
{
  const size_t chunk = 50000, total = 5 * chunk + 1234;
  uint8_t *data = sample_data(total, 7);
  uint8_t *joined = malloc(total * 2 + 1024);
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
  size_t off, joined_len = 0;
  int k = 0;
  (void)state;
  assert_non_null(joined);
  assert_non_null(c);
  for (off = 0; off < total; off += chunk, k++) {
    size_t n = total - off < chunk ? total - off : chunk, len, sealed;
    size_t cap = libdeflate_deflate_compress_bound(c, n) + DEFLATE_SEAL_EXTRA;
    uint8_t *z;
    if (k % 2) {
      z = zlib_stream(data + off, n, 6, Z_DEFAULT_STRATEGY, &len);
    } else {
      z = malloc(cap);
      assert_non_null(z);
      len = libdeflate_deflate_compress(c, data + off, n, z, cap - DEFLATE_SEAL_EXTRA);
      assert_true(len > 0);
    }
    assert_int_equal(deflate_seal(z, len, len + DEFLATE_SEAL_EXTRA, n, &sealed), 0);
    memcpy(joined + joined_len, z, sealed);
    joined_len += sealed;
    free(z);
  }
  memcpy(joined + joined_len, deflate_seal_final_block, 2);
  inflates_to(joined, joined_len + 2, data, total);
  libdeflate_free_compressor(c);
  free(joined);
  free(data);
}

/* Streams that no inflater would read are refused, and left unchanged. */
static void refuses_what_zlib_refuses(void **state)
{
  /* 3.2.3: block type 3 is reserved. */
  const uint8_t reserved[] = {0x07, 0x00};
  /* 3.2.4: NLEN must be LEN's complement. */
  const uint8_t bad_nlen[] = {0x01, 0x05, 0x00, 0xFA, 0xFE, 'h', 'e', 'l', 'l', 'o'};
  /* 3.2.5: a fixed block whose first symbol is a match (code 257 = 0000001,
   * distance code 0) reaches before the start of the data. */
  const uint8_t too_far[] = {0x03, 0x02, 0x00};
  uint8_t *data = sample_data(5000, 3), copy[8192];
  struct deflate_walk w;
  size_t len, cut, sealed;
  uint8_t *z = zlib_stream(data, 5000, 6, Z_DEFAULT_STRATEGY, &len);
  (void)state;
  assert_int_equal(deflate_seal_walk(reserved, sizeof(reserved), &w), ETWCAP_E_CORRUPT);
  assert_int_equal(deflate_seal_walk(bad_nlen, sizeof(bad_nlen), &w), ETWCAP_E_CORRUPT);
  assert_int_equal(deflate_seal_walk(too_far, sizeof(too_far), &w), ETWCAP_E_CORRUPT);
  /* Every truncation of a whole stream is refused. */
  for (cut = 0; cut < len; cut++)
    assert_int_equal(deflate_seal_walk(z, cut, &w), ETWCAP_E_CORRUPT);
  /* A byte after the last block is refused. */
  memcpy(copy, z, len);
  copy[len] = 0;
  assert_int_equal(deflate_seal_walk(copy, len + 1, &w), ETWCAP_E_CORRUPT);
  /* A stream of another length than the chunk is refused, buf untouched. */
  assert_int_equal(deflate_seal(copy, len, sizeof(copy), 4999, &sealed), ETWCAP_E_CORRUPT);
  assert_memory_equal(copy, z, len);
  /* No room for the seal: refused, buf untouched. */
  assert_int_equal(deflate_seal(copy, len, len + 1, 5000, &sealed), ETWCAP_E_RANGE);
  assert_memory_equal(copy, z, len);
  free(z);
  free(data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_fixed_block_by_hand),
      cmocka_unit_test(stored_block_by_hand),
      cmocka_unit_test(walks_every_block_kind_zlib_writes),
      cmocka_unit_test(sealed_chunks_join_into_one_stream),
      cmocka_unit_test(refuses_what_zlib_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
