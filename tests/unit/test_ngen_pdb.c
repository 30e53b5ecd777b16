/* NGEN PDBs for the zip (ngen_pdb.h), against a model of ngen createPDB:
 * given IMAGE and DIR it writes DIR/NAME/GUIDAGE/NAME and exits 0, or exits
 * non-zero and may leave a bad PDB behind (PerfView's
 * SymbolReader.GenerateNGenSymbolsForModule expects exactly that path and
 * deletes what a failed run left).  The model names the PDB from `objdump -p`
 * of the image (the RSDS record as binutils reads it), not from etwcap's PE
 * reader.  The image is tests/pe's mscorlib.ni.dll, a small DLL whose RSDS
 * record names mscorlib.ni.pdb, in a folder laid out as the machine's native
 * image cache. */
#include "test_support.h"

#include "capture_finish.h"
#include "error.h"
#include "etl_bytes.h"
#include "etl_reader.h"
#include "etl_writer.h"
#include "log.h"
#include "ngen_pdb.h"
#include "os_dir.h"
#include "os_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  char hex[33], pdb[256], want[600];
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
  assert_int_equal(strncmp(pdbs.work_dir, s.data_file, strlen(s.data_file)), 0);
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

static void the_os_runner_off_windows_says_it_needs_windows(void **state)
{
  int exit_code = 0, rc;
  char why[256] = "";
  (void)state;
  rc = ngen_runner_os.run(ngen_runner_os.ctx, "Framework64", "x.ni.dll", "out", &exit_code, why,
                          sizeof(why));
  if (rc != ETWCAP_E_NEEDS_WINDOWS) {
    print_message("the Windows build's ngen answered %d (exit %d, %s): see test_ngen_pdb_win32\n",
                  rc, exit_code, why);
    skip();
  }
  assert_int_equal(exit_code, -1);
  assert_non_null(strstr(why, "ngen.exe"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(frameworks_come_from_the_cache_folder),
    cmocka_unit_test(ngen_makes_the_pdb_under_its_symbol_server_path),
    cmocka_unit_test(a_failed_ngen_leaves_nothing),
    cmocka_unit_test(no_ngen_stops_at_the_first_image),
    cmocka_unit_test(the_os_runner_off_windows_says_it_needs_windows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
