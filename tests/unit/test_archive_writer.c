/* The .etl.zip writer: members read back exactly; every failure (disk full
 * at any write, a short write, a corrupted write, a failing rename) leaves
 * no file under the final name, no temporary file, and the input intact.
 * Each case runs twice: the big member read from a file, and produced by a
 * writer that rewrites its first write at the end (as the merge writes the
 * ETL header buffer), compressed as it is written. */
#include "tests/fakes/test_support.h"

#include "src/base/error.h"
#include "src/base/os/os_file.h"
#include "src/base/zip/archive_writer.h"
#include "tests/fakes/fault_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unzip.h>
#include <zlib.h>

#define INPUT_BYTES (1024 * 1024 + 777) /* two deflate chunks */

#define HEAD_BYTES 65536 /* the producer's first write, rewritten at its end */

enum source { FROM_FILE, PRODUCED };

static char input_path[512], zip_path[512], tmp_path[520];
static unsigned char *input;
static unsigned char *produced; /* what the producer leaves: input, head rewritten */

static int setup(void **state)
{
  FILE *f;
  size_t i;
  uint32_t x = 7;
  (void)state;
  test_tmp_path("archive-input.etl", input_path, sizeof(input_path));
  test_tmp_path("archive-out.etl.zip", zip_path, sizeof(zip_path));
  snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", zip_path);
  input = malloc(INPUT_BYTES);
  if (!input)
    return -1;
  for (i = 0; i < INPUT_BYTES; i++) {
    x = x * 1664525u + 1013904223u;
    input[i] = (i & 0x3000) ? (unsigned char)(x >> 24) : (unsigned char)(i % 251);
  }
  f = fopen(input_path, "wb");
  if (!f || fwrite(input, 1, INPUT_BYTES, f) != INPUT_BYTES)
    return -1;
  fclose(f);
  produced = malloc(INPUT_BYTES);
  if (!produced)
    return -1;
  memcpy(produced, input, INPUT_BYTES);
  for (i = 0; i < HEAD_BYTES; i += 97)
    produced[i] ^= 0x5A;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  remove(input_path);
  remove(zip_path);
  remove(tmp_path);
  free(input);
  free(produced);
  return 0;
}

static const char log_text[] = "2026-11-22T17:00:00.000Z INFO  collection started\n";

/* Writes the input as the ETL writer writes a file: the head first, the
 * rest in buffers, then the head again with its final bytes. */
static int produce_input(void *ctx, const struct file_io *io, const char *path, char *why,
                         size_t why_size)
{
  size_t at, n;
  int rc = 0;
  void *s = io->open(io->opaque, path, 1, &rc);
  (void)ctx;
  if (!s)
    return rc;
  for (at = 0; at < INPUT_BYTES && !rc; at += n) {
    n = INPUT_BYTES - at < HEAD_BYTES ? INPUT_BYTES - at : HEAD_BYTES;
    if (io->write(io->opaque, s, input + at, n) != n)
      rc = io->error(io->opaque, s);
  }
  if (!rc)
    rc = io->seek(io->opaque, s, 0, SEEK_SET);
  if (!rc && io->write(io->opaque, s, produced, HEAD_BYTES) != HEAD_BYTES)
    rc = io->error(io->opaque, s);
  if (io->close(io->opaque, s) && !rc)
    rc = io->error(io->opaque, s);
  if (rc) {
    io->remove(io->opaque, path);
    snprintf(why, why_size, "cannot write '%s': %s", path, etwcap_strerror(rc));
  }
  return rc;
}

static const unsigned char *expected_content(enum source from)
{
  return from == PRODUCED ? produced : input;
}

static void members(struct archive_member m[2], enum source from)
{
  memset(m, 0, 2 * sizeof(*m));
  m[0].name = "archive-input.etl";
  if (from == PRODUCED)
    m[0].produce = produce_input;
  else
    m[0].path = input_path;
  m[1].name = "LogFile.txt";
  m[1].data = log_text;
  m[1].size = sizeof(log_text) - 1;
}

static int exists(const char *path)
{
  int64_t size;
  return os_file_size(path, &size) == 0;
}

