/* The PE reader on real PE files: the fixtures tests/pe/pe_fixtures.cmake
 * builds with mingw-w64 (checked field by field against `objdump -p` of the
 * same file and against the values in fixture_version.rc), Wine's own PE
 * DLLs (no debug directory), and truncated or damaged copies (errors, never
 * crashes). */
#include "tests/fakes/test_support.h"

#include "etw/image/pe_image.h"
#include "src/base/error.h"
#include "src/base/os/os_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TimeDateStamps set through SOURCE_DATE_EPOCH in tests/pe/pe_fixtures.cmake. */
#define EPOCH_PE64_BUILDID 1234567890u
#define EPOCH_PE64_PDB 1300000000u
#define EPOCH_PE64_VERSION 1400000000u
#define EPOCH_PE32_BUILDID 1500000000u
#define EPOCH_PE32_VERSION 1600000000u

struct fixture {
  const char *name;
  int bits;
  uint32_t time_date_stamp;
  const char *pdb;  /* the PDB path in the RSDS record ("" with --build-id) */
  int has_version;
};

static const struct fixture fixtures[] = {
  { "pe64_buildid.exe", 64, EPOCH_PE64_BUILDID, "", 0 },
  { "pe64_pdb.dll", 64, EPOCH_PE64_PDB, "etwcap_fixture64.pdb", 0 },
  { "pe64_version.dll", 64, EPOCH_PE64_VERSION, "", 1 },
  { "pe32_buildid.exe", 32, EPOCH_PE32_BUILDID, "", 0 },
  { "pe32_version.dll", 32, EPOCH_PE32_VERSION, "etwcap_fixture32.pdb", 1 },
};
#define FIXTURE_COUNT (sizeof fixtures / sizeof fixtures[0])

static uint8_t *read_all(const char *path, size_t *len)
{
  FILE *f = os_fopen(path, "rb");
  uint8_t *data = NULL;
  size_t cap = 0, n = 0, got;
  assert_non_null(f);
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      data = realloc(data, cap);
      assert_non_null(data);
    }
    got = fread(data + n, 1, cap - n, f);
    if (got == 0)
      break;
    n += got;
  }
  fclose(f);
  *len = n;
  return data;
}

/* What `objdump -p` says about a fixture. */
struct objdump {
  unsigned magic;
  unsigned long long image_base;
  unsigned size_of_image, checksum;
  unsigned long long dir_rva[16];
  unsigned dir_size[16];
  int have_cv;
  unsigned cv_size, cv_rva, cv_offset;
  char rsds_signature[33];
  unsigned rsds_age;
  char rsds_pdb[256];
};

static void read_objdump(const char *name, struct objdump *od)
{
  char path[1024], line[512];
  FILE *f;
  memset(od, 0, sizeof *od);
  snprintf(path, sizeof path, "%s.objdump.txt", test_pe_fixture(name, line, sizeof line));
  f = os_fopen(path, "rb");
  assert_non_null(f);
  while (fgets(line, sizeof line, f)) {
    unsigned idx, sz, a, b, c;
    unsigned long long rva;
    char kind[32];
    if (sscanf(line, "Magic %x", &od->magic) == 1)
      continue;
    if (sscanf(line, "ImageBase %llx", &od->image_base) == 1)
      continue;
    if (sscanf(line, "SizeOfImage %x", &od->size_of_image) == 1)
      continue;
    if (sscanf(line, "CheckSum %x", &od->checksum) == 1)
      continue;
    if (sscanf(line, "Entry %x %llx %x", &idx, &rva, &sz) == 3 && idx < 16) {
      od->dir_rva[idx] = rva;
      od->dir_size[idx] = sz;
      continue;
    }
    if (sscanf(line, " %u %31s %x %x %x", &idx, kind, &a, &b, &c) == 5 && idx == 2 &&
        strcmp(kind, "CodeView") == 0) {
      od->have_cv = 1;
      od->cv_size = a;
      od->cv_rva = b;
      od->cv_offset = c;
      continue;
    }
    if (sscanf(line, "(format RSDS signature %32[0-9a-f] age %u pdb %255[^)]", od->rsds_signature,
               &od->rsds_age, od->rsds_pdb) == 3)
      continue;
  }
  fclose(f);
  assert_true(od->magic != 0);
}

