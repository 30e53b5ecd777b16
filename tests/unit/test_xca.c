/* The [MS-XCA] decompressors: the specification's own examples byte for
 * byte (section 3), streams assembled by hand from its layouts (sections
 * 2.3-2.5), WIM chunks compressed by wimlib (an independent LZ77+Huffman
 * encoder, tests/data/xca/README), the XPRESS buffers of real ETL files
 * (docs/etl.md §6), and bad, truncated or oversized input. */
#include "tests/fakes/test_support.h"

#include "etw/etl/xca/xca.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unzip.h>

typedef int (*decompress_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *);

/* ---- helpers ------------------------------------------------------------ */

/* Parses "3f 00 a1 ..." (any whitespace) into buf; returns the byte count. */
static size_t hex(const char *s, uint8_t *buf, size_t cap)
{
  size_t n = 0;
  while (*s) {
    unsigned v;
    if (*s == ' ' || *s == '\n') {
      s++;
      continue;
    }
    assert_true(sscanf(s, "%2x", &v) == 1);
    assert_true(n < cap);
    buf[n++] = (uint8_t)v;
    s += 2;
  }
  return n;
}

static uint16_t le16(const uint8_t *p)
{
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put16(uint8_t *p, unsigned v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
  put16(p, v & 0xFFFF);
  put16(p + 2, v >> 16);
}

static char *abc300(char *buf)
{
  int i;
  for (i = 0; i < 100; i++)
    memcpy(buf + 3 * i, "abc", 3);
  buf[300] = '\0';
  return buf;
}

/* Decompresses and checks the result equals expected[0..expected_len). */
static void expect_output(decompress_fn fn, const uint8_t *in, size_t in_len, size_t cap,
                          const void *expected, size_t expected_len)
{
  uint8_t *out = etwcap_malloc(cap ? cap : 1);
  size_t out_len = (size_t)-1;
  assert_non_null(out);
  assert_int_equal(fn(in, in_len, out, cap, &out_len), 0);
  assert_int_equal(out_len, expected_len);
  assert_memory_equal(out, expected, expected_len);
  etwcap_free(out);
}

static void expect_error(decompress_fn fn, const uint8_t *in, size_t in_len, size_t cap, int err)
{
  uint8_t *out = etwcap_malloc(cap ? cap : 1);
  size_t out_len = (size_t)-1;
  assert_non_null(out);
  assert_int_equal(fn(in, in_len, out, cap, &out_len), err);
  assert_true(out_len <= cap);
  etwcap_free(out);
}

/* Reads a whole file; NULL when it cannot be opened. */
static uint8_t *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = etwcap_malloc(n > 0 ? (size_t)n : 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* tests/data/xca/<name>, found from this file's own path (CMake compiles it
 * by absolute path); under Wine the Unix root is drive Z:.  Skips the test
 * with a message when the fixture is absent. */
static uint8_t *read_fixture(const char *name, size_t *len)
{
  char path[1024], alt[1040];
  const char *me = __FILE__;
  const char *cut = strstr(me, "unit/test_xca.c");
  uint8_t *buf;
  if (!cut) {
    print_message("[  SKIP    ] cannot locate tests/data/xca from %s\n", me);
    skip();
  }
  snprintf(path, sizeof(path), "%.*sdata/xca/%s", (int)(cut - me), me, name);
  buf = read_file(path, len);
  if (!buf && path[0] == '/') {
    snprintf(alt, sizeof(alt), "Z:%s", path);
    buf = read_file(alt, len);
  }
  if (!buf) {
    print_message("[  SKIP    ] fixture %s is absent (see tests/data/xca/README)\n", path);
    skip();
  }
  return buf;
}

/* A tiny xorshift: deterministic bytes for the robustness tests. */
static uint32_t rng_next(uint32_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* ---- Plain LZ77 ([MS-XCA] 2.4, examples 3.1) ----------------------------- */

static const char spec_plain_alphabet[] =
    "3f 00 00 00 61 62 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 73 74 75 76 77 78 79 7a";
static const char spec_plain_abc[] = "ff ff ff 1f 61 62 63 17 00 0f ff 26 01";

static void plain_spec_example_alphabet(void **state)
{
  uint8_t in[64];
  size_t n = hex(spec_plain_alphabet, in, sizeof(in));
  (void)state;
  assert_int_equal(n, 30);
  expect_output(xca_plain_lz77_decompress, in, n, 26, "abcdefghijklmnopqrstuvwxyz", 26);
  /* The stream ends itself (a match flag with no input left). */
  expect_output(xca_plain_lz77_decompress, in, n, 4096, "abcdefghijklmnopqrstuvwxyz", 26);
}

static void plain_spec_example_abc_overlapping_match(void **state)
{
  uint8_t in[32];
  char expected[301];
  size_t n = hex(spec_plain_abc, in, sizeof(in));
  (void)state;
  assert_int_equal(n, 13);
  abc300(expected);
  expect_output(xca_plain_lz77_decompress, in, n, 300, expected, 300);
  expect_output(xca_plain_lz77_decompress, in, n, 1000, expected, 300);
}

static void plain_output_capacity_is_enforced(void **state)
{
  uint8_t in[64];
  size_t n;
  (void)state;
  n = hex(spec_plain_alphabet, in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 25, ETWCAP_E_RANGE);
  expect_error(xca_plain_lz77_decompress, in, n, 0, ETWCAP_E_RANGE);
  n = hex(spec_plain_abc, in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 299, ETWCAP_E_RANGE);
  expect_error(xca_plain_lz77_decompress, in, n, 3, ETWCAP_E_RANGE);
}

static void plain_truncated_input_is_an_error(void **state)
{
  uint8_t in[64];
  size_t n, cut;
  (void)state;
  n = hex(spec_plain_alphabet, in, sizeof(in));
  for (cut = 0; cut < n; cut++)
    expect_error(xca_plain_lz77_decompress, in, cut, 64, ETWCAP_E_TRUNCATED);
  n = hex(spec_plain_abc, in, sizeof(in));
  for (cut = 0; cut < n; cut++) {
    if (cut == 7) {
      /* "abc" then a match flag with no input: 2.4.4's end of stream. */
      expect_output(xca_plain_lz77_decompress, in, cut, 400, "abc", 3);
      continue;
    }
    expect_error(xca_plain_lz77_decompress, in, cut, 400, ETWCAP_E_TRUNCATED);
  }
}

static void plain_match_before_output_start_is_corrupt(void **state)
{
  uint8_t in[32];
  size_t n;
  (void)state;
  /* First item a match (distance 1) with nothing output yet. */
  n = hex("ff ff ff ff 00 00", in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 64, ETWCAP_E_CORRUPT);
  /* "a", then distance 2 (0x0008 >> 3 = 1, + 1). */
  n = hex("ff ff ff 7f 61 08 00", in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 64, ETWCAP_E_CORRUPT);
}

static void plain_long_length_below_its_minimum_is_corrupt(void **state)
{
  uint8_t in[32];
  size_t n;
  (void)state;
  /* "a", match: length 7 -> half byte 15 -> byte 255 -> 16 bits = 21 < 15 + 7. */
  n = hex("ff ff ff 7f 61 07 00 0f ff 15 00", in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 1 << 16, ETWCAP_E_CORRUPT);
}

static void plain_two_matches_share_one_length_byte(void **state)
{
  uint8_t in[32], expected[28];
  size_t n;
  (void)state;
  /* "a", match(1, 7 + 2 + 3 = 12) takes the low half of 0x52, the next
   * match(1, 7 + 5 + 3 = 15) its high half (2.3.4 LastLengthHalfByte). */
  n = hex("ff ff ff 7f 61 07 00 52 07 00", in, sizeof(in));
  memset(expected, 'a', sizeof(expected));
  expect_output(xca_plain_lz77_decompress, in, n, 64, expected, 28);
}

static void plain_16_and_32_bit_lengths(void **state)
{
  uint8_t in[32], *expected;
  size_t n;
  (void)state;
  expected = etwcap_malloc(70001);
  assert_non_null(expected);
  memset(expected, 'a', 70001);
  /* 16 bits: value 300 = length - 3 -> 303. */
  n = hex("ff ff ff 7f 61 07 00 0f ff 2c 01", in, sizeof(in));
  expect_output(xca_plain_lz77_decompress, in, n, 304, expected, 304);
  /* 16 bits of 0, then 32 bits: 69997 = length - 3 -> 70000. */
  n = hex("ff ff ff 7f 61 07 00 0f ff 00 00 6d 11 01 00", in, sizeof(in));
  expect_output(xca_plain_lz77_decompress, in, n, 70001, expected, 70001);
  expect_error(xca_plain_lz77_decompress, in, n, 70000, ETWCAP_E_RANGE);
  /* The largest 32-bit length must not wrap anything: just too long. */
  n = hex("ff ff ff 7f 61 07 00 0f ff 00 00 ff ff ff ff", in, sizeof(in));
  expect_error(xca_plain_lz77_decompress, in, n, 70001, ETWCAP_E_RANGE);
  etwcap_free(expected);
}

/* A Plain LZ77 writer after 2.3.4's pseudocode, for streams of chosen
 * literals and matches.  The expected output of every stream it builds is
 * known independently (it is the encoder's input), so it is no oracle. */
struct plain_writer {
  uint8_t *buf;
  size_t cap, pos, flag_pos, half_byte_at;
  uint32_t flags;
  unsigned flag_count;
};

static void pw_init(struct plain_writer *w, uint8_t *buf, size_t cap)
{
  memset(w, 0, sizeof(*w));
  w->buf = buf;
  w->cap = cap;
  w->pos = 4;
}

static void pw_flag(struct plain_writer *w, unsigned bit)
{
  w->flags = w->flags << 1 | bit;
  if (++w->flag_count == 32) {
    put32(w->buf + w->flag_pos, w->flags);
    w->flag_count = 0;
    w->flag_pos = w->pos;
    w->pos += 4;
  }
}

static void pw_byte(struct plain_writer *w, unsigned v)
{
  assert_true(w->pos < w->cap);
  w->buf[w->pos++] = (uint8_t)v;
}

static void pw_literal(struct plain_writer *w, uint8_t c)
{
  pw_byte(w, c);
  pw_flag(w, 0);
}

static void pw_match(struct plain_writer *w, size_t dist, size_t len)
{
  size_t l = len - 3, o = (dist - 1) << 3;
  assert_true(dist >= 1 && dist <= 8192 && len >= 3);
  if (l < 7) {
    pw_byte(w, (unsigned)(o + l));
    pw_byte(w, (unsigned)((o + l) >> 8));
  } else {
    pw_byte(w, (unsigned)(o | 7));
    pw_byte(w, (unsigned)((o | 7) >> 8));
    l -= 7;
    if (w->half_byte_at == 0) {
      w->half_byte_at = w->pos;
      pw_byte(w, l < 15 ? (unsigned)l : 15);
    } else {
      w->buf[w->half_byte_at] |= (uint8_t)((l < 15 ? l : 15) << 4);
      w->half_byte_at = 0;
    }
    if (l >= 15) {
      l -= 15;
      if (l < 255) {
        pw_byte(w, (unsigned)l);
      } else {
        pw_byte(w, 255);
        l += 7 + 15;
        if (l < 65536) {
          pw_byte(w, (unsigned)l);
          pw_byte(w, (unsigned)(l >> 8));
        } else {
          assert_true(w->pos + 6 <= w->cap);
          put16(w->buf + w->pos, 0);
          put32(w->buf + w->pos + 2, (uint32_t)l);
          w->pos += 6;
        }
      }
    }
  }
  pw_flag(w, 1);
}

static size_t pw_finish(struct plain_writer *w)
{
  unsigned free_bits = 32 - w->flag_count;
  uint32_t f = free_bits == 32 ? 0xFFFFFFFFu
                               : (w->flags << free_bits) | ((1u << free_bits) - 1);
  put32(w->buf + w->flag_pos, f);
  return w->pos;
}

static void plain_match_copy_every_distance_and_length(void **state)
{
  static const size_t lengths[] = { 3, 4, 9, 10, 15, 16, 17, 24, 25, 31, 32, 33, 100, 287, 1000 };
  uint8_t in[128], expected[1200];
  size_t dist, li, i;
  (void)state;
  for (dist = 1; dist <= 40; dist++) {
    for (li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++) {
      struct plain_writer w;
      size_t len = lengths[li], total = dist + len, n;
      for (i = 0; i < dist; i++)
        expected[i] = (uint8_t)(i * 37 + 11);
      for (i = dist; i < total; i++)
        expected[i] = expected[i - dist]; /* the periodic string */
      pw_init(&w, in, sizeof(in));
      for (i = 0; i < dist; i++)
        pw_literal(&w, expected[i]);
      pw_match(&w, dist, len);
      n = pw_finish(&w);
      /* Exact room (the byte loops) and plenty of room (the word copies). */
      expect_output(xca_plain_lz77_decompress, in, n, total, expected, total);
      expect_output(xca_plain_lz77_decompress, in, n, total + 100, expected, total);
    }
  }
}

/* Greedy round trip through the writer: text, zero runs longer than the
 * 16-bit length field, random bytes, and long periodic stretches. */
static void plain_round_trips_through_a_spec_encoder(void **state)
{
  size_t plain_len, n, i, pos = 0;
  uint8_t *text = read_fixture("wimlib_sample.txt", &plain_len);
  size_t total = plain_len + 70000 + 5000 + 3000;
  uint8_t *data = etwcap_malloc(total), *packed = etwcap_malloc(total * 2 + 64);
  uint32_t seed = 12345;
  struct plain_writer w;
  (void)state;
  assert_non_null(data);
  assert_non_null(packed);
  memcpy(data, text, plain_len);
  memset(data + plain_len, 0, 70000);
  for (i = 0; i < 5000; i++)
    data[plain_len + 70000 + i] = (uint8_t)rng_next(&seed);
  for (i = 0; i < 3000; i++)
    data[plain_len + 75000 + i] = (uint8_t)"0123456789abc"[i % 13];

  pw_init(&w, packed, total * 2 + 64);
  while (pos < total) {
    size_t best_len = 0, best_dist = 0, d;
    /* Brute force over a few distances is plenty for a test. */
    for (d = 1; d <= 8192 && d <= pos; d = d < 64 ? d + 1 : d * 2 + 1) {
      size_t l = 0;
      while (pos + l < total && data[pos + l] == data[pos + l - d])
        l++;
      if (l > best_len) {
        best_len = l;
        best_dist = d;
      }
    }
    if (best_len >= 3) {
      pw_match(&w, best_dist, best_len);
      pos += best_len;
    } else {
      pw_literal(&w, data[pos++]);
    }
  }
  n = pw_finish(&w);
  expect_output(xca_plain_lz77_decompress, packed, n, total, data, total);
  expect_output(xca_plain_lz77_decompress, packed, n, total + 4096, data, total);
  expect_error(xca_plain_lz77_decompress, packed, n, total - 1, ETWCAP_E_RANGE);
  etwcap_free(text);
  etwcap_free(data);
  etwcap_free(packed);
}

/* ---- real compressed ETL buffers (docs/etl.md §6) ------------------------ */

#define ETL_BUFFER_HEADER 72
#define ETL_BUFFER_FLAG_COMPRESSED 0x40

/* Walks the events of a decompressed buffer (docs/etl.md §4.2: each
 * starts on an 8-byte boundary, Size at @4 for the system/compact/perfinfo
 * headers, else at @0) and returns where the walk ends: the whole buffer
 * when the decompressed bytes are real events. */
static size_t walk_events(const uint8_t *p, size_t len)
{
  size_t e = 0;
  while (len - e >= 8) {
    unsigned type = p[e + 2], size;
    if (p[e + 3] != 0xC0)
      break; /* TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE */
    size = (type <= 4 || type == 0x10 || type == 0x11) ? le16(p + e + 4) : le16(p + e);
    if (size < 8 || size > len - e)
      break;
    e += ((size_t)size + 7) & ~(size_t)7;
    if (e > len)
      e = len;
  }
  return e;
}

/* Decompresses every XPRESS buffer of an ETL image; returns how many. */
static unsigned check_etl_buffers(const uint8_t *etl, size_t etl_len, unsigned *expect_sizes,
                                  unsigned n_expect)
{
  uint8_t *out = etwcap_malloc(1 << 20);
  size_t pos = 0;
  unsigned count = 0;
  assert_non_null(out);
  /* Buffer 0 is the uncompressed header buffer; State & 0xFFFF there names
   * the format: 3 = XPRESS (Plain LZ77). */
  assert_true(etl_len >= ETL_BUFFER_HEADER);
  assert_int_equal(le32(etl + 0x2C) & 0xFFFF, 3);
  while (etl_len - pos >= ETL_BUFFER_HEADER) {
    const uint8_t *b = etl + pos;
    uint32_t size = le32(b), offset = le32(b + 0x30);
    if (size == 0)
      break;
    assert_true(size >= ETL_BUFFER_HEADER && size <= etl_len - pos);
    if (le16(b + 0x34) & ETL_BUFFER_FLAG_COMPRESSED) {
      size_t out_len = 0;
      /* BufferSize is the on-disk (compressed) size; Offset the filled
       * size uncompressed, header included. */
      assert_true(offset > ETL_BUFFER_HEADER && offset - ETL_BUFFER_HEADER <= (1u << 20));
      assert_int_equal(xca_plain_lz77_decompress(b + ETL_BUFFER_HEADER, size - ETL_BUFFER_HEADER,
                                                 out, 1u << 20, &out_len),
                       0);
      assert_int_equal(out_len, offset - ETL_BUFFER_HEADER);
      if (count < n_expect)
        assert_int_equal(out_len, expect_sizes[count]);
      assert_int_equal(walk_events(out, out_len), out_len);
      /* With exactly the room the header promises, too. */
      assert_int_equal(xca_plain_lz77_decompress(b + ETL_BUFFER_HEADER, size - ETL_BUFFER_HEADER,
                                                 out, out_len, &out_len),
                       0);
      count++;
    }
    pos += size;
  }
  etwcap_free(out);
  return count;
}

static void plain_decompresses_real_etl_buffers(void **state)
{
  char path[1024];
  size_t len;
  uint8_t *etl;
  /* Offset 7168 and 240 in the two compressed buffers' headers. */
  unsigned sizes[] = { 7168 - ETL_BUFFER_HEADER, 240 - ETL_BUFFER_HEADER };
  (void)state;
  test_sample_path("ms-perfview__SelfDescribingSingleEvent.etl", path, sizeof(path));
  etl = read_file(path, &len);
  assert_non_null(etl);
  assert_int_equal(check_etl_buffers(etl, len, sizes, 2), 2);
  etwcap_free(etl);
}

static void plain_decompresses_every_buffer_of_a_large_trace(void **state)
{
  char path[1024];
  unzFile zip;
  unz_file_info64 info;
  uint8_t *etl;
  (void)state;
  test_sample_path("ms-perfview__net.4.5.2.x64.etl.zip", path, sizeof(path));
  zip = unzOpen64(path);
  assert_non_null(zip);
  assert_int_equal(unzLocateFile(zip, "net.4.5.2.x64.etl", 0), UNZ_OK);
  assert_int_equal(unzGetCurrentFileInfo64(zip, &info, NULL, 0, NULL, 0, NULL, 0), UNZ_OK);
  etl = etwcap_malloc((size_t)info.uncompressed_size);
  assert_non_null(etl);
  assert_int_equal(unzOpenCurrentFile(zip), UNZ_OK);
  assert_int_equal(unzReadCurrentFile(zip, etl, (unsigned)info.uncompressed_size),
                   (int)info.uncompressed_size);
  unzCloseCurrentFile(zip);
  unzClose(zip);
  /* docs/etl.md §6: 359 compressed buffers (all but the header). */
  assert_int_equal(check_etl_buffers(etl, (size_t)info.uncompressed_size, NULL, 0), 359);
  etwcap_free(etl);
}

/* ---- LZ77+Huffman ([MS-XCA] 2.2, examples 3.2) --------------------------- */

/* The section 3.2 examples, as printed there. */
static const char spec_huff_alphabet[] =
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 50 55 55 55 55 55 55 55 55 55 55 45 44 04\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 d8 52 3e d7 94 11 5b e9 19 5f f9 d6 7c df 8d 04 00 00 00 00";

static const char spec_huff_abc[] =
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 30 23 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 20 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
    "00 00 00 00 00 00 00 00 a8 dc 00 00 ff 26 01";

static void huffman_spec_example_alphabet(void **state)
{
  uint8_t in[300];
  size_t n = hex(spec_huff_alphabet, in, sizeof(in));
  (void)state;
  assert_int_equal(n, 276);
  expect_output(xca_lz77_huffman_decompress, in, n, 26, "abcdefghijklmnopqrstuvwxyz", 26);
  /* More room than data: the end-of-data symbol ends it. */
  expect_output(xca_lz77_huffman_decompress, in, n, 4096, "abcdefghijklmnopqrstuvwxyz", 26);
}

static void huffman_spec_example_abc_long_match(void **state)
{
  uint8_t in[300];
  char expected[301];
  size_t n = hex(spec_huff_abc, in, sizeof(in));
  (void)state;
  assert_int_equal(n, 263);
  abc300(expected);
  expect_output(xca_lz77_huffman_decompress, in, n, 300, expected, 300);
  expect_output(xca_lz77_huffman_decompress, in, n, 1000, expected, 300);
}

static void huffman_output_capacity_is_enforced(void **state)
{
  uint8_t in[300];
  size_t n;
  (void)state;
  n = hex(spec_huff_alphabet, in, sizeof(in));
  expect_error(xca_lz77_huffman_decompress, in, n, 25, ETWCAP_E_RANGE);
  expect_error(xca_lz77_huffman_decompress, in, n, 0, ETWCAP_E_RANGE);
  n = hex(spec_huff_abc, in, sizeof(in));
  expect_error(xca_lz77_huffman_decompress, in, n, 299, ETWCAP_E_RANGE);
}

/* Every prefix either fails or, where only the final zero padding is cut,
 * still gives exactly the right bytes: never wrong output with success. */
static void huffman_truncated_input_never_gives_wrong_output(void **state)
{
  uint8_t in[300], out[64];
  size_t n, cut;
  (void)state;
  n = hex(spec_huff_alphabet, in, sizeof(in));
  for (cut = 0; cut < n; cut++) {
    size_t out_len = 0;
    int rc = xca_lz77_huffman_decompress(in, cut, out, 26, &out_len);
    if (cut < 256 + 4) {
      assert_int_equal(rc, ETWCAP_E_TRUNCATED);
      continue;
    }
    if (rc == 0) {
      assert_int_equal(out_len, 26);
      assert_memory_equal(out, "abcdefghijklmnopqrstuvwxyz", 26);
      assert_true(cut >= n - 4); /* only the flushed zero words missing */
    } else {
      assert_int_equal(rc, ETWCAP_E_TRUNCATED);
    }
  }
}

static void huffman_bad_code_lengths_are_corrupt(void **state)
{
  uint8_t in[300];
  (void)state;
  /* No symbol at all. */
  memset(in, 0, sizeof(in));
  expect_error(xca_lz77_huffman_decompress, in, sizeof(in), 64, ETWCAP_E_CORRUPT);
  /* Over-full: every symbol 1 bit long. */
  memset(in, 0x11, 256);
  expect_error(xca_lz77_huffman_decompress, in, sizeof(in), 64, ETWCAP_E_CORRUPT);
  /* Under-full: one symbol of 1 bit. */
  memset(in, 0, 256);
  in[48] = 0x10; /* 'a' */
  expect_error(xca_lz77_huffman_decompress, in, sizeof(in), 64, ETWCAP_E_CORRUPT);
}

static void huffman_match_before_output_start_is_corrupt(void **state)
{
  uint8_t in[256 + 8];
  (void)state;
  /* Symbols 256 and 257, one bit each: code 0 is a match (length 3,
   * distance 1) with no output yet; more words follow, so it is no end. */
  memset(in, 0, sizeof(in));
  in[128] = 0x11;
  expect_error(xca_lz77_huffman_decompress, in, sizeof(in), 64, ETWCAP_E_CORRUPT);
}

/* Hand-assembled after 2.2.4: 'a' (code 0, 1 bit), end-of-data 256 (10),
 * and match symbol 271 (11: length nibble 15, no distance bits, so
 * distance 1), whose long length sits in bytes after the two words the bit
 * register holds. */
static size_t huff_long_match_stream(uint8_t *in, const char *length_bytes)
{
  size_t n;
  memset(in, 0, 256);
  in[48] = 0x10;  /* symbol 97 'a' (odd: high half): 1 bit */
  in[128] = 0x02; /* symbol 256: 2 bits */
  in[135] = 0x20; /* symbol 271 (odd): 2 bits */
  /* Bits 0 11 10: 'a', match, end of data, then zero padding. */
  n = 256 + hex("00 70 00 00", in + 256, 4);
  return n + hex(length_bytes, in + n, 16);
}

static void huffman_16_and_32_bit_match_lengths(void **state)
{
  uint8_t in[300], *expected = etwcap_malloc(70001);
  size_t n;
  (void)state;
  assert_non_null(expected);
  memset(expected, 'a', 70001);
  /* Byte 255 then 16 bits: 300 = length - 3. */
  n = huff_long_match_stream(in, "ff 2c 01");
  expect_output(xca_lz77_huffman_decompress, in, n, 304, expected, 304);
  expect_output(xca_lz77_huffman_decompress, in, n, 1000, expected, 304);
  /* Byte 255, 16 bits of 0, then 32 bits: 69997 = length - 3.  The match
   * runs past the 64 KiB block; no input is left for another block. */
  n = huff_long_match_stream(in, "ff 00 00 6d 11 01 00");
  expect_output(xca_lz77_huffman_decompress, in, n, 70001, expected, 70001);
  expect_error(xca_lz77_huffman_decompress, in, n, 70000, ETWCAP_E_RANGE);
  /* 16 bits below 15 could have been said in the symbol: corrupt. */
  n = huff_long_match_stream(in, "ff 0e 00");
  expect_error(xca_lz77_huffman_decompress, in, n, 1000, ETWCAP_E_CORRUPT);
  n = huff_long_match_stream(in, "ff 00 00 6d 11");
  expect_error(xca_lz77_huffman_decompress, in, n, 70001, ETWCAP_E_TRUNCATED);
  etwcap_free(expected);
}

/* Two blocks: 64 KiB of literals, then 100 more under a new table read
 * where the first block's bit stream stops (2.2.4: CurrentPosition, past
 * the words the register holds).  Every literal has an 8-bit code, equal to
 * its value (canonical order), so the stream is the bytes themselves,
 * paired into little-endian 16-bit words. */
static void huffman_second_block_starts_after_the_first(void **state)
{
  const size_t total = 65536 + 100;
  uint8_t *in = etwcap_malloc(2 * 256 + total + 16), *expected = etwcap_malloc(total);
  size_t n = 0, i;
  (void)state;
  assert_non_null(in);
  assert_non_null(expected);
  for (i = 0; i < total; i++)
    expected[i] = (uint8_t)(i * 31 + 7);
  for (i = 0; i < total; i += 2) {
    if (i == 0 || i == 65536) {
      if (i)
        n += hex("00 00", in + n, 2); /* the flushed word the register holds */
      memset(in + n, 0x88, 128);        /* symbols 0..255: 8 bits */
      memset(in + n + 128, 0, 128);
      n += 256;
    }
    in[n++] = expected[i + 1];
    in[n++] = expected[i];
  }
  n += hex("00 00", in + n, 2);
  expect_output(xca_lz77_huffman_decompress, in, n, total, expected, total);
  expect_error(xca_lz77_huffman_decompress, in, n, 65536, ETWCAP_E_RANGE);
  etwcap_free(in);
  etwcap_free(expected);
}

static void huffman_decodes_wimlib_chunks(void **state)
{
  size_t plain_len, c0_len, c1_len;
  uint8_t *plain = read_fixture("wimlib_sample.txt", &plain_len);
  uint8_t *c0 = read_fixture("wimlib_chunk0.xpress", &c0_len);
  uint8_t *c1 = read_fixture("wimlib_chunk1.xpress", &c1_len);
  (void)state;
  /* WIM XPRESS: 32 KiB chunks, each an independent LZ77+Huffman stream. */
  assert_int_equal(plain_len, 34400);
  expect_output(xca_lz77_huffman_decompress, c0, c0_len, 32768, plain, 32768);
  expect_output(xca_lz77_huffman_decompress, c1, c1_len, plain_len - 32768, plain + 32768,
                plain_len - 32768);
  expect_output(xca_lz77_huffman_decompress, c1, c1_len, 65536, plain + 32768,
                plain_len - 32768);
  expect_error(xca_lz77_huffman_decompress, c0, c0_len, 32767, ETWCAP_E_RANGE);
  etwcap_free(plain);
  etwcap_free(c0);
  etwcap_free(c1);
}

static void huffman_table_allocation_failure_is_nomem(void **state)
{
  uint8_t in[300], out[32];
  size_t n = hex(spec_huff_alphabet, in, sizeof(in)), out_len = 99;
  (void)state;
  test_fail_alloc_after(1);
  assert_int_equal(xca_lz77_huffman_decompress(in, n, out, sizeof(out), &out_len),
                   ETWCAP_E_NOMEM);
  test_fail_alloc_after(0);
  etwcap_set_allocator(NULL);
  assert_int_equal(out_len, 0);
}

/* ---- LZNT1 ([MS-XCA] 2.5, example 3.3) ----------------------------------- */

static const char spec_lznt1[] = "38 b0 88 46 23 20 00 20 47 20 41 00 10 a2 47 01 a0 45 20 44 00 08 "
                                 "45 01 50 79 00 c0 45 20 05 24 13 88 05 b4 02 4a 44 ef 03 58 02 8c "
                                 "09 16 01 48 45 00 be 00 9e 00 04 01 18 90 00";
/* 142 bytes with the terminal NUL. */
static const char spec_lznt1_text[] =
    "F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# E D D E E F# D E "
    "F# G F# D E F# G F# E D E A F# F# G A A G F# E D D E F# E D D";

static void lznt1_spec_example(void **state)
{
  uint8_t in[64];
  size_t n = hex(spec_lznt1, in, sizeof(in));
  (void)state;
  assert_int_equal(n, 59);
  assert_int_equal(sizeof(spec_lznt1_text), 142);
  expect_output(xca_lznt1_decompress, in, n, 142, spec_lznt1_text, 142);
  expect_output(xca_lznt1_decompress, in, n, 8192, spec_lznt1_text, 142);
}

static void lznt1_end_of_buffer_header_stops_decoding(void **state)
{
  uint8_t in[80];
  size_t n = hex(spec_lznt1, in, sizeof(in));
  (void)state;
  memcpy(in + n, "\0\0garbage", 9);
  expect_output(xca_lznt1_decompress, in, n + 9, 8192, spec_lznt1_text, 142);
}

static void lznt1_output_capacity_is_enforced(void **state)
{
  uint8_t in[64];
  size_t n = hex(spec_lznt1, in, sizeof(in));
  (void)state;
  expect_error(xca_lznt1_decompress, in, n, 141, ETWCAP_E_RANGE);
  expect_error(xca_lznt1_decompress, in, n, 0, ETWCAP_E_RANGE);
}

static void lznt1_truncated_input_is_an_error(void **state)
{
  uint8_t in[64];
  size_t n = hex(spec_lznt1, in, sizeof(in)), cut;
  (void)state;
  expect_output(xca_lznt1_decompress, in, 0, 16, "", 0);
  for (cut = 1; cut < n; cut++)
    expect_error(xca_lznt1_decompress, in, cut, 256, ETWCAP_E_TRUNCATED);
}

static void lznt1_stored_and_compressed_chunks_in_sequence(void **state)
{
  uint8_t in[160];
  char expected[300];
  size_t n;
  (void)state;
  /* A stored chunk: bit 15 clear, signature 3, 7 - 3 = 4: "hello". */
  n = hex("04 30 68 65 6c 6c 6f", in, sizeof(in));
  expect_output(xca_lznt1_decompress, in, n, 5, "hello", 5);
  /* Then the example twice: each chunk starts its own window. */
  n += hex(spec_lznt1, in + n, sizeof(in) - n);
  n += hex(spec_lznt1, in + n, sizeof(in) - n);
  memcpy(expected, "hello", 5);
  memcpy(expected + 5, spec_lznt1_text, 142);
  memcpy(expected + 147, spec_lznt1_text, 142);
  expect_output(xca_lznt1_decompress, in, n, 289, expected, 289);
}

static void lznt1_bad_headers_and_words_are_corrupt(void **state)
{
  uint8_t in[64];
  size_t n;
  (void)state;
  n = hex(spec_lznt1, in, sizeof(in));
  in[1] = 0xa0; /* signature 2 */
  expect_error(xca_lznt1_decompress, in, n, 256, ETWCAP_E_CORRUPT);
  /* A compressed chunk whose first element is a word: nothing to copy. */
  n = hex("02 b0 01 00 00", in, sizeof(in));
  expect_error(xca_lznt1_decompress, in, n, 256, ETWCAP_E_CORRUPT);
  /* A word cut by the chunk's end: "a", then one byte of a word. */
  n = hex("02 b0 02 61 00", in, sizeof(in));
  expect_error(xca_lznt1_decompress, in, n, 256, ETWCAP_E_CORRUPT);
}

/* 2.5.1.4: the displacement field is M bits, M the largest in 4..12 with
 * 2^(M-1) < U, else 4.  For U around each power of two, a chunk of U
 * literals then one word reaching back exactly U bytes (to the chunk's
 * start), and one reaching U + 1 (corrupt). */
static void lznt1_word_split_follows_output_position(void **state)
{
  static const size_t us[] = { 1, 8, 9, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257,
                               512, 513, 1024, 1025, 2048, 2049, 3500 };
  uint8_t *in = etwcap_malloc(8192), expected[4200];
  size_t k;
  (void)state;
  assert_non_null(in);
  for (k = 0; k < sizeof(us) / sizeof(us[0]); k++) {
    size_t u = us[k], len = 8, i, n = 2, m = 4, flag_at = 0;
    int bad;
    for (i = 0; i < u; i++)
      expected[i] = (uint8_t)(i * 37 + 11);
    for (i = u; i < u + len; i++)
      expected[i] = expected[i - u]; /* the word repeats what it writes */
    while (m < 12 && ((size_t)1 << m) < u) /* 2^((m+1)-1) < U: m+1 also fits */
      m++;
    for (bad = 0; bad <= 1; bad++) {
      size_t disp = u + (size_t)bad;
      n = 2;
      for (i = 0; i < u; i++) {
        if (i % 8 == 0) {
          flag_at = n;
          in[n++] = 0;
        }
        in[n++] = expected[i];
      }
      if (u % 8 == 0) {
        flag_at = n;
        in[n++] = 0;
      }
      in[flag_at] |= (uint8_t)(1u << (u % 8));
      if ((disp - 1) >> m) {
        /* U + 1 does not fit the field: nothing to prove for this U. */
        continue;
      }
      put16(in + n, (unsigned)((disp - 1) << (16 - m) | (len - 3)));
      n += 2;
      put16(in, 0xB000 | (unsigned)(n - 3));
      if (bad)
        expect_error(xca_lznt1_decompress, in, n, sizeof(expected), ETWCAP_E_CORRUPT);
      else
        expect_output(xca_lznt1_decompress, in, n, sizeof(expected), expected, u + len);
    }
  }
  etwcap_free(in);
}

/* ---- all three: arbitrary bytes never crash -------------------------------- */

static void random_input_never_escapes_the_buffers(void **state)
{
  static const decompress_fn fns[] = { xca_plain_lz77_decompress, xca_lz77_huffman_decompress,
                                       xca_lznt1_decompress };
  uint8_t in[1024], *out = etwcap_malloc(4096);
  uint32_t seed = 0x2545F491;
  unsigned round;
  (void)state;
  assert_non_null(out);
  for (round = 0; round < 3000; round++) {
    size_t len = rng_next(&seed) % sizeof(in), cap = rng_next(&seed) % 4096, i, out_len;
    unsigned f = round % 3;
    int rc;
    for (i = 0; i < len; i++)
      in[i] = (uint8_t)rng_next(&seed);
    if (f == 1 && len > 256 && (round & 4)) {
      /* Give LZ77+Huffman a valid table (9 bits for every literal and the
       * first 256 match symbols) so its decoder runs, not just the check. */
      memset(in, 0x99, 256);
    }
    if (f == 2 && len > 2)
      in[1] = (uint8_t)((in[1] & 0x8F) | 0x30); /* signature 3 */
    rc = fns[f](in, len, out, cap, &out_len);
    assert_true(rc == 0 || rc == ETWCAP_E_TRUNCATED || rc == ETWCAP_E_CORRUPT ||
                rc == ETWCAP_E_RANGE);
    assert_true(out_len <= cap);
  }
  etwcap_free(out);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(plain_spec_example_alphabet),
    cmocka_unit_test(plain_spec_example_abc_overlapping_match),
    cmocka_unit_test(plain_output_capacity_is_enforced),
    cmocka_unit_test(plain_truncated_input_is_an_error),
    cmocka_unit_test(plain_match_before_output_start_is_corrupt),
    cmocka_unit_test(plain_long_length_below_its_minimum_is_corrupt),
    cmocka_unit_test(plain_two_matches_share_one_length_byte),
    cmocka_unit_test(plain_16_and_32_bit_lengths),
    cmocka_unit_test(plain_match_copy_every_distance_and_length),
    cmocka_unit_test(plain_round_trips_through_a_spec_encoder),
    cmocka_unit_test(plain_decompresses_real_etl_buffers),
    cmocka_unit_test(plain_decompresses_every_buffer_of_a_large_trace),
    cmocka_unit_test(huffman_spec_example_alphabet),
    cmocka_unit_test(huffman_spec_example_abc_long_match),
    cmocka_unit_test(huffman_output_capacity_is_enforced),
    cmocka_unit_test(huffman_truncated_input_never_gives_wrong_output),
    cmocka_unit_test(huffman_bad_code_lengths_are_corrupt),
    cmocka_unit_test(huffman_match_before_output_start_is_corrupt),
    cmocka_unit_test(huffman_16_and_32_bit_match_lengths),
    cmocka_unit_test(huffman_second_block_starts_after_the_first),
    cmocka_unit_test(huffman_decodes_wimlib_chunks),
    cmocka_unit_test(huffman_table_allocation_failure_is_nomem),
    cmocka_unit_test(lznt1_spec_example),
    cmocka_unit_test(lznt1_end_of_buffer_header_stops_decoding),
    cmocka_unit_test(lznt1_output_capacity_is_enforced),
    cmocka_unit_test(lznt1_truncated_input_is_an_error),
    cmocka_unit_test(lznt1_stored_and_compressed_chunks_in_sequence),
    cmocka_unit_test(lznt1_bad_headers_and_words_are_corrupt),
    cmocka_unit_test(lznt1_word_split_follows_output_position),
    cmocka_unit_test(random_input_never_escapes_the_buffers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