/* Reads a member back with minizip's reader; returns malloc'd bytes. */
static unsigned char *read_member(const char *zip, const char *name, size_t *len)
{
  unzFile uf = unzOpen64(zip);
  unz_file_info64 info;
  unsigned char *buf;
  assert_non_null(uf);
  assert_int_equal(unzLocateFile(uf, name, 1), UNZ_OK);
  assert_int_equal(unzGetCurrentFileInfo64(uf, &info, NULL, 0, NULL, 0, NULL, 0), UNZ_OK);
  buf = malloc(info.uncompressed_size + 1);
  assert_non_null(buf);
  assert_int_equal(unzOpenCurrentFile(uf), UNZ_OK);
  assert_int_equal(unzReadCurrentFile(uf, buf, (unsigned)info.uncompressed_size + 1),
                   (int)info.uncompressed_size);
  assert_int_equal(unzCloseCurrentFile(uf), UNZ_OK);
  unzClose(uf);
  *len = (size_t)info.uncompressed_size;
  return buf;
}

/* Writes the zip through io (NULL: plain files) and reads both members
 * back. */
static void write_and_read_back(enum source from, struct file_io *io, unsigned threads)
{
  struct archive_member m[2];
  struct archive_options o;
  struct archive_stats st;
  char why[512];
  unsigned char *back;
  size_t len;
  members(m, from);
  memset(&o, 0, sizeof(o));
  o.io = io;
  o.threads = threads;
  remove(zip_path);
  assert_int_equal(archive_write(zip_path, m, 2, &o, &st, why, sizeof(why)), 0);
  assert_true(exists(zip_path));
  assert_false(exists(tmp_path));
  assert_int_equal(st.in_bytes, INPUT_BYTES + sizeof(log_text) - 1);
  assert_true(st.zip_bytes > 0 && st.zip_bytes < st.in_bytes);
  back = read_member(zip_path, "archive-input.etl", &len);
  assert_int_equal(len, INPUT_BYTES);
  assert_memory_equal(back, expected_content(from), INPUT_BYTES);
  free(back);
  back = read_member(zip_path, "LogFile.txt", &len);
  assert_int_equal(len, sizeof(log_text) - 1);
  assert_memory_equal(back, log_text, len);
  free(back);
  remove(zip_path);
}

static void writes_members_that_read_back(void **state)
{
  unsigned threads;
  enum source from;
  (void)state;
  for (from = FROM_FILE; from <= PRODUCED; from++)
    for (threads = 1; threads <= 2; threads++)
      write_and_read_back(from, NULL, threads);
  assert_true(exists(input_path)); /* inputs are never deleted here */
}

/* Runs one faulty write and checks the promises. */
static void expect_clean_failure(struct fault_io *f, int expected_rc, const char *old_content,
                                 enum source from)
{
  struct archive_member m[2];
  struct archive_options o;
  struct archive_stats st;
  char why[512];
  int64_t size;
  members(m, from);
  memset(&o, 0, sizeof(o));
  o.io = &f->io;
  o.threads = 2;
  assert_int_equal(archive_write(zip_path, m, 2, &o, &st, why, sizeof(why)), expected_rc);
  assert_true(why[0] != '\0');
  assert_false(exists(tmp_path));
  if (old_content) {
    /* the previous file under the final name is untouched */
    FILE *fz = fopen(zip_path, "rb");
    char buf[64] = "";
    assert_non_null(fz);
    assert_non_null(fgets(buf, sizeof(buf), fz));
    fclose(fz);
    assert_string_equal(buf, old_content);
  } else {
    assert_false(exists(zip_path));
  }
  assert_int_equal(os_file_size(input_path, &size), 0);
  assert_int_equal(size, INPUT_BYTES);
}

static unsigned count_writes(unsigned *data_writes, enum source from)
{
  struct fault_io f;
  struct archive_member m[2];
  struct archive_options o;
  struct archive_stats st;
  fault_io_init(&f);
  members(m, from);
  memset(&o, 0, sizeof(o));
  o.io = &f.io;
  remove(zip_path);
  assert_int_equal(archive_write(zip_path, m, 2, &o, &st, NULL, 0), 0);
  remove(zip_path);
  if (data_writes)
    *data_writes = f.data_writes;
  return f.writes;
}

