/* SHA-1 against the FIPS 180 example vectors (and their NIST/RFC 3174
 * companions: the empty string and one million 'a'). */
#include "tests/fakes/test_support.h"

#include "src/base/sha1.h"

#include <stdio.h>
#include <string.h>

static void hex(const uint8_t *d, char *out)
{
  int i;
  for (i = 0; i < SHA1_DIGEST_SIZE; i++)
    sprintf(out + 2 * i, "%02x", d[i]);
}

static void check(const char *msg, size_t len, const char *expected)
{
  uint8_t d[SHA1_DIGEST_SIZE];
  char h[41];
  sha1(msg, len, d);
  hex(d, h);
  assert_string_equal(h, expected);
}

static void fips_180_one_block(void **state)
{
  (void)state;
  check("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
}

static void fips_180_two_blocks(void **state)
{
  static const char m[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  (void)state;
  check(m, strlen(m), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

static void empty_message(void **state)
{
  (void)state;
  check("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

static void one_million_a_in_uneven_pieces(void **state)
{
  static char chunk[997];
  struct sha1_ctx ctx;
  uint8_t d[SHA1_DIGEST_SIZE];
  char h[41];
  size_t left = 1000000;
  (void)state;
  memset(chunk, 'a', sizeof(chunk));
  sha1_init(&ctx);
  while (left) {
    size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
    sha1_update(&ctx, chunk, n);
    left -= n;
  }
  sha1_final(&ctx, d);
  hex(d, h);
  assert_string_equal(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static void every_split_of_a_message_gives_the_same_digest(void **state)
{
  static const char m[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  size_t len = strlen(m), cut;
  (void)state;
  for (cut = 0; cut <= len; cut++) {
    struct sha1_ctx ctx;
    uint8_t d[SHA1_DIGEST_SIZE];
    char h[41];
    sha1_init(&ctx);
    sha1_update(&ctx, m, cut);
    sha1_update(&ctx, m + cut, len - cut);
    sha1_final(&ctx, d);
    hex(d, h);
    assert_string_equal(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  }
}

static void padding_boundaries(void **state)
{
  /* Lengths around 55, 56 and 64 bytes move the length field into a second
   * block: hashing in one call and byte by byte must agree at each. */
  char m[130];
  size_t len;
  (void)state;
  memset(m, 'x', sizeof(m));
  for (len = 50; len < 130; len++) {
    uint8_t a[SHA1_DIGEST_SIZE], b[SHA1_DIGEST_SIZE];
    struct sha1_ctx ctx;
    size_t i;
    sha1(m, len, a);
    sha1_init(&ctx);
    for (i = 0; i < len; i++)
      sha1_update(&ctx, m + i, 1);
    sha1_final(&ctx, b);
    assert_memory_equal(a, b, SHA1_DIGEST_SIZE);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fips_180_one_block),
    cmocka_unit_test(fips_180_two_blocks),
    cmocka_unit_test(empty_message),
    cmocka_unit_test(one_million_a_in_uneven_pieces),
    cmocka_unit_test(every_split_of_a_message_gives_the_same_digest),
    cmocka_unit_test(padding_boundaries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
