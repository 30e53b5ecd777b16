/* The global time-order iterator over hand-assembled files: a circular file
 * that wrapped (buffers in the file out of SequenceNumber order), per-CPU
 * streams interleaved, ties, and a MESSAGE without a timestamp. */
#include "test_support.h"

#include "test_etl_bytes.h"

#include "error.h"
#include "byte_source.h"
#include "etl_reader.h"
#include "etl_timeorder.h"

#include <string.h>

#define BUF 512u

static uint8_t image[BUF * 8];

/* A SYSTEM64 event, hook 0x0524, 8-byte payload holding its own timestamp. */
static uint32_t put_system(uint8_t *b, uint32_t pos, uint64_t ts)
{
  uint8_t *r = b + pos;
  memset(r, 0, 0x28);
  tb16(r, 2);
  r[2] = 0x02;
  r[3] = 0xC0;
  tb16(r + 4, 0x28);
  tb16(r + 6, 0x0524);
  tb64(r + 16, ts);
  tb64(r + 0x20, ts);
  return pos + 0x28;
}

/* A MESSAGE with OptionFlags 0 (no timestamp), 4 bytes of payload. */
static uint32_t put_message(uint8_t *b, uint32_t pos)
{
  uint8_t *r = b + pos;
  tb16(r, 12);
  r[2] = 0;
  r[3] = 0x90;
  tb16(r + 4, 1);
  tb16(r + 6, 0);
  memcpy(r + 8, "msg!", 4);
  return pos + 16;
}

/* Header buffer, then six 512-byte buffers: (cpu, seq, two timestamps) in
 * file order.  The circular file wrapped, so position and sequence
 * disagree; within a CPU the sequence order is the time order. */
static const struct {
  uint16_t cpu;
  uint64_t seq;
  uint64_t ts[2];
} bufs[] = {
  { 0, 7, { 700, 720 } }, { 1, 6, { 600, 610 } }, { 0, 3, { 300, 310 } },
  { 1, 4, { 400, 410 } }, { 0, 5, { 500, 610 } }, { 1, 8, { 800, 810 } },
};

static size_t build_wrapped(int with_message)
{
  uint32_t size, i;
  size = tb_logfile_event(image, 72, 1, 100, 10000000, INT64_C(132000000000000000), 12,
                          0x2 /* circular */, 1, 2);
  tb_buffer(image, BUF, 72 + TB_ALIGN8(size), 0, 0, 0x20, 4);
  tb_logfile_event(image, 72, 1, 100, 10000000, INT64_C(132000000000000000), 12, 0x2, 1, 2);
  for (i = 0; i < 6; i++) {
    uint8_t *b = image + BUF * (i + 1);
    uint32_t pos = 72;
    tb_buffer(b, BUF, 0, bufs[i].seq, bufs[i].cpu, 0x20, 0);
    pos = put_system(b, pos, bufs[i].ts[0]);
    if (with_message && bufs[i].seq == 4)
      pos = put_message(b, pos);
    pos = put_system(b, pos, bufs[i].ts[1]);
    tb32(b + 0x30, pos);
    tb32(b + 0x04, pos);
  }
  return BUF * 7;
}

static unsigned collect(size_t len, int time_order, uint64_t *ts, uint16_t *cpu,
                        uint16_t *type, unsigned cap)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  unsigned n = 0;
  int rc;
  assert_int_equal(byte_source_open_memory(&io, image, len), 0);
  assert_int_equal(etl_reader_open(&r, &io, "wrapped.etl"), 0);
  if (time_order)
    assert_int_equal(etl_timeorder_open(&t, r), 0);
  while ((rc = t ? etl_timeorder_next(t, &ev) : etl_reader_next(r, &ev)) == 1) {
    assert_true(n < cap);
    ts[n] = ev.timestamp;
    cpu[n] = ev.cpu;
    type[n] = (uint16_t)ev.header_type;
    /* The payload is still there: the view lives until the next call. */
    if (ev.header_type == ETW_HDR_SYSTEM64 && ev.hook_id == 0x0524) {
      assert_int_equal(ev.user_len, 8);
      assert_int_equal(ev.user_data[0], (uint8_t)ev.timestamp);
    }
    if (ev.header_type == ETW_HDR_MESSAGE)
      assert_memory_equal(ev.user_data, "msg!", 4);
    n++;
  }
  assert_int_equal(rc, 0);
  etl_timeorder_free(t);
  etl_reader_free(r);
  byte_source_close(&io);
  return n;
}

static void wrapped_circular_file_comes_out_in_time_order(void **state)
{
  uint64_t ts[32];
  uint16_t cpu[32], type[32];
  /* Ties (610 on both CPUs) go to the lower CPU. */
  static const uint64_t want[] = { 100, 300, 310, 400, 410, 500, 600,
                                   610, 610, 700, 720, 800, 810 };
  static const uint16_t want_cpu[] = { 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1 };
  unsigned n, i;
  (void)state;
  n = collect(build_wrapped(0), 1, ts, cpu, type, 32);
  assert_int_equal(n, 13);
  for (i = 0; i < n; i++) {
    assert_int_equal(ts[i], want[i]);
    assert_int_equal(cpu[i], want_cpu[i]);
  }
}

static void file_order_is_the_order_on_disk(void **state)
{
  uint64_t ts[32];
  uint16_t cpu[32], type[32];
  static const uint64_t want[] = { 100, 700, 720, 600, 610, 300, 310,
                                   400, 410, 500, 610, 800, 810 };
  unsigned n, i;
  (void)state;
  n = collect(build_wrapped(0), 0, ts, cpu, type, 32);
  assert_int_equal(n, 13);
  for (i = 0; i < n; i++)
    assert_int_equal(ts[i], want[i]);
}

/* A MESSAGE without a timestamp stays right after the event before it on
 * its CPU. */
static void message_without_timestamp_keeps_its_place(void **state)
{
  uint64_t ts[32];
  uint16_t cpu[32], type[32];
  unsigned n;
  (void)state;
  n = collect(build_wrapped(1), 1, ts, cpu, type, 32);
  assert_int_equal(n, 14);
  assert_int_equal(ts[3], 400);
  assert_int_equal(type[4], ETW_HDR_MESSAGE);
  assert_int_equal(cpu[4], 1);
  assert_int_equal(ts[5], 410);
}

/* A buffer whose events are damaged: the error surfaces from the merge with
 * the file name and offset. */
static void damaged_buffer_is_an_error(void **state)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  size_t len = build_wrapped(0);
  int rc;
  (void)state;
  image[BUF * 3 + 72 + 3] = 0x55; /* the marker of the seq-3 buffer's first event */
  assert_int_equal(byte_source_open_memory(&io, image, len), 0);
  assert_int_equal(etl_reader_open(&r, &io, "wrapped.etl"), 0);
  assert_int_equal(etl_timeorder_open(&t, r), 0);
  while ((rc = etl_timeorder_next(t, &ev)) == 1)
    ;
  assert_int_equal(rc, ETWCAP_E_CORRUPT);
  assert_non_null(strstr(etl_reader_error(r), "wrapped.etl: byte offset 1608 "));
  etl_timeorder_free(t);
  etl_reader_free(r);
  byte_source_close(&io);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(wrapped_circular_file_comes_out_in_time_order),
    cmocka_unit_test(file_order_is_the_order_on_disk),
    cmocka_unit_test(message_without_timestamp_keeps_its_place),
    cmocka_unit_test(damaged_buffer_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