static void disk_full_at_every_write(void **state)
{
  enum source from;
  (void)state;
  for (from = FROM_FILE; from <= PRODUCED; from++) {
    unsigned n, total = count_writes(NULL, from);
    assert_true(total > 4);
    for (n = 1; n <= total; n++) {
      struct fault_io f;
      fault_io_init(&f);
      f.fail_write_at = n;
      expect_clean_failure(&f, ETWCAP_E_NOSPC, NULL, from);
    }
  }
}

static void short_write_at_every_write(void **state)
{
  enum source from;
  (void)state;
  for (from = FROM_FILE; from <= PRODUCED; from++) {
    unsigned n, total = count_writes(NULL, from);
    for (n = 1; n <= total; n++) {
      struct fault_io f;
      fault_io_init(&f);
      f.short_write_at = n;
      expect_clean_failure(&f, ETWCAP_E_NOSPC, NULL, from);
    }
  }
}

/* The first data write of a produced member holds only its stored head
 * (minizip writes 64 KiB at a time; the head is 64 KiB and its block
 * headers), and the head is written again when the producer is done: a
 * corruption there is overwritten, and the zip must read back exactly. */
static void expect_healed(struct fault_io *f)
{
  write_and_read_back(PRODUCED, &f->io, 0);
}

/* A bit flipped in member data on its way to the disk is caught by
 * verification.  (Informational header fields such as the DOS date or
 * "version needed" have no checksum in the zip format; what a reader needs to
 * get the bytes back, sizes, CRCs, names and data, is checked.) */
static void corruption_is_caught_by_verification(void **state)
{
  enum source from;
  (void)state;
  for (from = FROM_FILE; from <= PRODUCED; from++) {
    unsigned n, data_writes;
    count_writes(&data_writes, from);
    assert_true(data_writes >= 3);
    for (n = 1; n <= data_writes; n++) {
      struct fault_io f;
      fault_io_init(&f);
      f.corrupt_data_write_at = n;
      if (from == PRODUCED && n == 1)
        expect_healed(&f); /* wholly inside the stored head, which is rewritten */
      else
        expect_clean_failure(&f, ETWCAP_E_CORRUPT, NULL, from);
    }
  }
}

static void failing_rename_keeps_the_old_file(void **state)
{
  enum source from;
  (void)state;
  for (from = FROM_FILE; from <= PRODUCED; from++) {
    struct fault_io f;
    FILE *old = fopen(zip_path, "wb");
    assert_non_null(old);
    fputs("previous capture\n", old);
    fclose(old);
    fault_io_init(&f);
    f.fail_rename = ETWCAP_E_ACCES;
    expect_clean_failure(&f, ETWCAP_E_ACCES, "previous capture\n", from);
    remove(zip_path);
  }
}

static void unreadable_input_is_named(void **state)
{
  struct archive_member m = { "missing.etl", "no/such/dir/missing.etl", NULL, 0, NULL, NULL };
  char why[512];
  struct archive_stats st;
  (void)state;
  assert_int_equal(archive_write(zip_path, &m, 1, NULL, &st, why, sizeof(why)), ETWCAP_E_NOENT);
  assert_non_null(strstr(why, "missing.etl"));
  assert_false(exists(zip_path));
  assert_false(exists(tmp_path));
}

/* A rewritten archive keeps what it is given: the comment, each member's
 * time and extra fields but a Zip64 one (tag 1: the writer writes its own),
 * and a folder entry as a stored empty folder (MS-DOS directory attribute).
 * Read back with minizip's reader, independent of etwcap's. */
