/* The VS_VERSIONINFO resource of a PE image: found through the resource
 * directory (type RT_VERSION = 16, first name, first language) and parsed
 * from its nested blocks (wLength, wValueLength, wType, UTF-16 key, value,
 * children; each 32-bit aligned from the start of the resource).  Only the
 * fixed file/product versions, the first translation and the strings the
 * identity events carry are kept.  A damaged resource reads as absent. */
#include "etw/image/pe_image.h"

#include "etw/etl/etl_bytes.h"
#include "src/base/alloc.h"
#include "src/base/error.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define RT_VERSION 16
#define RES_DIR_SIZE 16
#define RES_ENTRY_SIZE 8
#define RES_DATA_ENTRY_SIZE 16
#define RES_MAX_ENTRIES 4096
#define VS_FFI_SIGNATURE 0xFEEF04BDu
#define VS_FIXED_SIZE 52

/* ---- the resource directory ---- */

/* Reads `len` bytes at offset `off` of the resource section. */
static int res_read(const struct pe_image *pe, const struct byte_source *src, uint32_t off,
                    void *buf, uint32_t len)
{
  uint64_t file_off;
  uint32_t rsize = pe->dir[PE_DIR_RESOURCE].size;
  int rc;
  if (off > rsize || len > rsize - off)
    return ETWCAP_E_CORRUPT;
  rc = pe_image_rva_to_offset(pe, pe->dir[PE_DIR_RESOURCE].rva + off, len, &file_off);
  if (rc < 0)
    return rc;
  return byte_source_read_exact(src, file_off, buf, len, NULL);
}

/* Finds in the directory at `dir_off` the entry with integer id `id`, or the
 * first entry when id < 0; sets *target (OffsetToData) and *is_dir. */
static int res_find(const struct pe_image *pe, const struct byte_source *src, uint32_t dir_off,
                    long id, uint32_t *target, int *is_dir)
{
  uint8_t head[RES_DIR_SIZE], e[RES_ENTRY_SIZE];
  uint32_t n, i;
  int rc = res_read(pe, src, dir_off, head, sizeof head);
  if (rc < 0)
    return rc;
  n = (uint32_t)etl_le16(head + 12) + etl_le16(head + 14);
  if (n > RES_MAX_ENTRIES)
    return ETWCAP_E_CORRUPT;
  for (i = 0; i < n; i++) {
    uint32_t name;
    rc = res_read(pe, src, dir_off + RES_DIR_SIZE + i * RES_ENTRY_SIZE, e, sizeof e);
    if (rc < 0)
      return rc;
    name = etl_le32(e);
    if (id < 0 || (!(name & 0x80000000u) && name == (uint32_t)id)) {
      uint32_t to = etl_le32(e + 4);
      *is_dir = (to & 0x80000000u) != 0;
      *target = to & 0x7FFFFFFFu;
      return 0;
    }
  }
  return ETWCAP_E_NOENT;
}

/* ---- VS_VERSIONINFO blocks ---- */

struct block {
  size_t start, end;       /* the block, bounded by its parent */
  uint16_t value_length, type;
  size_t key, key_len;     /* UTF-16 code units */
  size_t value, children;  /* offsets */
};

static size_t align4(size_t x)
{
  return (x + 3) & ~(size_t)3;
}

/* Decodes the block header at `pos` inside [pos, limit).  0 or -1. */
static int block_at(const uint8_t *p, size_t pos, size_t limit, struct block *b)
{
  size_t len, i, value_bytes;
  if (pos + 6 > limit)
    return -1;
  len = etl_le16(p + pos);
  if (len < 6 || len > limit - pos)
    return -1;
  b->start = pos;
  b->end = pos + len;
  b->value_length = etl_le16(p + pos + 2);
  b->type = etl_le16(p + pos + 4);
  b->key = pos + 6;
  for (i = b->key; i + 2 <= b->end && etl_le16(p + i) != 0; i += 2)
    ;
  if (i + 2 > b->end)
    return -1; /* unterminated key */
  b->key_len = (i - b->key) / 2;
  b->value = align4(i + 2);
  /* Text values count UTF-16 code units, binary ones bytes. */
  value_bytes = b->type == 1 ? (size_t)b->value_length * 2 : b->value_length;
  if (b->value > b->end)
    b->value = b->end;
  if (value_bytes > b->end - b->value)
    value_bytes = b->end - b->value;
  b->children = align4(b->value + value_bytes);
  return 0;
}

/* 1 when the block's key is the ASCII string s (case-insensitive, as
 * VerQueryValue compares). */