static int read_fixture_at(const char *path, struct pe_image *pe)
{
  struct byte_source src;
  int rc;
  assert_int_equal(byte_source_open_file(&src, path), 0);
  rc = pe_image_read(pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  return rc;
}

static int read_fixture(const char *name, struct pe_image *pe)
{
  char path[1024];
  return read_fixture_at(test_pe_fixture(name, path, sizeof path), pe);
}

/* objdump prints the RSDS GUID as its registry text without the dashes. */
static void guid_hex(const struct etw_guid *g, char *out)
{
  char text[GUID_STRING_SIZE];
  const char *p;
  guid_format(g, text);
  for (p = text; *p; p++)
    if (*p != '-')
      *out++ = *p;
  *out = '\0';
}

static void fixtures_match_objdump(void **state)
{
  size_t i;
  (void)state;
  for (i = 0; i < FIXTURE_COUNT; i++) {
    const struct fixture *fx = &fixtures[i];
    struct objdump od;
    struct pe_image pe;
    const struct pe_debug_entry *d;
    char sig[33];
    uint64_t off;
    int k;
    read_objdump(fx->name, &od);
    assert_int_equal(read_fixture(fx->name, &pe), 0);
    assert_int_equal(pe.machine, fx->bits == 64 ? PE_MACHINE_AMD64 : PE_MACHINE_I386);
    assert_int_equal(pe.magic, od.magic);
    assert_int_equal(pe.is_pe32plus, fx->bits == 64);
    assert_int_equal(pe.time_date_stamp, fx->time_date_stamp);
    assert_true(pe.image_base == od.image_base);
    assert_int_equal(pe.size_of_image, od.size_of_image);
    assert_int_equal(pe.checksum, od.checksum);
    for (k = 0; k < 16; k++) {
      assert_true(pe.dir[k].rva == od.dir_rva[k]);
      assert_int_equal(pe.dir[k].size, od.dir_size[k]);
    }
    assert_true(pe.section_count > 0);
    assert_int_equal(pe.section_count, pe.number_of_sections);
    assert_false(pe_image_is_managed(&pe));
    assert_false(pe_image_is_deterministic(&pe));

    /* The debug directory: one CodeView RSDS entry, as objdump lists it. */
    assert_true(od.have_cv);
    assert_int_equal(pe.debug_count, 1);
    d = pe_image_first_rsds(&pe);
    assert_non_null(d);
    assert_int_equal(d->type, PE_DEBUG_CODEVIEW);
    assert_int_equal(d->cv_format, PE_CV_RSDS);
    assert_int_equal(d->size_of_data, od.cv_size);
    assert_int_equal(d->address_of_raw_data, od.cv_rva);
    assert_int_equal(d->pointer_to_raw_data, od.cv_offset);
    assert_int_equal(pe_image_rva_to_offset(&pe, d->address_of_raw_data, d->size_of_data, &off),
                     0);
    assert_true(off == d->pointer_to_raw_data);
    guid_hex(&d->pdb_guid, sig);
    assert_string_equal(sig, od.rsds_signature);
    assert_int_equal(d->pdb_age, od.rsds_age);
    assert_string_equal(d->pdb_path, fx->pdb);
    assert_string_equal(od.rsds_pdb, fx->pdb[0] ? fx->pdb : "(none"); /* scanf stops at the ")" */
    assert_false(pe_debug_is_portable_pdb(d));

    assert_int_equal(pe.version.present, fx->has_version);
    pe_image_release(&pe);
  }
}

static void version_resource_matches_the_rc_file(void **state)
{
  static const char *names[] = { "pe64_version.dll", "pe32_version.dll" };
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    struct pe_image pe;
    char buf[256];
    const struct pe_version *v = &pe.version;
    assert_int_equal(read_fixture(names[i], &pe), 0);
    assert_true(v->present);
    assert_true(v->has_fixed);
    /* FILEVERSION 1,2,3,4 and PRODUCTVERSION 5,6,7,8 */
    assert_int_equal(v->file_version_ms, 0x00010002);
    assert_int_equal(v->file_version_ls, 0x00030004);
    assert_int_equal(v->product_version_ms, 0x00050006);
    assert_int_equal(v->product_version_ls, 0x00070008);
    pe_version_file_version_text(v, buf, sizeof buf);
    assert_string_equal(buf, "1.2.3.4");
    /* The Translation entry (0x0407, 1200), not the first table's key. */
    assert_true(v->has_language);
    assert_int_equal(v->language, 0x0407);
    assert_int_equal(v->codepage, 1200);
    /* Strings of the first StringTable ("040904b0"). */
    assert_string_equal(pe_wstr_to_utf8(&v->company_name, buf, sizeof buf), "etwcap tests");
    assert_string_equal(pe_wstr_to_utf8(&v->file_description, buf, sizeof buf),
                        "PE fixture with a version resource");
    assert_string_equal(pe_wstr_to_utf8(&v->file_version, buf, sizeof buf), "1.2.3.4 (fixture)");
    assert_string_equal(pe_wstr_to_utf8(&v->internal_name, buf, sizeof buf), "fixture_version");
    assert_string_equal(pe_wstr_to_utf8(&v->original_filename, buf, sizeof buf),
                        "etwcap_fixture_orig.dll");
    assert_int_equal(v->original_filename.len, strlen("etwcap_fixture_orig.dll"));
    assert_string_equal(pe_wstr_to_utf8(&v->product_name, buf, sizeof buf), "etwcap");
    assert_string_equal(pe_wstr_to_utf8(&v->product_version, buf, sizeof buf), "5.6.7.8-fixture");
    pe_image_release(&pe);
  }
}

