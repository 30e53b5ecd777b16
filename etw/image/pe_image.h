/* A reader of PE images (PE32 and PE32+): the headers, the section table,
 * the debug directory (CodeView RSDS/NB10, REPRO, portable-PDB entries) and
 * the VS_VERSIONINFO resource -- what the merger needs to write the image
 * identity events of KernelTraceControl (image_identity.h).  It reads
 * through a read-at-offset source, never maps or trusts the file: every size
 * and offset is checked before it is used, and a broken image is an error
 * (ETWCAP_E_FORMAT: not a PE; TRUNCATED: ends early; CORRUPT: inconsistent),
 * never a crash.  It does no I/O of its own beyond the source and never
 * prints.
 *
 * Lifetime: a pe_image owns its sections, debug entries and strings;
 * pe_image_release frees them.  The source is borrowed only during
 * pe_image_read. */
#ifndef ETWCAP_PE_IMAGE_H
#define ETWCAP_PE_IMAGE_H

#include "etw/event/guid.h"

#include <stddef.h>
#include "src/base/byte_source.h"

#include <stdint.h>
#include <stdio.h>

/* Limits that keep hostile headers from driving work or allocations. */
#define PE_MAX_SECTIONS 96        /* the loader's own limit */
#define PE_MAX_DEBUG_ENTRIES 32
#define PE_MAX_PDB_PATH 4096      /* bytes of a CodeView path kept */
#define PE_MAX_VERSION_SIZE (1u << 20)

enum pe_machine {
  PE_MACHINE_I386 = 0x014C,
  PE_MACHINE_AMD64 = 0x8664,
  PE_MACHINE_ARM64 = 0xAA64,
  PE_MACHINE_ARMNT = 0x01C4
};

/* IMAGE_DEBUG_TYPE_* values the identity events care about. */
enum pe_debug_type {
  PE_DEBUG_CODEVIEW = 2,
  PE_DEBUG_MISC = 4,
  PE_DEBUG_POGO = 13,
  PE_DEBUG_REPRO = 16,                 /* deterministic build */
  PE_DEBUG_EMBEDDED_PORTABLE_PDB = 17,
  PE_DEBUG_PDBCHECKSUM = 19
};

/* A CodeView entry with MinorVersion "PM" points to a portable PDB. */
#define PE_CODEVIEW_PORTABLE_MINOR 0x504D

enum pe_codeview_format {
  PE_CV_NONE = 0,  /* not a CodeView entry */
  PE_CV_RSDS,      /* PDB 7.0: GUID, age, path */
  PE_CV_NB10,      /* PDB 2.0: signature (a time stamp), age, path */
  PE_CV_UNKNOWN    /* CodeView entry whose data is unreadable or another format */
};

struct pe_debug_entry {
  uint32_t characteristics;
  uint32_t time_date_stamp;
  uint16_t major_version, minor_version;
  uint32_t type;
  uint32_t size_of_data;
  uint32_t address_of_raw_data;
  uint32_t pointer_to_raw_data;
  /* CodeView only. */
  enum pe_codeview_format cv_format;
  struct etw_guid pdb_guid;   /* RSDS */
  uint32_t pdb_signature;     /* NB10 */
  uint32_t pdb_age;
  /* The path bytes as stored (UTF-8 by convention), NUL-terminated; NULL
   * when there is no RSDS/NB10 record. */
  char *pdb_path;
  size_t pdb_path_len;
};

struct pe_section {
  char name[9];
  uint32_t virtual_size, virtual_address;
  uint32_t size_of_raw_data, pointer_to_raw_data;
  uint32_t characteristics;
};

/* A UTF-16 string from the image, kept as code units so it can be written
 * into events exactly as the file holds it. */
struct pe_wstr {
  uint16_t *s;  /* NUL-terminated; NULL when absent */
  size_t len;   /* code units, NUL excluded */
};

/* VS_VERSIONINFO: the fixed part and the strings the identity events use
 * (from the first StringTable). */
struct pe_version {
  int present;        /* an RT_VERSION resource was found and parsed */
  int has_fixed;      /* VS_FIXEDFILEINFO with the 0xFEEF04BD signature */
  uint32_t file_version_ms, file_version_ls;
  uint32_t product_version_ms, product_version_ls;
  int has_language;
  uint16_t language, codepage; /* first Translation, else the StringTable key */
  struct pe_wstr original_filename, file_description, file_version, product_name,
      company_name, product_version, internal_name;
};