static int key_is(const uint8_t *p, const struct block *b, const char *s)
{
  size_t i, n = strlen(s);
  if (b->key_len != n)
    return 0;
  for (i = 0; i < n; i++) {
    uint16_t c = etl_le16(p + b->key + 2 * i);
    uint16_t a = (uint8_t)s[i];
    if (c >= 'A' && c <= 'Z')
      c = (uint16_t)(c + 32);
    if (a >= 'A' && a <= 'Z')
      a = (uint16_t)(a + 32);
    if (c != a)
      return 0;
  }
  return 1;
}

/* Next child of parent after `pos` (0 = the first one): 1, or 0 at the end. */
static int next_child(const uint8_t *p, const struct block *parent, size_t *pos,
                      struct block *child)
{
  size_t at = *pos ? align4(*pos) : parent->children;
  if (at >= parent->end || block_at(p, at, parent->end, child) < 0)
    return 0;
  *pos = child->end;
  return 1;
}

static int wstr_set(struct pe_wstr *w, const uint8_t *p, size_t off, size_t end)
{
  size_t n = 0, i;
  while (off + 2 * n + 2 <= end && etl_le16(p + off + 2 * n) != 0)
    n++;
  etwcap_free(w->s);
  w->s = etwcap_malloc((n + 1) * sizeof *w->s);
  if (!w->s) {
    w->len = 0;
    return ETWCAP_E_NOMEM;
  }
  for (i = 0; i < n; i++)
    w->s[i] = etl_le16(p + off + 2 * i);
  w->s[n] = 0;
  w->len = n;
  return 0;
}

static int hex4(const uint8_t *p, size_t off, uint16_t *out)
{
  unsigned v = 0, i;
  for (i = 0; i < 4; i++) {
    uint16_t c = etl_le16(p + off + 2 * i);
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= c - '0';
    else if (c >= 'a' && c <= 'f')
      v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v |= c - 'A' + 10;
    else
      return -1;
  }
  *out = (uint16_t)v;
  return 0;
}

static int parse_string_table(struct pe_version *v, const uint8_t *p, const struct block *table)
{
  static const struct {
    const char *key;
    size_t field;
  } wanted[] = {
    { "OriginalFilename", offsetof(struct pe_version, original_filename) },
    { "FileDescription", offsetof(struct pe_version, file_description) },
    { "FileVersion", offsetof(struct pe_version, file_version) },
    { "ProductName", offsetof(struct pe_version, product_name) },
    { "CompanyName", offsetof(struct pe_version, company_name) },
    { "ProductVersion", offsetof(struct pe_version, product_version) },
    { "InternalName", offsetof(struct pe_version, internal_name) },
  };
  struct block s;
  size_t pos = 0, i;
  if (table->key_len == 8 && !v->has_language) {
    uint16_t lang, cp;
    if (hex4(p, table->key, &lang) == 0 && hex4(p, table->key + 8, &cp) == 0) {
      v->language = lang;
      v->codepage = cp;
      v->has_language = 1;
    }
  }
  while (next_child(p, table, &pos, &s)) {
    for (i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
      struct pe_wstr *w = (struct pe_wstr *)((char *)v + wanted[i].field);
      if (!w->s && key_is(p, &s, wanted[i].key)) {
        int rc = wstr_set(w, p, s.value, s.end);
        if (rc < 0)
          return rc;
      }
    }
  }
  return 0;
}

int pe_version_parse(struct pe_version *v, const uint8_t *p, size_t len)
{
  struct block root, child, grand;
  size_t pos = 0;
  int have_strings = 0, have_translation = 0;
  memset(v, 0, sizeof *v);
  if (block_at(p, 0, len, &root) < 0 || !key_is(p, &root, "VS_VERSION_INFO"))
    return ETWCAP_E_CORRUPT;
  if (root.value_length >= VS_FIXED_SIZE && root.value + VS_FIXED_SIZE <= root.end &&
      etl_le32(p + root.value) == VS_FFI_SIGNATURE) {
    v->has_fixed = 1;
    v->file_version_ms = etl_le32(p + root.value + 8);
    v->file_version_ls = etl_le32(p + root.value + 12);
    v->product_version_ms = etl_le32(p + root.value + 16);
    v->product_version_ls = etl_le32(p + root.value + 20);
  }
  while (next_child(p, &root, &pos, &child)) {
    size_t pos2 = 0;
    if (key_is(p, &child, "StringFileInfo") && !have_strings) {
      /* The first StringTable is the one the identity events describe. */
      if (next_child(p, &child, &pos2, &grand)) {
        int rc = parse_string_table(v, p, &grand);
        if (rc < 0) {
          pe_version_release(v);
          return rc;
        }
        have_strings = 1;
      }
    } else if (key_is(p, &child, "VarFileInfo") && !have_translation) {
      while (next_child(p, &child, &pos2, &grand)) {
        if (key_is(p, &grand, "Translation") && grand.value + 4 <= grand.end &&
            grand.value_length >= 4) {
          /* The translation table wins over the StringTable key. */
          v->language = etl_le16(p + grand.value);
          v->codepage = etl_le16(p + grand.value + 2);
          v->has_language = 1;
          have_translation = 1;
          break;
        }
      }
    }
  }
  v->present = 1;
  return 0;
}