static int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void wine_dlls_parse_and_have_no_debug_info(void **state)
{
  const char *dir = getenv("ETWCAP_WINE_PE_DLLS");
  DIR *d;
  struct dirent *de;
  unsigned parsed = 0, with_version = 0;
  (void)state;
  if (!dir || !*dir || !(d = opendir(dir))) {
    print_message("Wine's PE DLLs are not here: skipping\n");
    skip();
    return;
  }
  while ((de = readdir(d)) != NULL) {
    char path[1024];
    struct byte_source src;
    struct pe_image pe;
    if (!has_suffix(de->d_name, ".dll"))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    assert_int_equal(byte_source_open_file(&src, path), 0);
    if (pe_image_read(&pe, &src, PE_READ_ALL) != 0) {
      print_message("%s: not readable\n", path);
      fail();
    }
    byte_source_close(&src);
    assert_int_equal(pe.machine, PE_MACHINE_AMD64);
    assert_true(pe.is_pe32plus);
    assert_true(pe.size_of_image > 0);
    /* Wine's PE DLLs carry no debug directory: "no debug info". */
    assert_null(pe_image_first_rsds(&pe));
    with_version += pe.version.present != 0;
    parsed++;
    pe_image_release(&pe);
  }
  closedir(d);
  assert_true(parsed >= 50);
  assert_true(with_version > 0);
}

static void memory_and_file_sources_agree(void **state)
{
  char path[1024];
  size_t len;
  uint8_t *bytes;
  struct byte_source src;
  struct pe_image a, b;
  (void)state;
  bytes = read_all(test_pe_fixture("pe32_version.dll", path, sizeof path), &len);
  assert_int_equal(byte_source_open_memory(&src, bytes, len), 0);
  assert_int_equal(pe_image_read(&a, &src, PE_READ_ALL), 0);
  byte_source_close(&src);
  assert_int_equal(read_fixture("pe32_version.dll", &b), 0);
  assert_int_equal(a.time_date_stamp, b.time_date_stamp);
  assert_int_equal(a.size_of_image, b.size_of_image);
  assert_int_equal(a.section_count, b.section_count);
  assert_int_equal(a.debug_count, b.debug_count);
  assert_true(guid_equal(&a.debug[0].pdb_guid, &b.debug[0].pdb_guid));
  assert_string_equal(a.debug[0].pdb_path, b.debug[0].pdb_path);
  assert_true(a.file_size == (int64_t)len && b.file_size == (int64_t)len);
  pe_image_release(&a);
  pe_image_release(&b);
  free(bytes);
}

static int read_bytes(const uint8_t *p, size_t len, struct pe_image *pe)
{
  struct byte_source src;
  int rc = byte_source_open_memory(&src, p, len);
  if (rc)
    return rc; /* the allocation sweep reaches the source too */
  rc = pe_image_read(pe, &src, PE_READ_ALL);
  byte_source_close(&src);
  return rc;
}

