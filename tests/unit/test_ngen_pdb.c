/* NGEN PDBs for the zip (ngen_pdb.h), against a model of ngen createPDB:
 * given IMAGE and DIR it writes DIR/NAME/GUIDAGE/NAME and exits 0, or exits
 * non-zero and may leave a bad PDB behind (PerfView's
 * SymbolReader.GenerateNGenSymbolsForModule expects exactly that path and
 * deletes what a failed run left).  The model names the PDB from `objdump -p`
 * of the image (the RSDS record as binutils reads it), not from etwcap's PE
 * reader.  The image is tests/pe's mscorlib.ni.dll, a small DLL whose RSDS
 * record names mscorlib.ni.pdb, in a folder laid out as the machine's native
 * image cache. */
#include "tests/fakes/test_support.h"

#include "etw/etl/etl_bytes.h"
#include "etw/etl/etl_reader.h"
#include "etw/etl/etl_writer.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/finish/capture_finish.h"
#include "src/finish/image_ids_only.h"
#include "src/finish/ngen_pdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unzip.h>

/* The framework of each native image cache PerfView's
 * GetClrDirectoryForNGenImage knows (its three regular expressions). */
static void frameworks_come_from_the_cache_folder(void **state)
{
  (void)state;
  assert_string_equal(ngen_pdb_framework("C:\\Windows\\assembly\\NativeImages_v4.0.30319_64\\"
                                         "mscorlib\\0a1b\\mscorlib.ni.dll"),
                      "Framework64");
  assert_string_equal(ngen_pdb_framework("c:\\windows\\ASSEMBLY\\nativeimages_v4.0.30319_32\\"
                                         "System\\0a1b\\System.ni.dll"),
                      "Framework");
  assert_string_equal(ngen_pdb_framework("C:\\Windows\\assembly\\NativeImages_v4.0.30319_ARM64\\"
                                         "x\\y\\x.ni.dll"),
                      "FrameworkARM64");
  assert_string_equal(ngen_pdb_framework("C:\\Users\\u\\AppData\\Local\\Microsoft\\CLR_v4.0_64\\"
                                         "NativeImages\\a\\b\\App.ni.exe"),
                      "Framework64");
  assert_string_equal(ngen_pdb_framework("C:\\Users\\u\\AppData\\Local\\Microsoft\\CLR_v4.0\\"
                                         "NativeImages\\a\\b\\App.ni.exe"),
                      "Framework");
  assert_string_equal(ngen_pdb_framework("C:\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\"
                                         "NativeImages\\x.ni.dll"),
                      "Framework64");
  assert_string_equal(ngen_pdb_framework("/mnt/c/Windows/assembly/NativeImages_v4.0.30319_64/"
                                         "mscorlib/0a1b/mscorlib.ni.dll"),
                      "Framework64");
  /* Runtime 2 images (no createPDB), and images in no cache. */
  assert_null(ngen_pdb_framework("C:\\Windows\\assembly\\NativeImages_v2.0.50727_64\\"
                                 "mscorlib\\0a1b\\mscorlib.ni.dll"));
  assert_null(ngen_pdb_framework("C:\\app\\bin\\App.ni.dll"));
  assert_null(ngen_pdb_framework("C:\\Windows\\assembly\\NativeImages_v4.0.30319_64"));
  assert_null(ngen_pdb_framework(""));
}

enum ngen_mode { NGEN_MAKES, NGEN_FAILS, NGEN_ABSENT };

struct fake_ngen {
  enum ngen_mode mode;
  char objdump[1024]; /* objdump -p of the image */
  int calls;
  char framework[32], image[1024], out_dir[1024];
};

