/* PE headers, section table and debug directory, read through a byte_source
 * with explicit little-endian loads (PE/COFF specification, "Optional
 * Header", "Section Table", "Debug Directory").  The version resource is in
 * pe_version.c.  No field of the file is trusted: every offset is checked
 * against the section table and the file before it is read. */
#include "etw/image/pe_image.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

#define DOS_HEADER_SIZE 64
#define COFF_HEADER_SIZE 20
#define OPT32_MIN 96    /* PE32 optional header up to NumberOfRvaAndSizes + 4 */
#define OPT64_MIN 112   /* PE32+ */
#define OPT_MAX (OPT64_MIN + 8 * PE_NUM_DIRS)
#define SECTION_SIZE 40
#define DEBUG_ENTRY_SIZE 28
#define CV_RSDS_FIXED 24  /* "RSDS", GUID, age */
#define CV_NB10_FIXED 16  /* "NB10", offset, signature, age */
/* e_lfanew beyond this is not a PE any tool would load. */
#define MAX_NT_OFFSET (16u * 1024u * 1024u)

static int read_headers(struct pe_image *pe, const struct byte_source *src)
{
  uint8_t dos[DOS_HEADER_SIZE];
  uint8_t nt[4 + COFF_HEADER_SIZE];
  uint8_t opt[OPT_MAX];
  uint32_t opt_len, dir_off, ndirs, i;
  int rc;

  rc = byte_source_read_exact(src, 0, dos, sizeof dos, NULL);
  if (rc == ETWCAP_E_TRUNCATED)
    return ETWCAP_E_FORMAT; /* too short to be any executable */
  if (rc < 0)
    return rc;
  if (dos[0] != 'M' || dos[1] != 'Z')
    return ETWCAP_E_FORMAT;
  pe->nt_offset = etl_le32(dos + 0x3C);
  if (pe->nt_offset < 4 || pe->nt_offset > MAX_NT_OFFSET)
    return ETWCAP_E_FORMAT; /* an MS-DOS program, or a damaged header */
  rc = byte_source_read_exact(src, pe->nt_offset, nt, sizeof nt, NULL);
  if (rc < 0)
    return rc;
  if (memcmp(nt, "PE\0\0", 4) != 0)
    return ETWCAP_E_FORMAT;
  pe->machine = etl_le16(nt + 4);
  pe->number_of_sections = etl_le16(nt + 6);
  pe->time_date_stamp = etl_le32(nt + 8);
  pe->size_of_optional_header = etl_le16(nt + 20);
  pe->characteristics = etl_le16(nt + 22);

  opt_len = pe->size_of_optional_header;
  if (opt_len < 2)
    return ETWCAP_E_FORMAT; /* an object file, not an image */
  if (opt_len > sizeof opt)
    opt_len = sizeof opt;
  rc = byte_source_read_exact(src, (uint64_t)pe->nt_offset + sizeof nt, opt, opt_len, NULL);
  if (rc < 0)
    return rc;
  pe->magic = etl_le16(opt);
  if (pe->magic == 0x10B) {
    if (opt_len < OPT32_MIN)
      return ETWCAP_E_CORRUPT;
    pe->is_pe32plus = 0;
    pe->image_base = etl_le32(opt + 28);
    dir_off = 96;
    pe->number_of_rva_and_sizes = etl_le32(opt + 92);
  } else if (pe->magic == 0x20B) {
    if (opt_len < OPT64_MIN)
      return ETWCAP_E_CORRUPT;
    pe->is_pe32plus = 1;
    pe->image_base = etl_le64(opt + 24);
    dir_off = 112;
    pe->number_of_rva_and_sizes = etl_le32(opt + 108);
  } else {
    return ETWCAP_E_FORMAT; /* ROM image or unknown */
  }
  /* The fields between the two forms line up from SectionAlignment on. */
  pe->section_alignment = etl_le32(opt + 32);
  pe->file_alignment = etl_le32(opt + 36);
  pe->size_of_image = etl_le32(opt + 56);
  pe->size_of_headers = etl_le32(opt + 60);
  pe->checksum = etl_le32(opt + 64);
  pe->subsystem = etl_le16(opt + 68);
  pe->dll_characteristics = etl_le16(opt + 70);
  /* Directories beyond the declared count, or beyond the optional header,
   * do not exist (the loader reads no further either). */
  ndirs = pe->number_of_rva_and_sizes < PE_NUM_DIRS ? pe->number_of_rva_and_sizes : PE_NUM_DIRS;
  for (i = 0; i < ndirs && dir_off + 8 * i + 8 <= opt_len; i++) {
    pe->dir[i].rva = etl_le32(opt + dir_off + 8 * i);
    pe->dir[i].size = etl_le32(opt + dir_off + 8 * i + 4);
  }
  return 0;
}

