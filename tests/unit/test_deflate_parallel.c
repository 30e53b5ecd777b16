/* Parallel deflate: the output is one raw deflate stream that zlib's inflate
 * reads back to the input, with the right CRC, at any thread count and for
 * sizes around the chunk edges; errors stop the work.  The chunk map tiles
 * the output and each chunk inflates on its own; stored bytes can be
 * overwritten in place. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/zip/deflate_parallel.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct source {
  const unsigned char *data;
  size_t len, pos, max_read;
  int fail_at_read; /* 1-based; 0 = never */
  int reads;
};

static int source_read(void *ctx, void *buf, size_t cap, size_t *got)
{
  struct source *s = ctx;
  size_t n = s->len - s->pos;
  if (++s->reads == s->fail_at_read)
    return ETWCAP_E_IO;
  if (n > cap)
    n = cap;
  if (s->max_read && n > s->max_read)
    n = s->max_read; /* short reads, like a pipe */
  memcpy(buf, s->data + s->pos, n);
  s->pos += n;
  *got = n;
  return 0;
}

struct sink {
  unsigned char *data;
  size_t len, cap;
  int fail_at_write;
  int writes;
};

static int sink_write(void *ctx, const void *buf, size_t len)
{
  struct sink *k = ctx;
  if (++k->writes == k->fail_at_write)
    return ETWCAP_E_NOSPC;
  if (k->len + len > k->cap) {
    k->cap = (k->len + len) * 2;
    k->data = realloc(k->data, k->cap);
    assert_non_null(k->data);
  }
  memcpy(k->data + k->len, buf, len);
  k->len += len;
  return 0;
}

/* Text-like, compressible data with repeats far apart (beyond a chunk). */
static unsigned char *make_data(size_t len)
{
  unsigned char *d = malloc(len ? len : 1);
  size_t i;
  uint32_t x = 12345;
  assert_non_null(d);
  for (i = 0; i < len; i++) {
    x = x * 1103515245u + 12345u;
    d[i] = (i / 4096) % 3 == 0 ? (unsigned char)("etw event payload "[i % 18])
                               : (unsigned char)('a' + (x >> 16) % 16);
  }
  return d;
}

static unsigned char *inflate_all(const unsigned char *in, size_t in_len, size_t expect_len)
{
  z_stream zs;
  unsigned char *out = malloc(expect_len + 1);
  assert_non_null(out);
  memset(&zs, 0, sizeof(zs));
  assert_int_equal(inflateInit2(&zs, -MAX_WBITS), Z_OK);
  zs.next_in = (unsigned char *)in;
  zs.avail_in = (uInt)in_len;
  zs.next_out = out;
  zs.avail_out = (uInt)expect_len + 1;
  assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
  assert_int_equal(zs.total_out, expect_len);
  assert_int_equal(zs.avail_in, 0); /* nothing after the final block */
  inflateEnd(&zs);
  return out;
}

/* Each chunk, followed by an empty final block, inflates on its own to its
 * slice of the input with its CRC; the chunks and the final block tile the
 * output. */
static void check_chunks_alone(const struct deflate_result *r, const unsigned char *out,
                               size_t out_len, const unsigned char *data)
{
  static const unsigned char final_block[2] = { 0x03, 0x00 };
  size_t i, at = 0, from = 0;
  for (i = 0; i < r->chunk_count; i++) {
    const struct deflate_chunk *c = &r->chunks[i];
    unsigned char *alone = malloc((size_t)c->out_len + 2), *back;
    assert_non_null(alone);
    memcpy(alone, out + at, (size_t)c->out_len);
    memcpy(alone + c->out_len, final_block, 2);
    back = inflate_all(alone, (size_t)c->out_len + 2, (size_t)c->in_len);
    assert_memory_equal(back, data + from, (size_t)c->in_len);
    assert_int_equal(c->crc, (uint32_t)crc32(0, back, (uInt)c->in_len));
    at += (size_t)c->out_len;
    from += (size_t)c->in_len;
    free(back);
    free(alone);
  }
  assert_int_equal(at + 2, out_len);
  assert_memory_equal(out + at, final_block, 2);
  assert_int_equal(deflate_chunks_crc(r->chunks, r->chunk_count), r->crc32);
}

