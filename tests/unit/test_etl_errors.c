/* Bad input never crashes the reader and always gives a clear error that
 * names the file and the byte offset: non-ETL bytes, every truncation of a
 * valid file, every single-byte corruption, impossible sizes, bad
 * compressed data, and failed allocations.  (ASan/UBSan make "no crash"
 * mean something.) */
#include "tests/fakes/test_support.h"

#include "tests/unit/test_etl_bytes.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/byte_source.h"
#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

static uint8_t image[1024 + 2048];
static uint8_t work[sizeof(image)];

/* Header buffer (1 KiB) + one 2 KiB buffer with an EVENT_HEADER64 event
 * carrying one extended item, and a SYSTEM64 event. */
static size_t build(void)
{
  uint8_t *b0 = image, *b1 = image + 1024, *r;
  uint32_t size = tb_logfile_event(b0, 72, 1, 10, 10000000, INT64_C(132000000000000000), 2,
                                   1, 1, 2);
  uint32_t pos = 72;
  tb_buffer(b0, 1024, 72 + TB_ALIGN8(size), 0, 0, 0x20, 4);
  tb_logfile_event(b0, 72, 1, 10, 10000000, INT64_C(132000000000000000), 2, 1, 1, 2);
  tb_buffer(b1, 2048, 0, 1, 1, 0x20, 0);
  r = b1 + pos;
  memset(r, 0, 0x50 + 16 + 4);
  tb16(r, 0x50 + 16 + 4);
  r[2] = 0x13;
  r[3] = 0xC0;
  tb16(r + 4, 1);
  tb64(r + 16, 20);
  tb16(r + 0x50, 16); /* TS_ID item: 4 data bytes, padded to 16 */
  tb16(r + 0x52, 3);
  tb16(r + 0x54, 0);
  tb16(r + 0x56, 4);
  memcpy(r + 0x60, "data", 4);
  pos += TB_ALIGN8(0x50 + 16 + 4);
  r = b1 + pos;
  memset(r, 0, 0x24);
  tb16(r, 2);
  r[2] = 0x02;
  r[3] = 0xC0;
  tb16(r + 4, 0x24);
  tb16(r + 6, 0x0301);
  tb64(r + 16, 30);
  pos += TB_ALIGN8(0x24);
  tb32(b1 + 0x30, pos);
  tb32(b1 + 0x04, pos);
  return sizeof(image);
}

/* Opens and reads everything, in file order and in time order; returns
 * the first error and copies the message. */
static int read_everything(const uint8_t *data, size_t len, char *msg, size_t cap,
                           unsigned *events)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  int rc;
  *events = 0;
  msg[0] = '\0';
  rc = byte_source_open_memory(&io, data, len);
  if (rc)
    return rc;
  rc = etl_reader_open(&r, &io, "bad.etl");
  while (rc == 0 && (rc = etl_reader_next(r, &ev)) == 1) {
    (*events)++;
    rc = 0;
  }
  if (rc == 0) {
    rc = etl_timeorder_open(&t, r);
    while (rc == 0 && (rc = etl_timeorder_next(t, &ev)) == 1)
      rc = 0;
  }
  if (r)
    snprintf(msg, cap, "%s", etl_reader_error(r));
  etl_timeorder_free(t);
  etl_reader_free(r);
  byte_source_close(&io);
  return rc;
}

static void the_valid_file_reads(void **state)
{
  char msg[600];
  unsigned n;
  (void)state;
  assert_int_equal(read_everything(image, build(), msg, sizeof(msg), &n), 0);
  assert_int_equal(n, 3);
}

static void text_is_not_an_etl_file(void **state)
{
  static const char text[] =
    "This is a plain text file that someone passed to etwcap dump by mistake. "
    "It is long enough to hold a buffer header, but it is not one.\n";
  char msg[600];
  unsigned n;
  (void)state;
  assert_int_equal(read_everything((const uint8_t *)text, sizeof(text), msg, sizeof(msg), &n),
                   ETWCAP_E_FORMAT);
  assert_non_null(strstr(msg, "not an ETL file"));
  assert_non_null(strstr(msg, "bad.etl"));
  assert_non_null(strstr(msg, "byte offset"));
  assert_int_equal(read_everything((const uint8_t *)text, 10, msg, sizeof(msg), &n),
                   ETWCAP_E_FORMAT);
  assert_int_equal(read_everything((const uint8_t *)text, 0, msg, sizeof(msg), &n),
                   ETWCAP_E_FORMAT);
}

/* A buffer header that is fine but whose first event is not the logfile
 * header. */
static void missing_logfile_header_is_not_an_etl_file(void **state)
{
  char msg[600];
  unsigned n;
  size_t len = build();
  (void)state;
  tb16(image + 72 + 6, 0x0301);
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_FORMAT);
  assert_non_null(strstr(msg, "byte offset 72 "));
}

static void every_truncation_is_an_error_not_a_crash(void **state)
{
  size_t len = build(), cut;
  char msg[600];
  unsigned n;
  (void)state;
  for (cut = 0; cut < len; cut++) {
    int rc;
    memcpy(work, image, cut);
    rc = read_everything(work, cut, msg, sizeof(msg), &n);
    assert_true(rc == ETWCAP_E_FORMAT || rc == ETWCAP_E_TRUNCATED);
    assert_non_null(strstr(msg, "bad.etl"));
    assert_non_null(strstr(msg, "byte offset"));
  }
  /* Cut inside the second buffer: the message says where the file ends. */
  assert_int_equal(read_everything(image, 1500, msg, sizeof(msg), &n), ETWCAP_E_TRUNCATED);
  assert_non_null(strstr(msg, "buffer 1"));
  /* Cut at a buffer boundary: BuffersWritten says 2. */
  assert_int_equal(read_everything(image, 1024, msg, sizeof(msg), &n), ETWCAP_E_TRUNCATED);
  assert_non_null(strstr(msg, "byte offset 1024 "));
}