/* "(format RSDS signature HEX age N pdb NAME)" of objdump -p. */
static void objdump_rsds(const char *path, char *hex, unsigned *age, char *pdb)
{
  char line[1024];
  FILE *f = fopen(path, "r");
  int found = 0;
  assert_non_null(f);
  while (!found && fgets(line, sizeof(line), f)) {
    const char *p = strstr(line, "(format RSDS signature ");
    found = p && sscanf(p, "(format RSDS signature %32[0-9a-f] age %u pdb %255[^)]", hex, age,
                        pdb) == 3;
  }
  fclose(f);
  assert_true(found);
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int run_fake_ngen(void *ctx, const char *framework, const char *image, const char *out_dir,
                         int *exit_code, char *why, size_t why_size)
{
  struct fake_ngen *n = ctx;
  char hex[33], pdb[256], path[2048];
  unsigned age;
  n->calls++;
  snprintf(n->framework, sizeof(n->framework), "%s", framework);
  snprintf(n->image, sizeof(n->image), "%s", image);
  snprintf(n->out_dir, sizeof(n->out_dir), "%s", out_dir);
  if (n->mode == NGEN_ABSENT) {
    snprintf(why, why_size, "C:\\Windows\\Microsoft.NET\\%s\\v4.0.30319\\ngen.exe is not there",
             framework);
    return ETWCAP_E_NOENT;
  }
  objdump_rsds(n->objdump, hex, &age, pdb);
  snprintf(path, sizeof(path), "%s/%s", out_dir, pdb);
  assert_int_equal(os_make_dir(path), 0);
  snprintf(path, sizeof(path), "%s/%s/%s%u", out_dir, pdb, hex, age);
  assert_int_equal(os_make_dir(path), 0);
  snprintf(path, sizeof(path), "%s/%s/%s%u/%s", out_dir, pdb, hex, age, pdb);
  write_file(path, n->mode == NGEN_MAKES ? "Microsoft C/C++ MSF 7.00\r\n" : "Micro");
  *exit_code = n->mode == NGEN_MAKES ? 0 : 1;
  return 0;
}

/* Removes `path` and everything under it (what an earlier run left). */
static int remove_entry(void *ctx, const char *name);

static void remove_tree(const char *path)
{
  if (os_is_plain_dir(path)) {
    os_dir_list(path, remove_entry, (void *)path);
    os_remove_dir(path);
  } else {
    os_remove(path);
  }
}

static int remove_entry(void *ctx, const char *name)
{
  char child[1100];
  snprintf(child, sizeof(child), "%s/%s", (const char *)ctx, name);
  remove_tree(child);
  return 0;
}

struct image_setup {
  char dir[512], image[1024], data_file[1024];
  struct fake_ngen ngen;
  struct ngen_runner runner;
};

/* DIR/Windows/assembly/NativeImages_v4.0.30319_64/mscorlib/0a1b/mscorlib.ni.dll,
 * a copy of the fixture; 0 when the fixtures were not built. */
static int setup_image(struct image_setup *s, const char *name, enum ngen_mode mode)
{
  static const char *const parts[] = { "Windows", "assembly", "NativeImages_v4.0.30319_64",
                                       "mscorlib", "0a1b" };
  const char *fixtures = getenv("ETWCAP_PE_FIXTURES");
  char src[1024], *data;
  size_t i, len;
  FILE *f;
  if (!fixtures || !*fixtures) {
    print_message("ETWCAP_PE_FIXTURES is not set (no mingw-w64 tools): skipping\n");
    return 0;
  }
  memset(s, 0, sizeof(*s));
  test_tmp_path(name, s->dir, sizeof(s->dir));
  remove_tree(s->dir);
  assert_int_equal(test_mkdir(s->dir), 0);
  snprintf(s->image, sizeof(s->image), "%s", s->dir);
  for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
    snprintf(s->image + strlen(s->image), sizeof(s->image) - strlen(s->image), "/%s", parts[i]);
    assert_int_equal(test_mkdir(s->image), 0);
  }
  snprintf(s->image + strlen(s->image), sizeof(s->image) - strlen(s->image), "/mscorlib.ni.dll");
  snprintf(src, sizeof(src), "%s/mscorlib.ni.dll", fixtures);
  f = fopen(src, "rb");
  assert_non_null(f);
  data = malloc(1 << 20);
  len = fread(data, 1, 1 << 20, f);
  fclose(f);
  f = fopen(s->image, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
  free(data);
  snprintf(s->data_file, sizeof(s->data_file), "%s/X.etl", s->dir);
  snprintf(s->ngen.objdump, sizeof(s->ngen.objdump), "%s/mscorlib.ni.dll.objdump.txt", fixtures);
  s->ngen.mode = mode;
  s->runner.run = run_fake_ngen;
  s->runner.ctx = &s->ngen;
  return 1;
}

static int count_entry(void *ctx, const char *name)
{
  (void)name;
  ++*(int *)ctx;
  return 0;
}

/* Entries of s->dir: the image's folder and what else was left. */
static int entries_left(const struct image_setup *s)
{
  int n = 0;
  assert_int_equal(os_dir_list(s->dir, count_entry, &n), 0);
  return n;
}

static void ngen_makes_the_pdb_under_its_symbol_server_path(void **state)
{
  struct image_setup s;
  struct ngen_pdbs pdbs;
  const char *images[2];
  char hex[33], pdb[256], want[600], full[1100];
  unsigned age;
  int64_t size;
  (void)state;
  if (!setup_image(&s, "ngen_pdb_makes", NGEN_MAKES))
    skip();
  images[0] = s.image;
  images[1] = s.image; /* loaded twice: made once */
  ngen_pdbs_make(images, 2, s.data_file, &s.runner, &pdbs);
  assert_int_equal(s.ngen.calls, 1);
  assert_string_equal(s.ngen.framework, "Framework64");
  assert_string_equal(s.ngen.image, s.image);
  assert_string_equal(s.ngen.out_dir, pdbs.work_dir);
  /* Beside the trace, by its absolute name (ngen gets it on its command line). */
  assert_int_equal(os_full_path(s.data_file, full, sizeof(full)), 0);
  assert_int_equal(strncmp(pdbs.work_dir, full, strlen(full)), 0);
  assert_int_equal(pdbs.count, 1);
  objdump_rsds(s.ngen.objdump, hex, &age, pdb);
  snprintf(want, sizeof(want), "symbols/%s/%s%u/%s", pdb, hex, age, pdb);
  assert_string_equal(pdbs.files[0].zip_name, want);
  assert_string_equal(pdb, "mscorlib.ni.pdb");
  assert_int_equal(os_file_size(pdbs.files[0].path, &size), 0);
  assert_int_equal(size, 26);
  assert_int_equal(entries_left(&s), 2); /* Windows/ and the work folder */
  ngen_pdbs_release(&pdbs);
  assert_int_equal(entries_left(&s), 1);
}

/* An image name longer than the 1,023 bytes ngen_pdb keeps is skipped, not
 * cut: cut, ".../mscorlib.ni.dll_other.dll" would name mscorlib.ni.dll,
 * another image, for ngen to make a PDB of. */
static void a_name_too_long_to_keep_is_skipped(void **state)
{
  static char name[1100];
  struct image_setup s;
  struct ngen_pdbs pdbs;
  const char *images[1];
  size_t dir_len;
  (void)state;
  if (!setup_image(&s, "ngen_pdb_long", NGEN_MAKES))
    skip();
  /* s.image with "/." after its folder until it has 1,023 bytes. */
  dir_len = strlen(s.dir);
  snprintf(name, sizeof(name), "%s", s.dir);
  if ((1023 - strlen(s.image)) % 2)
    strcat(name, "/");
  while (strlen(name) + strlen(s.image) - dir_len < 1023)
    strcat(name, "/.");
  strcat(name, s.image + dir_len);
  assert_int_equal(strlen(name), 1023);
  strcat(name, "_other.dll");
  images[0] = name;
  ngen_pdbs_make(images, 1, s.data_file, &s.runner, &pdbs);
  assert_int_equal(s.ngen.calls, 0);
  assert_int_equal(pdbs.count, 0);
  ngen_pdbs_release(&pdbs);
}

static void a_failed_ngen_leaves_nothing(void **state)
{
  struct image_setup s;
  struct ngen_pdbs pdbs;
  const char *images[1];
  (void)state;
  if (!setup_image(&s, "ngen_pdb_fails", NGEN_FAILS))
    skip();
  images[0] = s.image;
  ngen_pdbs_make(images, 1, s.data_file, &s.runner, &pdbs);
  assert_int_equal(s.ngen.calls, 1);
  assert_int_equal(pdbs.count, 0);
  ngen_pdbs_release(&pdbs);
  assert_int_equal(entries_left(&s), 1); /* the bad PDB and its folders are gone */
}

static void no_ngen_stops_at_the_first_image(void **state)
{
  struct image_setup s;
  struct ngen_pdbs pdbs;
  const char *images[3];
  (void)state;
  if (!setup_image(&s, "ngen_pdb_absent", NGEN_ABSENT))
    skip();
  images[0] = "C:\\app\\App.ni.dll"; /* in no cache: not run */
  images[1] = s.image;
  images[2] = s.image;
  ngen_pdbs_make(images, 3, s.data_file, &s.runner, &pdbs);
  assert_int_equal(s.ngen.calls, 1);
  assert_int_equal(pdbs.count, 0);
  ngen_pdbs_release(&pdbs);
  assert_int_equal(entries_left(&s), 1);
}

/* The real runner where ngen cannot run: off Windows it needs Windows;
 * under Wine (no .NET Framework 4 in the prefix: mscoree is disabled) the
 * Windows build finds no ngen.exe in Framework64\\v4.0.30319. */
static void the_os_runner_says_why_ngen_cannot_run(void **state)
{
  int exit_code = 0, rc;
  char why[256] = "";
  (void)state;
  rc = ngen_runner_os.run(ngen_runner_os.ctx, "Framework64", "x.ni.dll", "out", &exit_code, why,
                          sizeof(why));
  assert_true(rc == ETWCAP_E_NEEDS_WINDOWS || rc == ETWCAP_E_NOENT);
  assert_int_equal(exit_code, -1);
  if (rc == ETWCAP_E_NOENT)
    assert_non_null(strstr(why, "\\Microsoft.NET\\Framework64\\v4.0.30319\\ngen.exe is not there"));
  else
    assert_non_null(strstr(why, "ngen.exe runs only on the Windows"));
}

/* --- through the merge --------------------------------------------------- */

#define T0 1000000u /* raw timestamps (QPC at 10 MHz) after the header's */

/* A SYSTEM64 record (docs/etl.md §4.2): Version, HeaderType 0x02, marker
 * 0xC0, Size, HookId, ThreadId, ProcessId, SystemTime, Kernel/UserTime,
 * payload; or a PERFINFO64 one (HeaderType 0x11): Version, type, marker,
 * Size, HookId, SystemTime, payload. */
static void write_record(struct etl_writer *w, int perfinfo, uint16_t hook, uint32_t pid,
                         uint32_t tid, uint64_t ts, const uint8_t *payload, size_t len)
{
  uint8_t r[2048];
  size_t head = perfinfo ? 16 : 32;
  memset(r, 0, sizeof(r));
  r[0] = 3; /* Version: Image/Load v3, as Windows 10 logs it */
  r[2] = perfinfo ? 0x11 : 0x02;
  r[3] = 0xC0;
  r[4] = (uint8_t)(head + len);
  r[5] = (uint8_t)((head + len) >> 8);
  r[6] = (uint8_t)hook;
  r[7] = (uint8_t)(hook >> 8);
  if (perfinfo) {
    memcpy(r + 8, &ts, 8); /* little-endian host: the tests run on x86 */
  } else {
    memcpy(r + 8, &tid, 4);
    memcpy(r + 12, &pid, 4);
    memcpy(r + 16, &ts, 8);
  }
  memcpy(r + head, payload, len);
  assert_int_equal(etl_writer_write(w, 0, ts, r, (uint32_t)(head + len)), 0);
}

/* X.etl: a thread of process 1234 starts, loads the native image at
 * 0x7ff800000000 (0x30000 bytes) and is sampled in it (payload layouts of
 * KernelTraceEventParser.cs, as in test_ngen_modules.c). */
static void write_trace(const struct image_setup *s)
{
  struct etl_writer_config cfg;
  struct etl_writer *w;
  uint8_t p[1500];
  uint64_t base = 0x7ff800000000ull, size = 0x30000, ip = base + 0x12345;
  uint32_t pid = 1234, tid = 55, one = 1;
  size_t i, n = strlen(s->image);
  test_kernel_trace_config(&cfg, "etwcapKernel");
  assert_int_equal(etl_writer_open(&w, s->data_file, &cfg), 0);
  memset(p, 0, sizeof(p));
  memcpy(p, &pid, 4);
  memcpy(p + 4, &tid, 4);
  write_record(w, 0, 0x0501, pid, tid, T0, p, 72); /* Thread/Start */
  memset(p, 0, sizeof(p));
  memcpy(p, &base, 8);
  memcpy(p + 8, &size, 8);
  memcpy(p + 16, &pid, 4);
  for (i = 0; i < n; i++)
    p[56 + 2 * i] = (uint8_t)s->image[i];
  write_record(w, 0, 0x030A, pid, tid, T0 + 1, p, 56 + 2 * n + 2); /* Image/Load */
  memset(p, 0, sizeof(p));
  memcpy(p, &ip, 8);
  memcpy(p + 8, &tid, 4);
  memcpy(p + 12, &one, 4);
  write_record(w, 1, 0x0F2E, 0, 0, T0 + 2, p, 16); /* PerfInfo/SampledProfile */
  assert_int_equal(etl_writer_finish(w), 0);
}

/* Members of `zip` whose name starts with `prefix` (minizip's reader). */
static int zip_members(const char *zip, const char *prefix)
{
  unzFile z = unzOpen64(zip);
  char name[1024];
  int found = 0, rc;
  assert_non_null(z);
  for (rc = unzGoToFirstFile(z); rc == UNZ_OK; rc = unzGoToNextFile(z)) {
    assert_int_equal(unzGetCurrentFileInfo64(z, NULL, name, sizeof(name), NULL, 0, NULL, 0),
                     UNZ_OK);
    found += strncmp(name, prefix, strlen(prefix)) == 0;
  }
  unzClose(z);
  return found;
}

static void merge_with(struct image_setup *s, char *zip, size_t zip_size, char *log_text,
                       size_t log_size)
{
  struct capture_finish_params p;
  struct capture_finish_result r;
  struct log_memory log;
  char why[512];
  write_trace(s);
  memset(&log, 0, sizeof(log));
  log_add_sink(log_memory_sink, &log, LOG_DEBUG);
  memset(&p, 0, sizeof(p));
  p.data_file = s->data_file;
  p.zip = 1;
  p.log = &log;
  p.ngen = &s->runner;
  assert_int_equal(capture_finish(&p, &r, why, sizeof(why)), 0);
  log_remove_sink(log_memory_sink, &log);
  log_memory_release(&log);
  snprintf(zip, zip_size, "%s.zip", s->data_file);
  test_zip_text(zip, "LogFile.txt", log_text, log_size);
}

static void the_merged_zip_carries_the_pdb_under_symbols(void **state)
{
  struct image_setup s;
  char zip[1100], name[600], hex[33], pdb[256], text[65536];
  unsigned age;
  (void)state;
  if (!setup_image(&s, "ngen_pdb_zip", NGEN_MAKES))
    skip();
  merge_with(&s, zip, sizeof(zip), text, sizeof(text));
  assert_int_equal(s.ngen.calls, 1);
  objdump_rsds(s.ngen.objdump, hex, &age, pdb);
  snprintf(name, sizeof(name), "symbols/%s/%s%u/%s", pdb, hex, age, pdb);
  test_zip_text(zip, name, text, sizeof(text));
  assert_string_equal(text, "Microsoft C/C++ MSF 7.00\r\n");
  assert_int_equal(zip_members(zip, "symbols/"), 1);
  test_zip_text(zip, "LogFile.txt", text, sizeof(text));
  assert_non_null(strstr(text, "NGEN PDBs: 1 made for the 1 native images"));
  assert_int_equal(entries_left(&s), 2); /* Windows/ and the zip: ngen's folder is gone */
}

/* /Wpr: no zip, and PerfView's X.etl.ngenpdb folder beside the merged ETL
 * holds the PDB in the symbol-server layout (CommandProcessor.cs: "Putting
 * NGEN pdbs into {DataFile}.ngenpdb"). */
static void without_a_zip_the_pdb_goes_into_the_ngenpdb_folder(void **state)
{
  struct capture_finish_params p;
  struct capture_finish_result r;
  struct image_setup s;
  char path[1600], hex[33], pdb[256], why[512];
  unsigned age;
  int64_t size;
  (void)state;
  if (!setup_image(&s, "ngen_pdb_wpr", NGEN_MAKES))
    skip();
  write_trace(&s);
  memset(&p, 0, sizeof(p));
  p.data_file = s.data_file;
  p.zip = 0;
  p.ngen = &s.runner;
  assert_int_equal(capture_finish(&p, &r, why, sizeof(why)), 0);
  assert_int_equal(s.ngen.calls, 1);
  objdump_rsds(s.ngen.objdump, hex, &age, pdb);
  snprintf(path, sizeof(path), "%s.ngenpdb/%s/%s%u/%s", s.data_file, pdb, hex, age, pdb);
  assert_int_equal(os_file_size(path, &size), 0);
  assert_int_equal(size, 26);
  /* Windows/, X.etl and X.etl.ngenpdb: ngen's own folder is gone. */
  assert_int_equal(entries_left(&s), 3);
}

static void without_ngen_the_zip_says_why_and_has_no_pdb(void **state)
{
  struct image_setup s;
  char zip[1100], text[65536];
  (void)state;
  if (!setup_image(&s, "ngen_pdb_zip_absent", NGEN_ABSENT))
    skip();
  merge_with(&s, zip, sizeof(zip), text, sizeof(text));
  assert_non_null(strstr(text, "NGEN PDBs not made (native images needing one: 1): "));
  assert_non_null(strstr(text, "ngen.exe is not there"));
  assert_int_equal(zip_members(zip, "symbols/"), 0);
  assert_int_equal(zip_members(zip, ""), 3); /* X.etl, LogFile.txt, the manifest */
  assert_int_equal(entries_left(&s), 2);
}

static void a_failed_ngen_is_named_in_the_log(void **state)
{
  struct image_setup s;
  char zip[1100], text[65536];
  (void)state;
  if (!setup_image(&s, "ngen_pdb_zip_fails", NGEN_FAILS))
    skip();
  merge_with(&s, zip, sizeof(zip), text, sizeof(text));
  assert_non_null(strstr(text, "NGEN PDBs made for 0 of the 1 native images with samples or stacks"));
  assert_non_null(strstr(text, "mscorlib.ni.dll: ngen createPDB exited with 1 and made no "));
  assert_int_equal(zip_members(zip, "symbols/"), 0);
  assert_int_equal(entries_left(&s), 2);
}

/* merge /ImageIDsOnly (inside a container, PerfView makes the PDBs there
 * too): a zip merged where ngen could not run gets the PDB; a second run
 * finds it there and leaves the zip as it was. */
static void image_ids_only_adds_the_pdb_once(void **state)
{
  struct image_setup s;
  char zip[1100], name[600], hex[33], pdb[256], text[65536], why[512];
  unsigned age;
  int64_t before, after;
  (void)state;
  if (!setup_image(&s, "ngen_pdb_image_ids", NGEN_ABSENT))
    skip();
  merge_with(&s, zip, sizeof(zip), text, sizeof(text));
  assert_int_equal(zip_members(zip, "symbols/"), 0);
  s.ngen.mode = NGEN_MAKES;
  assert_int_equal(image_ids_only(zip, NULL, &s.runner, 0, NULL, why, sizeof(why)), 0);
  objdump_rsds(s.ngen.objdump, hex, &age, pdb);
  snprintf(name, sizeof(name), "symbols/%s/%s%u/%s", pdb, hex, age, pdb);
  test_zip_text(zip, name, text, sizeof(text));
  assert_string_equal(text, "Microsoft C/C++ MSF 7.00\r\n");
  assert_int_equal(zip_members(zip, ""), 4);
  assert_int_equal(os_file_size(zip, &before), 0);
  assert_int_equal(image_ids_only(zip, NULL, &s.runner, 0, NULL, why, sizeof(why)), 0);
  assert_int_equal(s.ngen.calls, 3);
  assert_int_equal(zip_members(zip, ""), 4);
  assert_int_equal(os_file_size(zip, &after), 0);
  assert_int_equal(before, after);
  assert_int_equal(entries_left(&s), 2); /* Windows/ and the zip */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(frameworks_come_from_the_cache_folder),
    cmocka_unit_test(ngen_makes_the_pdb_under_its_symbol_server_path),
    cmocka_unit_test(a_failed_ngen_leaves_nothing),
    cmocka_unit_test(a_name_too_long_to_keep_is_skipped),
    cmocka_unit_test(no_ngen_stops_at_the_first_image),
    cmocka_unit_test(the_os_runner_says_why_ngen_cannot_run),
    cmocka_unit_test(the_merged_zip_carries_the_pdb_under_symbols),
    cmocka_unit_test(without_a_zip_the_pdb_goes_into_the_ngenpdb_folder),
    cmocka_unit_test(without_ngen_the_zip_says_why_and_has_no_pdb),
    cmocka_unit_test(a_failed_ngen_is_named_in_the_log),
    cmocka_unit_test(image_ids_only_adds_the_pdb_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
