/* The global time-order iterator over hand-assembled files: a circular file
 * that wrapped (buffers in the file out of SequenceNumber order), per-CPU
 * streams interleaved, ties, a MESSAGE without a timestamp, and compressed
 * buffers that would expand to far more memory than the file holds. */
#include "tests/fakes/test_support.h"

#include "tests/unit/test_etl_bytes.h"

#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_timeorder.h"
#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/error.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- memory in proportion to the file ------------------------------------
 * Each CPU stream's one compressed buffer is 59 bytes of plain LZ77
 * ([MS-XCA] 2.3.4): a 40-byte event and an 0xFF as literals, then one match
 * at distance 1 whose 32-bit length fills the rest with 0xFF (the end of
 * the events).  The buffer claims `expanded` bytes once decompressed. */
#define PACKED 59u

static uint8_t packed_file[BUF + 64 * (72 + PACKED)];

static void put_packed(uint8_t *b, uint16_t cpu, uint64_t ts, uint32_t expanded)
{
  uint8_t event[0x28];
  uint8_t *p = b + 72;
  tb_buffer(b, 72 + PACKED, 72 + expanded, 1, cpu, 0x20 | 0x40 /* PROC_INDEX|COMPRESSED */, 0);
  put_system(event, 0, ts);
  tb32(p, 0); /* 32 literals */
  memcpy(p + 4, event, 32);
  tb32(p + 36, 0x007FFFFFu); /* 9 literals, the match, then the end */
  memcpy(p + 40, event + 32, 8);
  p[48] = 0xFF;
  tb16(p + 49, 7);     /* distance 1, length 7: a longer length follows */
  p[51] = 0x0F;        /* half byte 15: a byte follows */
  p[52] = 0xFF;        /* 255: 16 bits follow */
  tb16(p + 53, 0);     /* 0: 32 bits follow */
  tb32(p + 55, expanded - 41 - 3);
}

/* A compressed file (XPRESS) whose logfile header says BufferSize
 * `header_size`, with `streams` CPUs of one packed buffer each. */
static size_t build_packed(unsigned streams, uint32_t expanded, uint32_t header_size)
{
  uint32_t size;
  unsigned i;
  assert_true(streams <= 64);
  size = tb_logfile_event(packed_file, 72, 1, 100, 10000000, INT64_C(132000000000000000),
                          streams + 1, 0x04000001 /* sequential, compressed */, 1, streams);
  tb_buffer(packed_file, BUF, 72 + TB_ALIGN8(size), 0, 0, 0x20, 4); /* State 3: XPRESS */
  tb_logfile_event(packed_file, 72, 1, 100, 10000000, INT64_C(132000000000000000), streams + 1,
                   0x04000001, 1, streams);
  tb32(packed_file + 72 + 0x20, header_size);
  for (i = 0; i < streams; i++)
    put_packed(packed_file + BUF + i * (72 + PACKED), (uint16_t)i, 1000 - i, expanded);
  return BUF + streams * (72 + PACKED);
}

/* An allocator that counts the bytes in use and their peak, through the
 * replaceable allocator every module uses (alloc.h). */
static size_t in_use, peak;

struct sized {
  size_t size;
  max_align_t align;
};

static void *peak_malloc(size_t size)
{
  struct sized *h = malloc(sizeof(*h) + size);
  if (!h)
    return NULL;
  h->size = size;
  in_use += size;
  if (in_use > peak)
    peak = in_use;
  return h + 1;
}

static void peak_free(void *p)
{
  struct sized *h = p ? (struct sized *)p - 1 : NULL;
  if (!h)
    return;
  in_use -= h->size;
  free(h);
}

static void *peak_calloc(size_t count, size_t size)
{
  void *p = count && size > SIZE_MAX / count ? NULL : peak_malloc(count * size);
  if (p)
    memset(p, 0, count * size);
  return p;
}

static void *peak_realloc(void *p, size_t size)
{
  void *n = peak_malloc(size);
  if (n && p) {
    size_t old = ((struct sized *)p - 1)->size;
    memcpy(n, p, old < size ? old : size);
    peak_free(p);
  }
  return n;
}

