/* ETL files inside zip archives: archives assembled here byte by byte from
 * the zip format (APPNOTE: local header, central directory, end record),
 * with stored and deflated (zlib, raw deflate) members; member names are
 * sanitised; archives without ETL, damaged archives and short members are
 * clear errors; the real PerfView .etl.zip samples read. */
#include "tests/fakes/test_support.h"

#include "tests/unit/test_etl_bytes.h"

#include "etw/etl/etl_source.h"
#include "etw/etl/etl_timeorder.h"
#include "etw/etl/etl_zip.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint8_t etl[1024 + 512];
static uint8_t zip_small[8192];
static uint8_t *zip = zip_small;
static size_t zip_cap = sizeof(zip_small);

/* Header buffer + one buffer with two SYSTEM64 events. */
static size_t build_etl(void)
{
  uint8_t *b1 = etl + 1024;
  uint32_t pos = 72, i;
  uint32_t size = tb_logfile_event(etl, 72, 1, 10, 10000000, INT64_C(132000000000000000), 2,
                                   1, 1, 1);
  tb_buffer(etl, 1024, 72 + TB_ALIGN8(size), 0, 0, 0x20, 4);
  tb_logfile_event(etl, 72, 1, 10, 10000000, INT64_C(132000000000000000), 2, 1, 1, 1);
  tb_buffer(b1, 512, 0, 1, 0, 0x20, 0);
  for (i = 0; i < 2; i++) {
    uint8_t *r = b1 + pos;
    memset(r, 0, 0x20);
    tb16(r, 2);
    r[2] = 0x02;
    r[3] = 0xC0;
    tb16(r + 4, 0x20);
    tb16(r + 6, 0x0301);
    tb64(r + 16, 20 + i);
    pos += 0x20;
  }
  tb32(b1 + 0x30, pos);
  tb32(b1 + 0x04, pos);
  return sizeof(etl);
}

struct member {
  const char *name;
  const uint8_t *data;
  size_t len;
  int deflate;
  uint32_t declared_len; /* 0: the real length */
};

/* Raw deflate with zlib (method 8 in a zip). */
static size_t deflate_raw(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = (Bytef *)(uintptr_t)in;
  zs.avail_in = (uInt)len;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
  deflateEnd(&zs);
  return zs.total_out;
}

static size_t build_zip(const struct member *m, unsigned count)
{
  uint32_t offsets[8], crcs[8], csizes[8];
  size_t o = 0, cd;
  unsigned i;
  for (i = 0; i < count; i++) {
    size_t nlen = strlen(m[i].name);
    uint8_t *h = zip + o;
    offsets[i] = (uint32_t)o;
    crcs[i] = (uint32_t)crc32(0, m[i].data, (uInt)m[i].len);
    memset(h, 0, 30);
    tb32(h + 0, 0x04034b50);
    tb16(h + 4, 20);
    tb16(h + 8, m[i].deflate ? 8 : 0);
    tb16(h + 12, 0x21);                 /* date 1980-01-01 */
    tb32(h + 14, crcs[i]);
    tb16(h + 26, (uint16_t)nlen);
    memcpy(h + 30, m[i].name, nlen);
    o += 30 + nlen;
    if (m[i].deflate) {
      csizes[i] = (uint32_t)deflate_raw(m[i].data, m[i].len, zip + o, zip_cap - o);
    } else {
      memcpy(zip + o, m[i].data, m[i].len);
      csizes[i] = (uint32_t)m[i].len;
    }
    tb32(h + 18, csizes[i]);
    tb32(h + 22, m[i].declared_len ? m[i].declared_len : (uint32_t)m[i].len);
    o += csizes[i];
  }
  cd = o;
  for (i = 0; i < count; i++) {
    size_t nlen = strlen(m[i].name);
    uint8_t *c = zip + o;
    memset(c, 0, 46);
    tb32(c + 0, 0x02014b50);
    tb16(c + 4, 20);
    tb16(c + 6, 20);
    tb16(c + 10, m[i].deflate ? 8 : 0);
    tb16(c + 14, 0x21);
    tb32(c + 16, crcs[i]);
    tb32(c + 20, csizes[i]);
    tb32(c + 24, m[i].declared_len ? m[i].declared_len : (uint32_t)m[i].len);
    tb16(c + 28, (uint16_t)nlen);
    tb32(c + 42, offsets[i]);
    memcpy(c + 46, m[i].name, nlen);
    o += 46 + nlen;
  }
  memset(zip + o, 0, 22);
  tb32(zip + o, 0x06054b50);
  tb16(zip + o + 8, (uint16_t)count);
  tb16(zip + o + 10, (uint16_t)count);
  tb32(zip + o + 12, (uint32_t)(o - cd));
  tb32(zip + o + 16, (uint32_t)cd);
  return o + 22;
}

