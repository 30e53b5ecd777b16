/* Shared test helpers (see test_support.h). */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_writer.h"
#include "src/base/alloc.h"
#include "src/base/civil_time.h"
#include "src/base/os/os_time.h"
#include "src/finish/capture_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unzip.h>

const char *test_samples_dir(void)
{
  static char dir[1024];
  struct stat st;
  const char *env = getenv("ETWCAP_SAMPLES");
  if (!env || !*env)
    return NULL;
  snprintf(dir, sizeof(dir), "%s", env);
  if (stat(dir, &st) != 0)
    return NULL;
  return dir;
}

const char *test_sample_path(const char *name, char *buf, size_t size)
{
  const char *dir = test_samples_dir();
  if (!dir) {
    print_message("[  SKIP    ] ../shared/samples is absent (ETWCAP_SAMPLES unset or missing): "
                  "the real-trace tests need it\n");
    skip();
  }
  snprintf(buf, size, "%s/%s", dir, name);
  return buf;
}

const char *test_tmp_path(const char *name, char *buf, size_t size)
{
  const char *env = getenv("ETWCAP_TEST_TMP");
  snprintf(buf, size, "%s/%s", env && *env ? env : ".", name);
  return buf;
}

static unsigned alloc_count, fail_at;

/* 1 when this allocation is the one to fail (or any after it); counts it. */
static int alloc_fails(void)
{
  ++alloc_count;
  return fail_at && alloc_count >= fail_at;
}

static void *counting_malloc(size_t size)
{
  return alloc_fails() ? NULL : malloc(size);
}

static void *counting_calloc(size_t count, size_t size)
{
  return alloc_fails() ? NULL : calloc(count, size);
}

static void *counting_realloc(void *p, size_t size)
{
  return alloc_fails() ? NULL : realloc(p, size);
}

void test_fail_alloc_after(unsigned n)
{
  static const struct etwcap_allocator counting = { counting_malloc, counting_calloc,
                                                     counting_realloc, free };
  alloc_count = 0;
  fail_at = n;
  etwcap_set_allocator(&counting);
}

unsigned test_alloc_count(void)
{
  return alloc_count;
}

void test_extract_member(const char *zip, const char *suffix, const char *out)
{
  unzFile uf = unzOpen64(zip);
  char name[512];
  unsigned char buf[65536];
  FILE *f;
  int n, found = 0;
  assert_non_null(uf);
  for (n = unzGoToFirstFile(uf); n == UNZ_OK; n = unzGoToNextFile(uf)) {
    size_t len;
    unzGetCurrentFileInfo64(uf, NULL, name, sizeof(name), NULL, 0, NULL, 0);
    len = strlen(name);
    if (len >= strlen(suffix) && !strcmp(name + len - strlen(suffix), suffix)) {
      found = 1;
      break;
    }
  }
  assert_true(found);
  assert_int_equal(unzOpenCurrentFile(uf), UNZ_OK);
  f = fopen(out, "wb");
  assert_non_null(f);
  while ((n = unzReadCurrentFile(uf, buf, sizeof(buf))) > 0)
    assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
  assert_int_equal(n, 0);
  fclose(f);
  unzCloseCurrentFile(uf);
  unzClose(uf);
}

void test_zip_text(const char *zip, const char *name, char *buf, size_t cap)
{
  unzFile z = unzOpen64(zip);
  int n;
  assert_non_null(z);
  assert_int_equal(unzLocateFile(z, name, 0), UNZ_OK);
  assert_int_equal(unzOpenCurrentFile(z), UNZ_OK);
  n = unzReadCurrentFile(z, buf, (unsigned)(cap - 1));
  assert_true(n >= 0);
  buf[n] = '\0';
  unzCloseCurrentFile(z);
  unzClose(z);
}

const char *test_manifest_fire(const char *zip, const char *name, char *buf, size_t cap)
{
  static char text[200000];
  static const char utc[] = "\"utc\": \"";
  char key[128];
  const char *p, *end;
  test_zip_text(zip, "etwcap-capture.json", text, sizeof(text));
  snprintf(key, sizeof(key), "\"trigger\": {\"name\": \"%s\"", name);
  p = strstr(text, key);
  if (!p)
    fail_msg("the manifest of %s names no fire of %s:\n%s", zip, name, text);
  p = strstr(p, utc);
  assert_non_null(p);
  p += strlen(utc);
  end = strchr(p, '"');
  assert_non_null(end);
  snprintf(buf, cap, "%.*s", (int)(end - p), p);
  return buf;
}

void test_assert_fired_at(const char *zip, const char *name, int64_t filetime)
{
  char got[64], want[64];
  assert_string_equal(test_manifest_fire(zip, name, got, sizeof(got)),
                      filetime_format_iso7(filetime, want, sizeof(want)));
}

int test_stop_after_ms(void *ctx, uint64_t elapsed_ms, struct manifest_trigger *fired)
{
  if (elapsed_ms < *(const uint64_t *)ctx)
    return 0;
  fired->name = "Test";
  fired->detail = "";
  fired->filetime = 0;
  return 1;
}

const char *test_pe_fixture(const char *name, char *buf, size_t size)
{
  const char *dir = getenv("ETWCAP_PE_FIXTURES");
  if (!dir || !*dir) {
    print_message("ETWCAP_PE_FIXTURES is not set (no mingw-w64 tools): skipping\n");
    skip();
  }
  snprintf(buf, size, "%s/%s", dir, name);
  return buf;
}

void test_kernel_trace_config(struct etl_writer_config *cfg, const char *logger)
{
  memset(cfg, 0, sizeof(*cfg));
  cfg->header.os_major = 10;
  cfg->header.build = 19041;
  cfg->header.cpus = 1;
  cfg->header.pointer_size = 8;
  cfg->header.perf_freq = 10000000;
  cfg->header.start_time = 133000000000000000ll;
  cfg->header.end_time = cfg->header.start_time + 10000000;
  cfg->header.clock_type = 1;
  cfg->header.header_timestamp = 1000;
  cfg->header.header_is_64 = 1;
  snprintf(cfg->header.logger_name, sizeof(cfg->header.logger_name), "%s", logger);
}