static void run_case(size_t len, unsigned threads, size_t max_read)
{
  unsigned char *data = make_data(len), *back;
  struct source src = { data, len, 0, max_read, 0, 0 };
  struct sink dst = { NULL, 0, 0, 0, 0 };
  struct deflate_params p = { 6, threads, 0, sink_write, &dst, NULL, NULL };
  struct deflate_result r;
  assert_int_equal(deflate_parallel(&p, source_read, &src, &r), 0);
  assert_int_equal(r.in_bytes, len);
  assert_int_equal(r.out_bytes, dst.len);
  assert_int_equal(r.crc32, (uint32_t)crc32(0, data, (uInt)len));
  back = inflate_all(dst.data, dst.len, len);
  assert_memory_equal(back, data, len);
  check_chunks_alone(&r, dst.data, dst.len, data);
  deflate_result_release(&r);
  free(back);
  free(dst.data);
  free(data);
}

static void round_trips_around_chunk_edges(void **state)
{
  const size_t sizes[] = { 0, 1, 32767, 32768, 32769, DEFLATE_CHUNK_BYTES - 1,
                           DEFLATE_CHUNK_BYTES, DEFLATE_CHUNK_BYTES + 1,
                           3 * DEFLATE_CHUNK_BYTES + 12345 };
  const unsigned threads[] = { 1, 2, 4 };
  size_t i, j;
  (void)state;
  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (j = 0; j < sizeof(threads) / sizeof(threads[0]); j++)
      run_case(sizes[i], threads[j], 0);
}

static void short_reads_are_fine(void **state)
{
  (void)state;
  run_case(2 * DEFLATE_CHUNK_BYTES + 7, 2, 4093);
}

/* Chunks are large enough that compressing them apart costs at most 1% over
 * one zlib stream at the same level (the bound issue 16 sets against zip -6). */
static void size_close_to_single_stream(void **state)
{
  size_t len = 6 * DEFLATE_CHUNK_BYTES;
  unsigned char *data = make_data(len), *single;
  uLongf single_len = compressBound((uLong)len);
  struct source src = { data, len, 0, 0, 0, 0 };
  struct sink dst = { NULL, 0, 0, 0, 0 };
  struct deflate_params p = { 6, 2, 0, sink_write, &dst, NULL, NULL };
  struct deflate_result r;
  (void)state;
  single = malloc(single_len);
  assert_non_null(single);
  assert_int_equal(compress2(single, &single_len, data, (uLong)len, 6), Z_OK);
  assert_int_equal(deflate_parallel(&p, source_read, &src, &r), 0);
  deflate_result_release(&r);
  print_message("parallel %lu bytes, one stream %lu bytes\n", (unsigned long)dst.len,
                (unsigned long)single_len);
  assert_true((double)dst.len <= (double)single_len * 1.01 + 64);
  free(single);
  free(dst.data);
  free(data);
}

static void read_error_stops_everything(void **state)
{
  size_t len = 5 * DEFLATE_CHUNK_BYTES;
  unsigned char *data = make_data(len);
  struct source src = { data, len, 0, 0, 3, 0 };
  struct sink dst = { NULL, 0, 0, 0, 0 };
  struct deflate_params p = { 6, 2, 0, sink_write, &dst, NULL, NULL };
  struct deflate_result r;
  (void)state;
  assert_int_equal(deflate_parallel(&p, source_read, &src, &r), ETWCAP_E_IO);
  free(dst.data);
  free(data);
}

static void write_error_is_returned_and_nothing_follows(void **state)
{
  size_t len = 5 * DEFLATE_CHUNK_BYTES;
  unsigned char *data = make_data(len);
  struct source src = { data, len, 0, 0, 0, 0 };
  struct sink dst = { NULL, 0, 0, 2, 0 };
  struct deflate_params p = { 6, 2, 0, sink_write, &dst, NULL, NULL };
  struct deflate_result r;
  (void)state;
  assert_int_equal(deflate_parallel(&p, source_read, &src, &r), ETWCAP_E_NOSPC);
  assert_int_equal(dst.writes, 2);
  free(dst.data);
  free(data);
}