struct seen {
  char names[4][256];
  unsigned files, events[4], backsteps;
  uint64_t second_ts; /* of the first file: the event after the header */
  int time_order;
};

static int count_events(void *ctx, const char *display, struct etl_reader *r)
{
  struct seen *s = ctx;
  struct etw_event ev;
  struct etl_timeorder *t = NULL;
  int rc;
  if (s->files < 4)
    snprintf(s->names[s->files], sizeof(s->names[0]), "%s", display);
  if (s->time_order) {
    rc = etl_timeorder_open(&t, r);
    if (rc)
      return rc;
  }
  {
    uint64_t last = 0;
    while ((rc = t ? etl_timeorder_next(t, &ev) : etl_reader_next(r, &ev)) == 1) {
      if (s->files < 4)
        s->events[s->files]++;
      if (s->files == 0 && s->events[0] == 2)
        s->second_ts = ev.timestamp;
      if (ev.timestamp < last)
        s->backsteps++;
      last = ev.timestamp;
    }
  }
  etl_timeorder_free(t);
  s->files++;
  return rc;
}

static void stored_and_deflated_members_read(void **state)
{
  static const char note[] = "not a trace";
  struct member m[3];
  struct seen s;
  char err[600];
  size_t etl_len = build_etl(), len;
  int time_order;
  (void)state;
  m[0] = (struct member){ "LogFile.txt", (const uint8_t *)note, sizeof(note), 0, 0 };
  m[1] = (struct member){ "../../evil\\dir/Trace.ETL", etl, etl_len, 0, 0 };
  m[2] = (struct member){ "/abs/deflated.etl", etl, etl_len, 1, 0 };
  len = build_zip(m, 3);
  for (time_order = 0; time_order < 2; time_order++) {
    memset(&s, 0, sizeof(s));
    s.time_order = time_order;
    assert_int_equal(etl_source_foreach_memory(zip, len, "a.zip", count_events, &s, err,
                                               sizeof(err)),
                     0);
    assert_int_equal(s.files, 2);
    assert_string_equal(s.names[0], "a.zip!evil/dir/Trace.ETL");
    assert_string_equal(s.names[1], "a.zip!abs/deflated.etl");
    assert_int_equal(s.events[0], 3);
    assert_int_equal(s.events[1], 3);
  }
}

static void zip_without_etl_is_an_error(void **state)
{
  static const char note[] = "not a trace";
  struct member m = { "LogFile.txt", (const uint8_t *)note, sizeof(note), 0, 0 };
  struct seen s;
  char err[600];
  size_t len = build_zip(&m, 1);
  (void)state;
  memset(&s, 0, sizeof(s));
  assert_int_equal(etl_source_foreach_memory(zip, len, "a.zip", count_events, &s, err,
                                             sizeof(err)),
                   ETWCAP_E_FORMAT);
  assert_non_null(strstr(err, "a.zip"));
  assert_non_null(strstr(err, "no .etl"));
}