static int is_pe_error(int rc)
{
  return rc == ETWCAP_E_FORMAT || rc == ETWCAP_E_TRUNCATED || rc == ETWCAP_E_CORRUPT;
}

static void truncated_images_fail_cleanly(void **state)
{
  size_t i, f;
  (void)state;
  for (f = 0; f < FIXTURE_COUNT; f++) {
    char path[1024];
    size_t len, debug_end;
    uint8_t *bytes = read_all(test_pe_fixture(fixtures[f].name, path, sizeof path), &len);
    struct pe_image pe;
    assert_int_equal(read_bytes(bytes, len, &pe), 0);
    /* A copy that ends before the end of the debug table cannot be read. */
    {
      uint64_t off;
      assert_int_equal(pe_image_rva_to_offset(&pe, pe.dir[PE_DIR_DEBUG].rva,
                                              pe.dir[PE_DIR_DEBUG].size, &off),
                       0);
      debug_end = (size_t)off + pe.dir[PE_DIR_DEBUG].size;
    }
    pe_image_release(&pe);
    for (i = 0; i < len; i += i < 4096 ? 1 : 61) {
      /* A copy of exactly i bytes, so ASan sees any read past the end. */
      uint8_t *cut = malloc(i ? i : 1);
      int rc;
      assert_non_null(cut);
      memcpy(cut, bytes, i);
      rc = read_bytes(cut, i, &pe);
      if (rc == 0) {
        assert_true(i >= debug_end);
        pe_image_release(&pe);
      } else {
        assert_true(is_pe_error(rc));
        if (i < 64)
          assert_int_equal(rc, ETWCAP_E_FORMAT);
      }
      free(cut);
    }
    free(bytes);
  }
}

static void put32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Mutates one copy of pe64_pdb.dll and checks the error it gives. */
static void corrupt_headers_give_clear_errors(void **state)
{
  char path[1024];
  size_t len;
  uint8_t *orig = read_all(test_pe_fixture("pe64_pdb.dll", path, sizeof path), &len);
  uint8_t *b = malloc(len);
  uint32_t nt = get32(orig + 0x3C);
  uint32_t opt = nt + 24, dbg_dir = opt + 112 + 8 * PE_DIR_DEBUG;
  struct pe_image pe;
  (void)state;
  assert_non_null(b);

#define RESET() memcpy(b, orig, len)
  RESET();
  b[0] = 'Z'; /* no MZ */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_FORMAT);
  RESET();
  put32(b + 0x3C, 0x7FFFFFF0u); /* e_lfanew far away */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_FORMAT);
  RESET();
  put32(b + 0x3C, (uint32_t)len - 2); /* e_lfanew at the very end */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_TRUNCATED);
  RESET();
  b[nt + 1] = 'X'; /* "PX\0\0" */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_FORMAT);
  RESET();
  b[opt] = 0x07; /* optional header magic 0x207 */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_FORMAT);
  RESET();
  b[nt + 20] = 40; /* SizeOfOptionalHeader too small for PE32+ */
  b[nt + 21] = 0;
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_CORRUPT);
  RESET();
  b[nt + 6] = 0xFF; /* NumberOfSections 0xFFFF */
  b[nt + 7] = 0xFF;
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_CORRUPT);
  RESET();
  put32(b + dbg_dir, 0x7FFF0000u); /* debug directory outside every section */
  assert_int_equal(read_bytes(b, len, &pe), ETWCAP_E_CORRUPT);
  RESET();
  put32(b + dbg_dir + 4, 0); /* no debug directory: no debug info, not an error */
  assert_int_equal(read_bytes(b, len, &pe), 0);
  assert_null(pe_image_first_rsds(&pe));
  pe_image_release(&pe);

  /* An unreadable CodeView record leaves the entry UNKNOWN: the image is
   * still identified by its headers. */
  RESET();
  assert_int_equal(read_bytes(b, len, &pe), 0);
  {
    uint64_t off;
    assert_int_equal(pe_image_rva_to_offset(&pe, pe.dir[PE_DIR_DEBUG].rva, 28, &off), 0);
    pe_image_release(&pe);
    put32(b + off + 24, 0xFFFFFFF0u); /* PointerToRawData past the end */
    assert_int_equal(read_bytes(b, len, &pe), 0);
    assert_int_equal(pe.debug_count, 1);
    assert_int_equal(pe.debug[0].cv_format, PE_CV_UNKNOWN);
    assert_null(pe_image_first_rsds(&pe));
    pe_image_release(&pe);
    RESET();
    memcpy(b + get32(orig + off + 24), "NB10", 4); /* an NB10 record */
    assert_int_equal(read_bytes(b, len, &pe), 0);
    assert_int_equal(pe.debug[0].cv_format, PE_CV_NB10);
    pe_image_release(&pe);
  }