/* Compresses 1000 bytes with the Nth allocation failing (0: none). */
static int deflate_with_failure_at(unsigned n, const unsigned char *data)
{
  struct source src = { data, 1000, 0, 0, 0, 0 };
  struct sink dst = { NULL, 0, 0, 0, 0 };
  struct deflate_params p = { 6, 2, 0, sink_write, &dst, NULL, NULL };
  struct deflate_result r;
  int rc;
  test_fail_alloc_after(n);
  rc = deflate_parallel(&p, source_read, &src, &r);
  if (rc == 0)
    deflate_result_release(&r);
  free(dst.data);
  return rc;
}

/* Every allocation the work makes is needed: failing any one of them is
 * ETWCAP_E_NOMEM, and nothing leaks (LeakSanitizer). */
static void allocation_failures_are_clean(void **state)
{
  unsigned n, total;
  unsigned char *data = make_data(1000);
  (void)state;
  assert_int_equal(deflate_with_failure_at(0, data), 0);
  total = test_alloc_count();
  assert_true(total > 3);
  for (n = 1; n <= total; n++) {
    int rc = deflate_with_failure_at(n, data);
    test_fail_alloc_after(0);
    assert_int_equal(rc, ETWCAP_E_NOMEM);
  }
  test_fail_alloc_after(0);
  free(data);
}

/* A pushed stream that starts with stored bytes (a writer's head), whose
 * stored copy is later overwritten with other bytes of the same length,
 * still inflates, to the new bytes. */
static void stored_head_can_be_overwritten(void **state)
{
  size_t head_len = 70000, body_len = DEFLATE_CHUNK_BYTES + 999;
  unsigned char *body = make_data(body_len), *head = make_data(head_len), *back, *all;
  struct sink dst = { NULL, 0, 0, 0, 0 };
  struct deflate_params p = { 6, 2, 0, sink_write, &dst, NULL, NULL };
  struct deflate_stream *d;
  struct deflate_result r;
  (void)state;
  assert_int_equal(deflate_stream_open(&d, &p), 0);
  assert_int_equal(deflate_stream_store(d, head, head_len), 0);
  assert_int_equal(deflate_stream_write(d, body, 1000), 0);
  assert_int_equal(deflate_stream_write(d, body + 1000, body_len - 1000), 0);
  assert_int_equal(deflate_stream_finish(d, &r), 0);
  assert_int_equal(r.chunks[0].in_len, head_len);
  assert_int_equal(r.chunks[0].out_len, DEFLATE_STORED_SIZE(head_len));
  memset(head, 'H', 100); /* the writer patches its head */
  deflate_stored_encode(head, head_len, dst.data);
  r.chunks[0].crc = (uint32_t)crc32(0, head, (uInt)head_len);
  r.crc32 = deflate_chunks_crc(r.chunks, r.chunk_count);
  all = malloc(head_len + body_len);
  assert_non_null(all);
  memcpy(all, head, head_len);
  memcpy(all + head_len, body, body_len);
  back = inflate_all(dst.data, dst.len, head_len + body_len);
  assert_memory_equal(back, all, head_len + body_len);
  assert_int_equal(r.crc32, (uint32_t)crc32(0, all, (uInt)(head_len + body_len)));
  check_chunks_alone(&r, dst.data, dst.len, all);
  deflate_result_release(&r);
  free(back);
  free(all);
  free(head);
  free(body);
  free(dst.data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(round_trips_around_chunk_edges),
    cmocka_unit_test(short_reads_are_fine),
    cmocka_unit_test(size_close_to_single_stream),
    cmocka_unit_test(read_error_stops_everything),
    cmocka_unit_test(write_error_is_returned_and_nothing_follows),
    cmocka_unit_test(allocation_failures_are_clean),
    cmocka_unit_test(stored_head_can_be_overwritten),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