static void damaged_zips_are_errors(void **state)
{
  struct member m;
  struct seen s;
  char err[600];
  size_t etl_len = build_etl(), len, cut;
  (void)state;
  m = (struct member){ "t.etl", etl, etl_len, 1, 0 };
  len = build_zip(&m, 1);
  /* Every truncation: an error, never a crash. */
  for (cut = 4; cut < len; cut += 7) {
    int rc;
    memset(&s, 0, sizeof(s));
    rc = etl_source_foreach_memory(zip, cut, "a.zip", count_events, &s, err, sizeof(err));
    assert_true(rc < 0);
    assert_true(err[0] != '\0');
  }
  /* Encrypted members and unknown methods are refused by name. */
  m = (struct member){ "t.etl", etl, etl_len, 0, 0 };
  len = build_zip(&m, 1);
  tb16(zip + 6, 1);                 /* local header: encrypted */
  tb16(zip + len - 22 - 46 - 5 + 8, 1); /* central directory: encrypted */
  memset(&s, 0, sizeof(s));
  assert_int_equal(etl_source_foreach_memory(zip, len, "a.zip", count_events, &s, err,
                                             sizeof(err)),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(err, "t.etl is encrypted"));
  len = build_zip(&m, 1);
  tb16(zip + 8, 14);                /* LZMA */
  tb16(zip + len - 22 - 46 - 5 + 10, 14);
  memset(&s, 0, sizeof(s));
  assert_int_equal(etl_source_foreach_memory(zip, len, "a.zip", count_events, &s, err,
                                             sizeof(err)),
                   ETWCAP_E_UNSUPPORTED);
  assert_non_null(strstr(err, "method 14"));
  /* A member shorter than its declared size: the reader says where. */
  m = (struct member){ "t.etl", etl, 1200, 0, (uint32_t)etl_len };
  len = build_zip(&m, 1);
  memset(&s, 0, sizeof(s));
  assert_true(etl_source_foreach_memory(zip, len, "a.zip", count_events, &s, err,
                                        sizeof(err)) < 0);
  assert_non_null(strstr(err, "a.zip!t.etl"));
}

/* etl_zip_next_etl_at goes to member k without streaming those before it:
 * past a damaged first member, which the sequential walk stops at. */
static void members_are_reached_by_number(void **state)
{
  struct member m[3];
  struct etl_zip *z;
  char name[64];
  size_t etl_len = build_etl(), len;
  (void)state;
  m[0] = (struct member){ "a.etl", etl, etl_len, 0, 0 };
  m[1] = (struct member){ "b.etl", etl, etl_len, 1, 0 };
  m[2] = (struct member){ "c.etl", etl, etl_len, 0, 0 };
  len = build_zip(m, 3);
  zip[30 + 5 + 100] ^= 0x55; /* a byte of a.etl's stored data: its CRC-32 fails */
  assert_int_equal(etl_zip_open_memory(&z, zip, len), 0);
  assert_int_equal(etl_zip_next_etl(z, name, sizeof(name)), 1);
  assert_string_equal(name, "a.etl");
  assert_int_equal(etl_zip_next_etl(z, name, sizeof(name)), ETWCAP_E_CORRUPT);
  etl_zip_close(z);
  assert_int_equal(etl_zip_open_memory(&z, zip, len), 0);
  assert_int_equal(etl_zip_next_etl_at(z, 2, name, sizeof(name)), 1);
  assert_string_equal(name, "c.etl");
  assert_int_equal(etl_zip_next_etl_at(z, 1, name, sizeof(name)), 1);
  assert_string_equal(name, "b.etl");
  assert_int_equal(etl_zip_finish_member(z), 0);
  assert_int_equal(etl_zip_next_etl_at(z, 3, name, sizeof(name)), 0);
  etl_zip_close(z);
}

static void member_names_are_sanitised(void **state)
{
  static const char *const cases[][2] = {
    { "a/b.etl", "a/b.etl" },          { "../../x.etl", "x.etl" },
    { "/etc/x.etl", "etc/x.etl" },     { "C:\\dir\\x.etl", "dir/x.etl" },
    { "a/./b/../c.etl", "a/b/c.etl" }, { "bad\x01name.etl", "bad?name.etl" },
    { "..", "_" },
  };
  char buf[64];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    snprintf(buf, sizeof(buf), "%s", cases[i][0]);
    etl_zip_sanitize_name(buf);
    assert_string_equal(buf, cases[i][1]);
  }
}

/* A deflated member bigger than the stream's 8 MiB history, laid out so
 * the time-order merge must go back further than that: CPU 1's only buffer
 * (the oldest events) is the last one in the file, after 150 buffers of
 * CPU 0.  The member restarts and the order is still right. */