#undef RESET
  free(b);
  free(orig);
}

static void not_a_pe_is_a_format_error(void **state)
{
  static const char text[] = "This is not a program, just some text long enough to read "
                             "a DOS header from.";
  uint8_t elf[128] = { 0x7F, 'E', 'L', 'F', 2, 1, 1 };
  uint8_t dos[128] = { 'M', 'Z' }; /* an MS-DOS program: e_lfanew 0 */
  struct pe_image pe;
  (void)state;
  assert_int_equal(read_bytes((const uint8_t *)text, sizeof text, &pe), ETWCAP_E_FORMAT);
  assert_int_equal(read_bytes(elf, sizeof elf, &pe), ETWCAP_E_FORMAT);
  assert_int_equal(read_bytes(dos, sizeof dos, &pe), ETWCAP_E_FORMAT);
  assert_int_equal(read_bytes(dos, 0, &pe), ETWCAP_E_FORMAT);
}

static void random_damage_never_crashes(void **state)
{
  char path[1024];
  size_t len, n;
  uint8_t *orig = read_all(test_pe_fixture("pe64_version.dll", path, sizeof path), &len);
  uint8_t *b = malloc(len);
  uint32_t seed = 12345;
  struct pe_image good;
  (void)state;
  assert_non_null(b);
  assert_int_equal(read_bytes(orig, len, &good), 0);
  for (n = 0; n < 3000; n++) {
    struct pe_image pe;
    int k, flips, rc;
    memcpy(b, orig, len);
    seed = seed * 1103515245u + 12345u;
    flips = 1 + (int)(seed >> 28);
    for (k = 0; k < flips; k++) {
      size_t at;
      seed = seed * 1103515245u + 12345u;
      /* Half the damage in the headers, the rest near the debug data and
       * the resources, where the pointers are. */
      if (k & 1)
        at = (seed >> 8) % (len < 1024 ? len : 1024);
      else
        at = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      b[at] = (uint8_t)(seed >> 16);
    }
    rc = read_bytes(b, len, &pe);
    if (rc == 0)
      pe_image_release(&pe);
    else
      assert_true(is_pe_error(rc));
  }
  pe_image_release(&good);
  free(b);
  free(orig);
}

static void allocation_failures_release_everything(void **state)
{
  char path[1024];
  size_t len;
  uint8_t *bytes = read_all(test_pe_fixture("pe64_version.dll", path, sizeof path), &len);
  unsigned n;
  int rc = ETWCAP_E_NOMEM;
  (void)state;
  for (n = 1; n < 64 && rc == ETWCAP_E_NOMEM; n++) {
    struct pe_image pe;
    test_fail_alloc_after(n);
    rc = read_bytes(bytes, len, &pe);
    test_fail_alloc_after(0);
    if (rc == 0) {
      assert_true(pe.version.present);
      pe_image_release(&pe);
    } else {
      assert_int_equal(rc, ETWCAP_E_NOMEM);
    }
  }
  assert_int_equal(rc, 0);
  assert_true(n > 3); /* sections, debug table, CodeView path, version strings */
  free(bytes);
}

static void rva_outside_the_file_is_corrupt(void **state)
{
  struct pe_image pe;
  uint64_t off = 0;
  (void)state;
  assert_int_equal(read_fixture("pe64_buildid.exe", &pe), 0);
  /* The headers map 1:1. */
  assert_int_equal(pe_image_rva_to_offset(&pe, 0x40, 4, &off), 0);
  assert_true(off == 0x40);
  assert_int_equal(pe_image_rva_to_offset(&pe, pe.size_of_image + 0x1000, 4, &off),
                   ETWCAP_E_CORRUPT);
  assert_int_equal(pe_image_rva_to_offset(&pe, 0xFFFFFFF0u, 64, &off), ETWCAP_E_CORRUPT);
  pe_image_release(&pe);
}