static const struct etwcap_allocator peak_allocator = { peak_malloc, peak_calloc, peak_realloc,
                                                         peak_free };

/* Opens the packed file and reads it in time order: the rc of the open or
 * of the walk, the events seen, the error text, and the peak bytes the
 * reader and the iterator held. */
static int read_packed(size_t len, unsigned *events, char *msg, size_t cap, size_t *peak_bytes)
{
  struct byte_source io;
  struct etl_reader *r = NULL;
  struct etl_timeorder *t = NULL;
  struct etw_event ev;
  uint64_t last = 0;
  int rc;
  in_use = peak = 0;
  etwcap_set_allocator(&peak_allocator);
  *events = 0;
  assert_int_equal(byte_source_open_memory(&io, packed_file, len), 0);
  rc = etl_reader_open(&r, &io, "packed.etl");
  if (!rc)
    rc = etl_timeorder_open(&t, r);
  while (!rc && (rc = etl_timeorder_next(t, &ev)) == 1) {
    assert_true(ev.timestamp >= last);
    last = ev.timestamp;
    (*events)++;
    rc = 0;
  }
  snprintf(msg, cap, "%s", r ? etl_reader_error(r) : "");
  etl_timeorder_free(t);
  etl_reader_free(r);
  byte_source_close(&io);
  etwcap_set_allocator(NULL);
  assert_int_equal(in_use, 0);
  *peak_bytes = peak;
  return rc;
}

/* 32 streams of 16 MiB (ETW's largest buffer, what the header declares)
 * from a 2 KB file: 512 MiB at once.  Refused before any buffer is loaded,
 * naming the field. */
static void compressed_buffers_claiming_more_than_the_file_holds_are_refused(void **state)
{
  char msg[600];
  unsigned events;
  size_t peak_bytes;
  (void)state;
  assert_int_equal(read_packed(build_packed(32, (16u << 20) - 72, 16u << 20), &events, msg,
                               sizeof(msg), &peak_bytes),
                   ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "packed.etl: byte offset "));
  assert_non_null(strstr(msg, "32 CPU streams"));
  assert_non_null(strstr(msg, "Offset"));
  assert_true(peak_bytes < (1u << 20));
}

/* Within the budget the same file merges, and holds no more than its
 * streams' decompressed buffers and the reader's own. */
static void compressed_buffers_within_the_budget_merge(void **state)
{
  char msg[600];
  unsigned events;
  size_t peak_bytes;
  (void)state;
  assert_int_equal(read_packed(build_packed(4, 1u << 20, 16u << 20), &events, msg, sizeof(msg),
                               &peak_bytes),
                   0);
  assert_int_equal(events, 5); /* the logfile header and one per stream */
  assert_true(peak_bytes >= 4u << 20);
  assert_true(peak_bytes < (4u << 20) + (2u << 20));
}

static void absurd_logfile_buffer_size_is_refused(void **state)
{
  char msg[600];
  unsigned events;
  size_t peak_bytes;
  (void)state;
  assert_int_equal(read_packed(build_packed(2, 4096, 0x80000000u), &events, msg, sizeof(msg),
                               &peak_bytes),
                   ETWCAP_E_CORRUPT);
  assert_non_null(strstr(msg, "packed.etl: byte offset 104 (0x68): "));
  assert_non_null(strstr(msg, "BufferSize is 2147483648 bytes"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(wrapped_circular_file_comes_out_in_time_order),
    cmocka_unit_test(file_order_is_the_order_on_disk),
    cmocka_unit_test(message_without_timestamp_keeps_its_place),
    cmocka_unit_test(damaged_buffer_is_an_error),
    cmocka_unit_test(compressed_buffers_claiming_more_than_the_file_holds_are_refused),
    cmocka_unit_test(compressed_buffers_within_the_budget_merge),
    cmocka_unit_test(absurd_logfile_buffer_size_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