static void long_backward_read_restarts_the_member(void **state)
{
  enum { BUF = 65536, N = 150 };
  size_t len = 1024 + (size_t)BUF * (N + 1), i, zlen;
  uint8_t *big = malloc(len);
  struct member m;
  struct seen s;
  char err[600];
  uint32_t size;
  (void)state;
  assert_non_null(big);
  zip_cap = len + 65536;
  zip = malloc(zip_cap);
  assert_non_null(zip);
  size = tb_logfile_event(big, 72, 1, 10, 10000000, INT64_C(132000000000000000), N + 2, 1,
                          1, 2);
  tb_buffer(big, 1024, 72 + TB_ALIGN8(size), 0, 0, 0x20, 4);
  tb_logfile_event(big, 72, 1, 10, 10000000, INT64_C(132000000000000000), N + 2, 1, 1, 2);
  for (i = 0; i <= N; i++) {
    uint8_t *b = big + 1024 + (size_t)BUF * i, *r = b + 72;
    int last = i == N;
    tb_buffer(b, BUF, 72 + 0x20, i + 1, last ? 1 : 0, 0x20, 0);
    memset(r, 0, 0x20);
    tb16(r, 2);
    r[2] = 0x02;
    r[3] = 0xC0;
    tb16(r + 4, 0x20);
    tb16(r + 6, 0x0301);
    tb64(r + 16, last ? 50 : 1000 + i);
  }
  m = (struct member){ "big.etl", big, len, 1, 0 };
  zlen = build_zip(&m, 1);
  memset(&s, 0, sizeof(s));
  s.time_order = 1;
  assert_int_equal(etl_source_foreach_memory(zip, zlen, "big.zip", count_events, &s, err,
                                             sizeof(err)),
                   0);
  assert_int_equal(s.events[0], N + 2);
  assert_int_equal(s.second_ts, 50);
  assert_int_equal(s.backsteps, 0);
  free(zip);
  zip = zip_small;
  zip_cap = sizeof(zip_small);
  free(big);
}

/* Bytes asked of the allocator (the allocator has no context argument). */
static size_t allocated;

static void *counting_malloc(size_t size)
{
  allocated += size;
  return malloc(size);
}

static void *counting_calloc(size_t count, size_t size)
{
  allocated += count * size;
  return calloc(count, size);
}

static void *counting_realloc(void *ptr, size_t size)
{
  allocated += size;
  return realloc(ptr, size);
}

/* Member i of `many`: a 200-byte folder name, then m<i mod 40000>.etl, so
 * the first 9,999 names come again at the end and only their last copies
 * count; the last member is a real ETL file. */
static void many_name(char *out, size_t cap, unsigned i, unsigned n)
{
  char folder[201];
  memset(folder, 'p', 200);
  folder[200] = '\0';
  if (i == n - 1)
    snprintf(out, cap, "trace.etl");
  else
    snprintf(out, cap, "%s/m%05u.etl", folder, i % 40000);
}