static void every_byte_corruption_is_handled(void **state)
{
  size_t len = build(), i;
  static const uint8_t values[] = { 0x00, 0xFF, 0x80, 0x7F, 0x01 };
  char msg[600];
  unsigned n, v;
  (void)state;
  for (i = 0; i < len; i++) {
    for (v = 0; v < sizeof(values); v++) {
      int rc;
      memcpy(work, image, len);
      work[i] = values[v];
      rc = read_everything(work, len, msg, sizeof(msg), &n);
      assert_true(rc <= 0);
      if (rc < 0) {
        assert_true(rc == ETWCAP_E_FORMAT || rc == ETWCAP_E_CORRUPT ||
                    rc == ETWCAP_E_TRUNCATED || rc == ETWCAP_E_UNSUPPORTED);
        assert_non_null(strstr(msg, "byte offset"));
      }
    }
  }
}

static void impossible_sizes_are_corrupt(void **state)
{
  char msg[600];
  unsigned n;
  size_t len;
  (void)state;
  len = build();
  tb16(image + 1024 + 72, 0x7000); /* event size far past the filled end */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "byte offset 1096 "));
  assert_non_null(strstr(msg, "past the filled end"));

  len = build();
  tb16(image + 1024 + 72 + 0x50, 4); /* extended item smaller than its head */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "extended data item"));

  len = build();
  tb32(image + 1024 + 0x30, 4000); /* filled beyond the buffer */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "byte offset 1072 "));

  len = build();
  tb32(image + 1024, 0x7FFFFFFF); /* BufferSize */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_CORRUPT);

  len = build();
  tb32(image + 1024, 8192); /* BufferSize past the end of the file */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_TRUNCATED);
}

/* Compressed buffers (docs/etl.md §6): the format comes from buffer 0's State.
 * A plain LZ77 stream of literals only: a 32-bit flag word per 32 items,
 * bit 31 first, 0 = literal; a match flag with no input left ends it. */
static size_t compress_literals(const uint8_t *in, size_t n, uint8_t *out)
{
  size_t o = 0, i = 0;
  while (i <= n) {
    size_t k, group = n - i < 32 ? n - i : 32;
    uint32_t flags = group < 32 ? (uint32_t)1 << (31 - group) : 0;
    tb32(out + o, flags);
    o += 4;
    for (k = 0; k < group; k++)
      out[o++] = in[i++];
    if (group < 32)
      break;
    if (i == n) {
      tb32(out + o, 0x80000000u);
      o += 4;
      break;
    }
  }
  return o;
}

static size_t build_compressed(uint32_t format)
{
  uint8_t events[2048];
  uint32_t filled;
  size_t clen;
  build();
  /* Mark the file compressed (LogFileMode) and name the format in State. */
  tb32(image + 72 + 0x20 + 0x20, 0x04000001);
  tb32(image + 0x2C, format);
  filled = (uint32_t)image[1024 + 0x30] | (uint32_t)image[1024 + 0x31] << 8;
  memcpy(events, image + 1024 + 72, filled - 72);
  clen = compress_literals(events, filled - 72, image + 1024 + 72);
  tb32(image + 1024, (uint32_t)(72 + clen));       /* BufferSize: compressed size */
  tb16(image + 1024 + 0x34, 0x20 | 0x40);          /* PROC_INDEX | COMPRESSED */
  return 1024 + 72 + clen;
}

static void compressed_buffers_decompress(void **state)
{
  char msg[600];
  unsigned n;
  size_t len;
  (void)state;
  len = build_compressed(3);
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), 0);
  assert_int_equal(n, 3);

  len = build_compressed(9); /* no such COMPRESSION_FORMAT */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(msg, "byte offset 1024 "));

  len = build_compressed(3);
  tb32(image + 1024 + 0x30, 1000); /* claims more than the stream holds */
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "does not decompress"));
}

static void failed_allocations_are_reported_and_leak_nothing(void **state)
{
  char msg[600];
  unsigned n, i, total;
  size_t len = build();
  (void)state;
  test_fail_alloc_after(0);
  assert_int_equal(read_everything(image, len, msg, sizeof(msg), &n), 0);
  total = test_alloc_count();
  assert_true(total > 1);
  for (i = 1; i <= total; i++) {
    int rc;
    test_fail_alloc_after(i);
    rc = read_everything(image, len, msg, sizeof(msg), &n);
    test_fail_alloc_after(0);
    assert_int_equal(rc, ETWCAP_E_NOMEM);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_valid_file_reads),
    cmocka_unit_test(text_is_not_an_etl_file),
    cmocka_unit_test(missing_logfile_header_is_not_an_etl_file),
    cmocka_unit_test(every_truncation_is_an_error_not_a_crash),
    cmocka_unit_test(every_byte_corruption_is_handled),
    cmocka_unit_test(impossible_sizes_are_corrupt),
    cmocka_unit_test(compressed_buffers_decompress),
    cmocka_unit_test(failed_allocations_are_reported_and_leak_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