static void keeps_comment_times_extra_fields_and_folders(void **state)
{
  static const uint8_t extra[] = { 0x01, 0x00, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, /* Zip64 */
                                   0xFE, 0xCA, 0x03, 0x00, 'a', 'b', 'c' };
  static const uint8_t local[] = { 0x55, 0x54, 0x05, 0x00, 1, 0x00, 0xF1, 0x53, 0x65 };
  struct archive_member m[2];
  struct archive_options o;
  struct archive_stats st;
  unz_global_info64 gi;
  unz_file_info64 info;
  char why[512], comment[64];
  uint8_t got[64];
  unzFile uf;
  (void)state;
  memset(m, 0, sizeof(m));
  m[0].name = "data/";
  m[0].dos_time = 0x4EA53904u; /* 2019-05-05 07:08:08 */
  m[0].extra = extra + 12;
  m[0].extra_size = 7;
  m[1].name = "data/LogFile.txt";
  m[1].data = log_text;
  m[1].size = sizeof(log_text) - 1;
  m[1].dos_time = 0x50221865u; /* 2020-01-02 03:03:10 */
  m[1].extra = extra;
  m[1].extra_size = sizeof(extra);
  m[1].local_extra = local;
  m[1].local_extra_size = sizeof(local);
  memset(&o, 0, sizeof(o));
  o.comment = "captured on host 7";
  assert_int_equal(archive_write(zip_path, m, 2, &o, &st, why, sizeof(why)), 0);

  uf = unzOpen64(zip_path);
  assert_non_null(uf);
  assert_int_equal(unzGetGlobalInfo64(uf, &gi), UNZ_OK);
  assert_int_equal(gi.number_entry, 2);
  assert_int_equal(unzGetGlobalComment(uf, comment, sizeof(comment)), 18);
  assert_string_equal(comment, "captured on host 7");

  assert_int_equal(unzGoToFirstFile(uf), UNZ_OK);
  assert_int_equal(unzGetCurrentFileInfo64(uf, &info, NULL, 0, got, sizeof(got), NULL, 0),
                   UNZ_OK);
  assert_int_equal(info.dosDate, 0x4EA53904u);
  assert_int_equal(info.compression_method, 0);
  assert_int_equal(info.uncompressed_size, 0);
  assert_int_equal(info.external_fa & 0x10, 0x10);
  assert_int_equal(info.size_file_extra, 7);
  assert_memory_equal(got, extra + 12, 7);

  assert_int_equal(unzGoToNextFile(uf), UNZ_OK);
  assert_int_equal(unzGetCurrentFileInfo64(uf, &info, NULL, 0, got, sizeof(got), NULL, 0),
                   UNZ_OK);
  assert_int_equal(info.dosDate, 0x50221865u);
  assert_int_equal(info.size_file_extra, 7);
  assert_memory_equal(got, extra + 12, 7);
  assert_int_equal(unzOpenCurrentFile(uf), UNZ_OK);
  assert_int_equal(unzGetLocalExtrafield(uf, got, sizeof(got)), (int)sizeof(local));
  assert_memory_equal(got, local, sizeof(local));
  assert_int_equal(unzCloseCurrentFile(uf), UNZ_OK);
  unzClose(uf);
  remove(zip_path);
}

static void overlong_comment_is_refused(void **state)
{
  struct archive_member m[2];
  struct archive_options o;
  struct archive_stats st;
  char why[512], *comment = malloc(0x10001);
  (void)state;
  assert_non_null(comment);
  memset(comment, 'c', 0x10000);
  comment[0x10000] = '\0';
  members(m, FROM_FILE);
  memset(&o, 0, sizeof(o));
  o.comment = comment;
  assert_int_equal(archive_write(zip_path, m, 2, &o, &st, why, sizeof(why)), ETWCAP_E_RANGE);
  assert_non_null(strstr(why, "65,535"));
  assert_false(exists(zip_path));
  assert_false(exists(tmp_path));
  free(comment);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(writes_members_that_read_back),
    cmocka_unit_test(disk_full_at_every_write),
    cmocka_unit_test(short_write_at_every_write),
    cmocka_unit_test(corruption_is_caught_by_verification),
    cmocka_unit_test(failing_rename_keeps_the_old_file),
    cmocka_unit_test(unreadable_input_is_named),
    cmocka_unit_test(keeps_comment_times_extra_fields_and_folders),
    cmocka_unit_test(overlong_comment_is_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