static size_t build_many(unsigned n, size_t etl_len)
{
  size_t o = 0, cd, i;
  uint32_t crc = (uint32_t)crc32(0, etl, (uInt)etl_len), *offsets = calloc(n, sizeof(*offsets));
  char name[256];
  assert_non_null(offsets);
  for (i = 0; i < n; i++) {
    int last = i == n - 1;
    size_t nlen, len = last ? etl_len : 0;
    many_name(name, sizeof(name), (unsigned)i, n);
    nlen = strlen(name);
    offsets[i] = (uint32_t)o;
    memset(zip + o, 0, 30);
    tb32(zip + o, 0x04034b50);
    tb16(zip + o + 4, 20);
    tb16(zip + o + 12, 0x21);
    tb32(zip + o + 14, last ? crc : 0);
    tb32(zip + o + 18, (uint32_t)len);
    tb32(zip + o + 22, (uint32_t)len);
    tb16(zip + o + 26, (uint16_t)nlen);
    memcpy(zip + o + 30, name, nlen);
    memcpy(zip + o + 30 + nlen, etl, len);
    o += 30 + nlen + len;
  }
  cd = o;
  for (i = 0; i < n; i++) {
    int last = i == n - 1;
    size_t nlen;
    many_name(name, sizeof(name), (unsigned)i, n);
    nlen = strlen(name);
    memset(zip + o, 0, 46);
    tb32(zip + o, 0x02014b50);
    tb16(zip + o + 4, 20);
    tb16(zip + o + 6, 20);
    tb16(zip + o + 14, 0x21);
    tb32(zip + o + 16, last ? crc : 0);
    tb32(zip + o + 20, last ? (uint32_t)etl_len : 0);
    tb32(zip + o + 24, last ? (uint32_t)etl_len : 0);
    tb16(zip + o + 28, (uint16_t)nlen);
    tb32(zip + o + 42, offsets[i]);
    memcpy(zip + o + 46, name, nlen);
    o += 46 + nlen;
  }
  memset(zip + o, 0, 22);
  tb32(zip + o, 0x06054b50);
  tb16(zip + o + 8, 0xFFFF & n);
  tb16(zip + o + 10, 0xFFFF & n);
  tb32(zip + o + 12, (uint32_t)(o - cd));
  tb32(zip + o + 16, (uint32_t)cd);
  free(offsets);
  return o + 22;
}

/* 50,000 members with long names: every .etl member is offered once, its
 * last copy, in order, and opening and walking the archive asks for memory
 * in proportion to the archive (a 256 KiB buffer or two per member asked
 * for 10 GiB).  Without a Zip64 record the entry count is taken modulo
 * 65,536, which 50,000 fits. */
static void many_members_read_in_order_with_little_memory(void **state)
{
  enum { N = 50000 };
  static const struct etwcap_allocator counting = { counting_malloc, counting_calloc,
                                                    counting_realloc, free };
  struct etl_zip *z = NULL;
  char name[300], want[300];
  size_t etl_len = build_etl(), len;
  unsigned offered = 0;
  int rc;
  (void)state;
  zip_cap = (size_t)N * 600 + etl_len;
  zip = malloc(zip_cap);
  assert_non_null(zip);
  len = build_many(N, etl_len);
  allocated = 0;
  etwcap_set_allocator(&counting);
  rc = etl_zip_open_memory(&z, zip, len);
  while (rc == 0 && etl_zip_next_etl(z, name, sizeof(name)) == 1) {
    /* Offered: m09999 .. m39999, then m00000 .. m09998 (their last
     * copies), then trace.etl. */
    unsigned i = offered < 30001 ? offered + 9999 : offered - 30001;
    if (offered == N - 9999 - 1)
      snprintf(want, sizeof(want), "trace.etl");
    else
      many_name(want, sizeof(want), i, N);
    assert_string_equal(name, want);
    offered++;
  }
  etwcap_set_allocator(NULL);
  assert_int_equal(rc, 0);
  assert_string_equal(etl_zip_error(z), "");
  etl_zip_close(z);
  assert_int_equal(offered, 40001);
  assert_true(allocated < 4 * len);
  free(zip);
  zip = zip_small;
  zip_cap = sizeof(zip_small);
}

/* PerfView's gcevents.etl.zip: 71 events (SOURCES.md). */
static void perfview_sample_zip_reads(void **state)
{
  char path[1024], err[600];
  struct seen s;
  (void)state;
  test_sample_path("ms-perfview__gcevents.etl.zip", path, sizeof(path));
  memset(&s, 0, sizeof(s));
  assert_int_equal(etl_source_foreach(path, count_events, &s, err, sizeof(err)), 0);
  assert_int_equal(s.files, 1);
  assert_int_equal(s.events[0], 71);
  assert_non_null(strstr(s.names[0], "!gcevents/PerfViewData.etl"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(stored_and_deflated_members_read),
    cmocka_unit_test(zip_without_etl_is_an_error),
    cmocka_unit_test(damaged_zips_are_errors),
    cmocka_unit_test(members_are_reached_by_number),
    cmocka_unit_test(member_names_are_sanitised),
    cmocka_unit_test(long_backward_read_restarts_the_member),
    cmocka_unit_test(perfview_sample_zip_reads),
    cmocka_unit_test(many_members_read_in_order_with_little_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