/* UTF-8 paths reach the file system as Unicode on every OS (os_fopen). */
static void non_ascii_paths_open(void **state)
{
  char src_path[1024], dst_path[1024];
  size_t len;
  uint8_t *bytes = read_all(test_pe_fixture("pe64_pdb.dll", src_path, sizeof src_path), &len);
  FILE *f;
  struct pe_image pe;
  (void)state;
  test_tmp_path("\xc3\xafmage-\xe2\x9c\x93-\xe6\x97\xa5\xe6\x9c\xac.dll", dst_path,
                sizeof dst_path);
  f = os_fopen(dst_path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(read_fixture_at(dst_path, &pe), 0);
  assert_int_equal(pe.time_date_stamp, EPOCH_PE64_PDB);
  assert_true(pe.file_size == (int64_t)len);
  pe_image_release(&pe);
  assert_int_equal(os_remove(dst_path), 0);
  free(bytes);
}

/* VS_VERSIONINFO blocks assembled by hand: only the fixed part; a block
 * longer than its buffer; an unterminated key. */
static void version_blocks_by_hand(void **state)
{
  /* wLength 0x5C, wValueLength 52, wType 0, L"VS_VERSION_INFO\0", pad to 4,
   * VS_FIXEDFILEINFO (signature, struct version, file MS/LS, product MS/LS,
   * the rest zero). */
  uint8_t b[0x5C];
  const char *key = "VS_VERSION_INFO";
  struct pe_version v;
  size_t i;
  (void)state;
  memset(b, 0, sizeof b);
  b[0] = 0x5C;
  b[2] = 52;
  for (i = 0; key[i]; i++)
    b[6 + 2 * i] = (uint8_t)key[i];
  /* key ends at 6 + 32 = 38; value at 40 */
  put32(b + 40, 0xFEEF04BDu);
  put32(b + 44, 0x00010000u);
  put32(b + 48, 0x000A0000u);     /* 10.0 */
  put32(b + 52, 0x4A610000u | 450); /* 19041.450 */
  put32(b + 56, 0x00050006u);
  put32(b + 60, 0x00070008u);
  assert_int_equal(pe_version_parse(&v, b, sizeof b), 0);
  assert_true(v.present && v.has_fixed);
  {
    char text[32];
    pe_version_file_version_text(&v, text, sizeof text);
    assert_string_equal(text, "10.0.19041.450");
  }
  assert_false(v.has_language);
  assert_null(v.original_filename.s);
  pe_version_release(&v);

  b[0] = 0x5D; /* one byte longer than the buffer */
  assert_int_equal(pe_version_parse(&v, b, sizeof b), ETWCAP_E_CORRUPT);
  b[0] = 0x20; /* ends inside the key */
  assert_int_equal(pe_version_parse(&v, b, sizeof b), ETWCAP_E_CORRUPT);
  b[0] = 0x5C;
  b[6] = 'X'; /* another key */
  assert_int_equal(pe_version_parse(&v, b, sizeof b), ETWCAP_E_CORRUPT);
  assert_int_equal(pe_version_parse(&v, b, 3), ETWCAP_E_CORRUPT);
}

static void missing_file_is_noent(void **state)
{
  struct byte_source src;
  char path[1024];
  (void)state;
  assert_int_equal(byte_source_open_file(&src, test_tmp_path("no-such-image.dll", path, sizeof path)),
                   ETWCAP_E_NOENT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fixtures_match_objdump),
    cmocka_unit_test(version_resource_matches_the_rc_file),
    cmocka_unit_test(wine_dlls_parse_and_have_no_debug_info),
    cmocka_unit_test(memory_and_file_sources_agree),
    cmocka_unit_test(truncated_images_fail_cleanly),
    cmocka_unit_test(corrupt_headers_give_clear_errors),
    cmocka_unit_test(not_a_pe_is_a_format_error),
    cmocka_unit_test(random_damage_never_crashes),
    cmocka_unit_test(allocation_failures_release_everything),
    cmocka_unit_test(rva_outside_the_file_is_corrupt),
    cmocka_unit_test(non_ascii_paths_open),
    cmocka_unit_test(version_blocks_by_hand),
    cmocka_unit_test(missing_file_is_noent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