static int read_sections(struct pe_image *pe, const struct byte_source *src)
{
  uint64_t off = (uint64_t)pe->nt_offset + 4 + COFF_HEADER_SIZE + pe->size_of_optional_header;
  uint8_t *raw;
  size_t i, n = pe->number_of_sections;
  int rc;
  if (n == 0)
    return 0;
  if (n > PE_MAX_SECTIONS)
    return ETWCAP_E_CORRUPT;
  raw = etwcap_malloc(n * SECTION_SIZE);
  pe->sections = etwcap_calloc(n, sizeof *pe->sections);
  if (!raw || !pe->sections) {
    etwcap_free(raw);
    return ETWCAP_E_NOMEM;
  }
  rc = byte_source_read_exact(src, off, raw, n * SECTION_SIZE, NULL);
  if (rc < 0) {
    etwcap_free(raw);
    return rc;
  }
  for (i = 0; i < n; i++) {
    const uint8_t *p = raw + i * SECTION_SIZE;
    struct pe_section *s = &pe->sections[i];
    memcpy(s->name, p, 8);
    s->name[8] = '\0';
    s->virtual_size = etl_le32(p + 8);
    s->virtual_address = etl_le32(p + 12);
    s->size_of_raw_data = etl_le32(p + 16);
    s->pointer_to_raw_data = etl_le32(p + 20);
    s->characteristics = etl_le32(p + 36);
  }
  pe->section_count = n;
  etwcap_free(raw);
  return 0;
}

int pe_image_rva_to_offset(const struct pe_image *pe, uint32_t rva, uint32_t len,
                           uint64_t *offset)
{
  size_t i;
  for (i = 0; i < pe->section_count; i++) {
    const struct pe_section *s = &pe->sections[i];
    uint32_t raw_start = s->pointer_to_raw_data;
    uint64_t delta;
    if (rva < s->virtual_address)
      continue;
    delta = (uint64_t)rva - s->virtual_address;
    /* The loader rounds PointerToRawData down to 512 when the file
     * alignment allows it, and maps only SizeOfRawData bytes from the file
     * (the rest of VirtualSize is zero-filled, not backed by the file). */
    if (pe->file_alignment >= 0x200)
      raw_start &= ~0x1FFu;
    if (delta + len <= s->size_of_raw_data) {
      *offset = (uint64_t)raw_start + delta;
      return 0;
    }
    if (delta < (s->virtual_size ? s->virtual_size : s->size_of_raw_data))
      return ETWCAP_E_CORRUPT; /* in this section, but not in the file */
  }
  /* The headers are mapped as they are in the file. */
  if ((uint64_t)rva + len <= pe->size_of_headers) {
    *offset = rva;
    return 0;
  }
  return ETWCAP_E_CORRUPT;
}

/* Reads the CodeView record of d: a missing or damaged record leaves the
 * entry PE_CV_UNKNOWN (the image is still identified by its other fields). */
static int read_codeview(struct pe_debug_entry *d, const struct pe_image *pe,
                         const struct byte_source *src)
{
  uint64_t off;
  uint32_t len = d->size_of_data, fixed, i;
  uint8_t *buf;
  int rc;
  d->cv_format = PE_CV_UNKNOWN;
  if (d->pointer_to_raw_data)
    off = d->pointer_to_raw_data;
  else if (!d->address_of_raw_data ||
           pe_image_rva_to_offset(pe, d->address_of_raw_data, len, &off) < 0)
    return 0;
  if (len < CV_NB10_FIXED)
    return 0;
  if (len > CV_RSDS_FIXED + PE_MAX_PDB_PATH)
    len = CV_RSDS_FIXED + PE_MAX_PDB_PATH;
  buf = etwcap_malloc(len + 1);
  if (!buf)
    return ETWCAP_E_NOMEM;
  rc = byte_source_read_exact(src, off, buf, len, NULL);
  if (rc < 0) {
    etwcap_free(buf);
    return rc == ETWCAP_E_TRUNCATED ? 0 : rc;
  }
  if (memcmp(buf, "RSDS", 4) == 0 && len >= CV_RSDS_FIXED) {
    d->cv_format = PE_CV_RSDS;
    d->pdb_guid = guid_from_bytes(buf + 4);
    d->pdb_age = etl_le32(buf + 20);
    fixed = CV_RSDS_FIXED;
  } else if (memcmp(buf, "NB10", 4) == 0) {
    d->cv_format = PE_CV_NB10;
    d->pdb_signature = etl_le32(buf + 8);
    d->pdb_age = etl_le32(buf + 12);
    fixed = CV_NB10_FIXED;
  } else {
    etwcap_free(buf);
    return 0;
  }
  /* The path ends at its NUL, or at the end of the record when a broken
   * linker left it unterminated. */
  for (i = fixed; i < len && buf[i]; i++)
    ;
  d->pdb_path_len = i - fixed;
  d->pdb_path = etwcap_malloc(d->pdb_path_len + 1);
  if (!d->pdb_path) {
    etwcap_free(buf);
    return ETWCAP_E_NOMEM;
  }
  memcpy(d->pdb_path, buf + fixed, d->pdb_path_len);
  d->pdb_path[d->pdb_path_len] = '\0';
  etwcap_free(buf);
  return 0;
}