#define PE_DIR_EXPORT 0
#define PE_DIR_RESOURCE 2
#define PE_DIR_DEBUG 6
#define PE_DIR_CLR 14
#define PE_NUM_DIRS 16

struct pe_image {
  uint32_t nt_offset;  /* e_lfanew */
  /* COFF file header */
  uint16_t machine;
  uint16_t number_of_sections;
  uint32_t time_date_stamp;
  uint16_t size_of_optional_header;
  uint16_t characteristics;
  /* Optional header */
  uint16_t magic;      /* 0x10B PE32, 0x20B PE32+ */
  int is_pe32plus;
  uint64_t image_base;
  uint32_t section_alignment, file_alignment;
  uint32_t size_of_image, size_of_headers;
  uint32_t checksum;
  uint16_t subsystem, dll_characteristics;
  uint32_t number_of_rva_and_sizes;
  struct {
    uint32_t rva, size;
  } dir[PE_NUM_DIRS];

  size_t section_count;
  struct pe_section *sections;
  size_t debug_count;
  struct pe_debug_entry *debug;
  struct pe_version version;
  int64_t file_size;   /* from the source, -1 when unknown */
};

/* What pe_image_read should read beyond the headers. */
enum pe_read_flags {
  PE_READ_DEBUG = 1 << 0,
  PE_READ_VERSION = 1 << 1,
  PE_READ_ALL = PE_READ_DEBUG | PE_READ_VERSION
};

/* Reads the image from src.  0 on success, else ETWCAP_E_FORMAT (no MZ/PE
 * signature, unknown optional header), ETWCAP_E_TRUNCATED, ETWCAP_E_CORRUPT,
 * ETWCAP_E_NOMEM or the source's error; on failure nothing is left to
 * release.  The debug directory table must be readable (it is what
 * identifies the image): a table outside the file is an error.  The data of
 * one CodeView entry that cannot be read leaves that entry PE_CV_UNKNOWN.  A
 * damaged version resource is not an error: version.present stays 0 (it
 * only describes the image), unless it is the source that failed. */
int pe_image_read(struct pe_image *pe, const struct byte_source *src, unsigned flags);
void pe_image_release(struct pe_image *pe);

/* File offset of `len` bytes at `rva`: 0, or ETWCAP_E_CORRUPT when they are
 * not backed by the file (outside every section's raw data). */
int pe_image_rva_to_offset(const struct pe_image *pe, uint32_t rva, uint32_t len,
                           uint64_t *offset);

/* 1 when the image has a CLR (COR20) header: a .NET assembly. */
int pe_image_is_managed(const struct pe_image *pe);
/* 1 when the debug directory has a REPRO entry (deterministic build: the
 * TimeDateStamp is a hash, not a time). */
int pe_image_is_deterministic(const struct pe_image *pe);
/* The first CodeView RSDS entry, or NULL ("no debug info"). */
const struct pe_debug_entry *pe_image_first_rsds(const struct pe_image *pe);
/* 1 for a CodeView entry that points to a portable PDB (MinorVersion "PM"). */
int pe_debug_is_portable_pdb(const struct pe_debug_entry *d);

/* "a.b.c.d" from the VS_FIXEDFILEINFO file version; "" when absent. */
void pe_version_file_version_text(const struct pe_version *v, char *buf, size_t size);
/* UTF-8 of a pe_wstr (unpaired surrogates become U+FFFD) into buf; "" when
 * absent.  Truncates at a character boundary; returns buf. */
char *pe_wstr_to_utf8(const struct pe_wstr *w, char *buf, size_t size);

/* Internal to the PE reader (pe_version.c), exposed for tests: parses a
 * VS_VERSIONINFO block held in memory.  0 or ETWCAP_E_CORRUPT / NOMEM. */
int pe_version_parse(struct pe_version *v, const uint8_t *p, size_t len);
void pe_version_release(struct pe_version *v);
/* Finds and parses the RT_VERSION resource of pe (pe_version.c). */
int pe_version_read(struct pe_image *pe, const struct byte_source *src);

/* Reads exactly len bytes at offset through src (ETWCAP_E_TRUNCATED when the
 * input ends first). */

#endif
