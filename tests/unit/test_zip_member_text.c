/* zip_member_text: a small member read whole by name.  The archives are
 * assembled here byte by byte from PKWARE's APPNOTE (4.3.7 local header,
 * 4.3.12 central header, 4.3.16 end of central directory), stored members
 * with zlib's CRC-32, so nothing of etwcap's writer is involved. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/zip/zip_member_text.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

struct member {
  const char *name, *data;
  int bad_crc;
};

static void le16(unsigned char **p, unsigned v)
{
  (*p)[0] = (unsigned char)v;
  (*p)[1] = (unsigned char)(v >> 8);
  *p += 2;
}

static void le32(unsigned char **p, unsigned long v)
{
  le16(p, (unsigned)(v & 0xFFFF));
  le16(p, (unsigned)(v >> 16));
}

static void put(unsigned char **p, const void *data, size_t len)
{
  memcpy(*p, data, len);
  *p += len;
}

/* A stored zip of `members` written to `path`. */
static void write_zip(const char *path, const struct member *members, size_t count)
{
  static unsigned char buf[4096];
  unsigned char *p = buf, *central;
  unsigned long offsets[8], crcs[8];
  size_t i;
  FILE *f;
  for (i = 0; i < count; i++) {
    size_t n = strlen(members[i].name), len = strlen(members[i].data);
    crcs[i] = crc32(0, (const Bytef *)members[i].data, (uInt)len) ^ (members[i].bad_crc ? 1 : 0);
    offsets[i] = (unsigned long)(p - buf);
    le32(&p, 0x04034b50);                 /* local header */
    le16(&p, 10);                         /* version needed */
    le16(&p, 0);                          /* flags */
    le16(&p, 0);                          /* stored */
    le16(&p, 0);                          /* time */
    le16(&p, 0x21);                       /* date */
    le32(&p, crcs[i]);
    le32(&p, (unsigned long)len);
    le32(&p, (unsigned long)len);
    le16(&p, (unsigned)n);
    le16(&p, 0);
    put(&p, members[i].name, n);
    put(&p, members[i].data, len);
  }
  central = p;
  for (i = 0; i < count; i++) {
    size_t n = strlen(members[i].name), len = strlen(members[i].data);
    le32(&p, 0x02014b50);                 /* central header */
    le16(&p, 20);                         /* version made by */
    le16(&p, 10);
    le16(&p, 0);
    le16(&p, 0);
    le16(&p, 0);
    le16(&p, 0x21);
    le32(&p, crcs[i]);
    le32(&p, (unsigned long)len);
    le32(&p, (unsigned long)len);
    le16(&p, (unsigned)n);
    le16(&p, 0);                          /* extra */
    le16(&p, 0);                          /* comment */
    le16(&p, 0);                          /* disk */
    le16(&p, 0);                          /* internal attributes */
    le32(&p, 0);                          /* external attributes */
    le32(&p, offsets[i]);
    put(&p, members[i].name, n);
  }
  le32(&p, 0x06054b50);                   /* end of central directory */
  le16(&p, 0);
  le16(&p, 0);
  le16(&p, (unsigned)count);
  le16(&p, (unsigned)count);
  le32(&p, (unsigned long)(p - central - 12));
  le32(&p, (unsigned long)(central - buf));
  le16(&p, 0);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, (size_t)(p - buf), f), (size_t)(p - buf));
  fclose(f);
}

static void the_last_member_of_the_name_is_read(void **state)
{
  const struct member m[] = {{"a.txt", "first", 0},
                             {"etwcap-capture.json", "{\"v\": 1}", 0},
                             {"etwcap-capture.json", "{\"v\": 2}", 0}};
  char path[512], why[256], *text;
  size_t len;
  (void)state;
  test_tmp_path("member-text.zip", path, sizeof(path));
  write_zip(path, m, 3);
  assert_int_equal(zip_member_text(path, "etwcap-capture.json", 100, &text, &len, why, sizeof(why)),
                   0);
  assert_string_equal(text, "{\"v\": 2}");
  assert_int_equal(len, strlen("{\"v\": 2}"));
  etwcap_free(text);
  assert_int_equal(zip_member_text(path, "a.txt", 100, &text, &len, why, sizeof(why)), 0);
  assert_string_equal(text, "first");
  etwcap_free(text);
  remove(path);
}

static void missing_members_and_non_zips_are_noent(void **state)
{
  const struct member m[] = {{"a.txt", "first", 0}};
  char path[512], why[256], *text;
  size_t len;
  FILE *f;
  (void)state;
  test_tmp_path("member-text.zip", path, sizeof(path));
  write_zip(path, m, 1);
  assert_int_equal(zip_member_text(path, "b.txt", 100, &text, &len, why, sizeof(why)),
                   ETWCAP_E_NOENT);
  assert_null(text);
  f = fopen(path, "wb");
  assert_non_null(f);
  fputs("not a zip at all", f);
  fclose(f);
  assert_int_equal(zip_member_text(path, "a.txt", 100, &text, &len, why, sizeof(why)),
                   ETWCAP_E_NOENT);
  assert_string_equal(why, "");
  remove(path);
  assert_int_equal(zip_member_text(path, "a.txt", 100, &text, &len, why, sizeof(why)),
                   ETWCAP_E_NOENT);
}

static void too_large_and_damaged_members_are_refused(void **state)
{
  const struct member m[] = {{"big.txt", "0123456789", 0}, {"bad.txt", "crc", 1}};
  char path[512], why[256], *text;
  size_t len;
  (void)state;
  test_tmp_path("member-text.zip", path, sizeof(path));
  write_zip(path, m, 2);
  assert_int_equal(zip_member_text(path, "big.txt", 9, &text, &len, why, sizeof(why)),
                   ETWCAP_E_RANGE);
  assert_non_null(strstr(why, "big.txt"));
  assert_int_equal(zip_member_text(path, "big.txt", 10, &text, &len, why, sizeof(why)), 0);
  etwcap_free(text);
  assert_int_equal(zip_member_text(path, "bad.txt", 100, &text, &len, why, sizeof(why)),
                   ETWCAP_E_CORRUPT);
  assert_null(text);
  remove(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_last_member_of_the_name_is_read),
      cmocka_unit_test(missing_members_and_non_zips_are_noent),
      cmocka_unit_test(too_large_and_damaged_members_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