void pe_version_release(struct pe_version *v)
{
  etwcap_free(v->original_filename.s);
  etwcap_free(v->file_description.s);
  etwcap_free(v->file_version.s);
  etwcap_free(v->product_name.s);
  etwcap_free(v->company_name.s);
  etwcap_free(v->product_version.s);
  etwcap_free(v->internal_name.s);
  memset(v, 0, sizeof *v);
}

int pe_version_read(struct pe_image *pe, const struct byte_source *src)
{
  uint32_t off, data_rva, data_size;
  uint8_t entry[RES_DATA_ENTRY_SIZE];
  uint64_t file_off;
  uint8_t *buf;
  int is_dir, rc;
  if (pe->dir[PE_DIR_RESOURCE].rva == 0 || pe->dir[PE_DIR_RESOURCE].size < RES_DIR_SIZE)
    return 0;
  /* Type RT_VERSION, then the first name, then the first language. */
  rc = res_find(pe, src, 0, RT_VERSION, &off, &is_dir);
  if (rc == 0 && is_dir)
    rc = res_find(pe, src, off, -1, &off, &is_dir);
  if (rc == 0 && is_dir)
    rc = res_find(pe, src, off, -1, &off, &is_dir);
  if (rc == 0 && is_dir)
    rc = ETWCAP_E_CORRUPT;
  if (rc == 0)
    rc = res_read(pe, src, off, entry, sizeof entry);
  if (rc < 0)
    return rc == ETWCAP_E_NOMEM || rc == ETWCAP_E_IO ? rc : 0; /* absent or damaged */
  data_rva = etl_le32(entry);
  data_size = etl_le32(entry + 4);
  if (data_size < 6 || data_size > PE_MAX_VERSION_SIZE ||
      pe_image_rva_to_offset(pe, data_rva, data_size, &file_off) < 0)
    return 0;
  buf = etwcap_malloc(data_size);
  if (!buf)
    return ETWCAP_E_NOMEM;
  rc = byte_source_read_exact(src, file_off, buf, data_size, NULL);
  if (rc == 0)
    rc = pe_version_parse(&pe->version, buf, data_size);
  etwcap_free(buf);
  if (rc == ETWCAP_E_NOMEM || rc == ETWCAP_E_IO)
    return rc;
  return 0;
}

void pe_version_file_version_text(const struct pe_version *v, char *buf, size_t size)
{
  if (!size)
    return;
  if (!v->has_fixed) {
    buf[0] = '\0';
    return;
  }
  snprintf(buf, size, "%u.%u.%u.%u", (unsigned)(v->file_version_ms >> 16),
           (unsigned)(v->file_version_ms & 0xFFFF), (unsigned)(v->file_version_ls >> 16),
           (unsigned)(v->file_version_ls & 0xFFFF));
}

char *pe_wstr_to_utf8(const struct pe_wstr *w, char *buf, size_t size)
{
  size_t i, o = 0;
  if (!size)
    return buf;
  for (i = 0; w->s && i < w->len; i++) {
    uint32_t c = w->s[i];
    char tmp[4];
    size_t n;
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < w->len && w->s[i + 1] >= 0xDC00 &&
        w->s[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (w->s[i + 1] - 0xDC00u);
      i++;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      c = 0xFFFD;
    }
    if (c < 0x80) {
      tmp[0] = (char)c;
      n = 1;
    } else if (c < 0x800) {
      tmp[0] = (char)(0xC0 | c >> 6);
      tmp[1] = (char)(0x80 | (c & 0x3F));
      n = 2;
    } else if (c < 0x10000) {
      tmp[0] = (char)(0xE0 | c >> 12);
      tmp[1] = (char)(0x80 | (c >> 6 & 0x3F));
      tmp[2] = (char)(0x80 | (c & 0x3F));
      n = 3;
    } else {
      tmp[0] = (char)(0xF0 | c >> 18);
      tmp[1] = (char)(0x80 | (c >> 12 & 0x3F));
      tmp[2] = (char)(0x80 | (c >> 6 & 0x3F));
      tmp[3] = (char)(0x80 | (c & 0x3F));
      n = 4;
    }
    if (o + n >= size)
      break;
    memcpy(buf + o, tmp, n);
    o += n;
  }
  buf[o] = '\0';
  return buf;
}