static int read_debug_directory(struct pe_image *pe, const struct byte_source *src)
{
  uint32_t rva = pe->dir[PE_DIR_DEBUG].rva, size = pe->dir[PE_DIR_DEBUG].size;
  size_t n, i;
  uint64_t off;
  uint8_t *raw;
  int rc;
  if (rva == 0 || size < DEBUG_ENTRY_SIZE)
    return 0; /* no debug directory: "no debug info", not an error */
  n = size / DEBUG_ENTRY_SIZE;
  if (n > PE_MAX_DEBUG_ENTRIES)
    n = PE_MAX_DEBUG_ENTRIES;
  rc = pe_image_rva_to_offset(pe, rva, (uint32_t)(n * DEBUG_ENTRY_SIZE), &off);
  if (rc < 0)
    return rc;
  raw = etwcap_malloc(n * DEBUG_ENTRY_SIZE);
  pe->debug = etwcap_calloc(n, sizeof *pe->debug);
  if (!raw || !pe->debug) {
    etwcap_free(raw);
    return ETWCAP_E_NOMEM;
  }
  rc = byte_source_read_exact(src, off, raw, n * DEBUG_ENTRY_SIZE, NULL);
  if (rc < 0) {
    etwcap_free(raw);
    return rc;
  }
  for (i = 0; i < n; i++) {
    const uint8_t *p = raw + i * DEBUG_ENTRY_SIZE;
    struct pe_debug_entry *d = &pe->debug[i];
    d->characteristics = etl_le32(p);
    d->time_date_stamp = etl_le32(p + 4);
    d->major_version = etl_le16(p + 8);
    d->minor_version = etl_le16(p + 10);
    d->type = etl_le32(p + 12);
    d->size_of_data = etl_le32(p + 16);
    d->address_of_raw_data = etl_le32(p + 20);
    d->pointer_to_raw_data = etl_le32(p + 24);
    pe->debug_count = i + 1; /* released with the image from here on */
    if (d->type == PE_DEBUG_CODEVIEW) {
      rc = read_codeview(d, pe, src);
      if (rc < 0)
        break;
    }
  }
  etwcap_free(raw);
  return rc;
}

int pe_image_read(struct pe_image *pe, const struct byte_source *src, unsigned flags)
{
  int rc;
  memset(pe, 0, sizeof *pe);
  pe->file_size = src->size;
  rc = read_headers(pe, src);
  if (rc == 0)
    rc = read_sections(pe, src);
  if (rc == 0 && (flags & PE_READ_DEBUG))
    rc = read_debug_directory(pe, src);
  if (rc == 0 && (flags & PE_READ_VERSION))
    rc = pe_version_read(pe, src);
  if (rc < 0)
    pe_image_release(pe);
  return rc;
}

void pe_image_release(struct pe_image *pe)
{
  size_t i;
  for (i = 0; i < pe->debug_count; i++)
    etwcap_free(pe->debug[i].pdb_path);
  etwcap_free(pe->debug);
  etwcap_free(pe->sections);
  pe_version_release(&pe->version);
  memset(pe, 0, sizeof *pe);
}

int pe_image_is_managed(const struct pe_image *pe)
{
  return pe->dir[PE_DIR_CLR].rva != 0 && pe->dir[PE_DIR_CLR].size != 0;
}

int pe_image_is_deterministic(const struct pe_image *pe)
{
  size_t i;
  for (i = 0; i < pe->debug_count; i++)
    if (pe->debug[i].type == PE_DEBUG_REPRO)
      return 1;
  return 0;
}

const struct pe_debug_entry *pe_image_first_rsds(const struct pe_image *pe)
{
  size_t i;
  for (i = 0; i < pe->debug_count; i++)
    if (pe->debug[i].type == PE_DEBUG_CODEVIEW && pe->debug[i].cv_format == PE_CV_RSDS)
      return &pe->debug[i];
  return NULL;
}

int pe_debug_is_portable_pdb(const struct pe_debug_entry *d)
{
  return d->type == PE_DEBUG_CODEVIEW && d->minor_version == PE_CODEVIEW_PORTABLE_MINOR;
}
