/* Our zip reader: Zip64 sizes (which Debian's minizip 1.1 reader
 * misses on 64-bit Linux), member checks, and damaged archives.  Archives
 * are written here by minizip's writer, an independent implementation. */
#include "tests/fakes/test_support.h"

#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/error.h"
#include "src/base/file_read.h"
#include "src/base/zip/zip_directory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h>

static void write_zip(const char *path, const char *name, const void *raw, unsigned raw_len,
                      uint64_t claimed_size, uint32_t claimed_crc)
{
  zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
  zip_fileinfo info;
  memset(&info, 0, sizeof(info));
  assert_non_null(zf);
  assert_int_equal(zipOpenNewFileInZip4_64(zf, name, &info, NULL, 0, NULL, 0, NULL, Z_DEFLATED,
                                           6, 1, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0, 0, 0,
                                           1),
                   ZIP_OK);
  assert_int_equal(zipWriteInFileInZip(zf, raw, raw_len), ZIP_OK);
  assert_int_equal(zipCloseFileInZipRaw64(zf, claimed_size, claimed_crc), ZIP_OK);
  assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

static void zip64_sizes_are_read(void **state)
{
  char path[512], why[256];
  static const unsigned char empty_final_block[] = { 0x03, 0x00 };
  struct byte_source io;
  struct zip_directory dir;
  uint64_t size;
  uint32_t crc;
  (void)state;
  test_tmp_path("zip64-claim.zip", path, sizeof(path));
  /* A member that says it holds 5,000,000,000 bytes: only the Zip64 extra
   * field can say so. */
  write_zip(path, "big.etl", empty_final_block, 2, UINT64_C(5000000000), 0x1234);
  assert_int_equal(byte_source_open_file(&io, path), 0);
  assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), 0);
  assert_int_equal(dir.count, 1);
  assert_string_equal(dir.entries[0].name, "big.etl");
  assert_true(dir.entries[0].uncompressed_size == UINT64_C(5000000000));
  assert_int_equal(dir.entries[0].crc32, 0x1234);
  assert_int_equal(dir.entries[0].method, 8);
  /* Its data inflates to nothing: the check sees through the claim and
   * names the member. */
  assert_int_equal(zip_entry_measure(&io, &dir.entries[0], &size, &crc, why, sizeof(why)),
                   ETWCAP_E_CORRUPT);
  assert_int_equal(size, 0);
  assert_non_null(strstr(why, "big.etl"));
  zip_directory_release(&dir);
  byte_source_close(&io);
  remove(path);
}

static void members_measure_to_their_bytes(void **state)
{
  char path[512], why[256];
  unsigned char text[5000], packed[6000];
  z_stream zs;
  struct byte_source io;
  struct zip_directory dir;
  uint64_t size;
  uint32_t crc;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof(text); i++)
    text[i] = (unsigned char)("merged trace "[i % 13]);
  memset(&zs, 0, sizeof(zs));
  assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = text;
  zs.avail_in = sizeof(text);
  zs.next_out = packed;
  zs.avail_out = sizeof(packed);
  assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
  deflateEnd(&zs);
  test_tmp_path("zip-small.zip", path, sizeof(path));
  write_zip(path, "LogFile.txt", packed, (unsigned)zs.total_out, sizeof(text),
            (uint32_t)crc32(0, text, sizeof(text)));
  assert_int_equal(byte_source_open_file(&io, path), 0);
  assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), 0);
  assert_int_equal(zip_entry_measure(&io, &dir.entries[0], &size, &crc, why, sizeof(why)), 0);
  assert_int_equal(size, sizeof(text));
  assert_int_equal(crc, (uint32_t)crc32(0, text, sizeof(text)));
  zip_directory_release(&dir);
  byte_source_close(&io);
  remove(path);
}

static void damaged_archives_are_errors(void **state)
{
  char why[256];
  static const unsigned char not_zip[] = "this is not a zip archive at all, just text";
  unsigned char eocd[22] = { 0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0,
                             46, 0, 0, 0, 0xF0, 0xFF, 0, 0, 0, 0 };
  struct byte_source io;
  struct zip_directory dir;
  (void)state;
  assert_int_equal(byte_source_open_memory(&io, not_zip, sizeof(not_zip)), 0);
  assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), ETWCAP_E_FORMAT);
  assert_non_null(strstr(why, "end-of-central-directory"));
  byte_source_close(&io);
  /* An end record whose directory lies outside the file. */
  assert_int_equal(byte_source_open_memory(&io, eocd, sizeof(eocd)), 0);
  assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), ETWCAP_E_CORRUPT);
  assert_non_null(strstr(why, "does not fit"));
  byte_source_close(&io);
}

/* A name may hold up to 65,535 bytes (APPNOTE 4.4.10: a 16-bit length).
 * Names past any buffer of the reader's are read whole and compared with
 * the local header's in full: one differing byte near the end is found. */
static void names_of_any_length_are_read_whole(void **state)
{
  static const size_t lengths[] = { 1023, 1025, 60004, 65535 };
  char path[512], why[256];
  struct byte_source io;
  struct zip_directory dir;
  char *bytes;
  size_t size, i;
  (void)state;
  test_tmp_path("zip-long-name.zip", path, sizeof(path));
  for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
    char *name = malloc(lengths[i] + 1);
    FILE *f;
    assert_non_null(name);
    memset(name, 'n', lengths[i]);
    name[lengths[i]] = '\0';
    write_zip(path, name, "\x03\x00", 2, 0, 0);
    assert_int_equal(byte_source_open_file(&io, path), 0);
    assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), 0);
    assert_int_equal(dir.count, 1);
    assert_int_equal(strlen(dir.entries[0].name), lengths[i]);
    zip_directory_release(&dir);
    byte_source_close(&io);
    /* The local header's name, one byte off near its end: the member's
     * place check reads it whole and refuses the archive. */
    assert_int_equal(file_read_small(path, 1 << 20, &bytes, &size), 0);
    bytes[30 + lengths[i] - 2] = 'x';
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    fclose(f);
    etwcap_free(bytes);
    assert_int_equal(byte_source_open_file(&io, path), 0);
    assert_int_equal(zip_directory_read(&io, &dir, why, sizeof(why)), ETWCAP_E_CORRUPT);
    assert_non_null(strstr(why, "names another file"));
    byte_source_close(&io);
    free(name);
  }
  remove(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(zip64_sizes_are_read),
    cmocka_unit_test(members_measure_to_their_bytes),
    cmocka_unit_test(damaged_archives_are_errors),
    cmocka_unit_test(names_of_any_length_are_read_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
