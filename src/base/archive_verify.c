/* Verification of a freshly written zip (see archive_verify.h). */
#include "archive_verify.h"

#include "error.h"
#include "byte_source.h"
#include "zip_directory.h"

#include <stdio.h>
#include <string.h>

static int check_member(const struct byte_source *io, const struct zip_entry *z,
                        const struct archive_expect *e, char *why, size_t why_size)
{
  char detail[256];
  uint64_t size;
  uint32_t crc;
  int rc;
  if (strcmp(z->name, e->name) != 0 || z->uncompressed_size != e->size || z->crc32 != e->crc32) {
    snprintf(why, why_size,
             "member '%s' is listed as '%s' (%llu bytes, CRC %08lx), expected %llu bytes, "
             "CRC %08lx",
             e->name, z->name, (unsigned long long)z->uncompressed_size, (unsigned long)z->crc32,
             (unsigned long long)e->size, (unsigned long)e->crc32);
    return ETWCAP_E_CORRUPT;
  }
  rc = zip_entry_measure(io, z, &size, &crc, detail, sizeof(detail));
  if (rc || size != e->size || crc != e->crc32) {
    snprintf(why, why_size, "member '%s' does not read back as its %llu bytes with CRC %08lx%s%s",
             e->name, (unsigned long long)e->size, (unsigned long)e->crc32, rc ? ": " : "",
             rc ? detail : "");
    return rc ? rc : ETWCAP_E_CORRUPT;
  }
  return 0;
}

int archive_verify(const char *path, const struct archive_expect *expect, size_t count,
                   char *why, size_t why_size)
{
  struct byte_source io;
  struct zip_directory dir;
  char detail[256];
  size_t i;
  int rc = byte_source_open_file(&io, path);
  if (rc) {
    snprintf(why, why_size, "cannot reopen '%s' to verify it: %s", path, etwcap_strerror(rc));
    return rc;
  }
  rc = zip_directory_read(&io, &dir, detail, sizeof(detail));
  if (rc) {
    snprintf(why, why_size, "'%s' does not read back as a zip: %s", path, detail);
    byte_source_close(&io);
    return ETWCAP_E_CORRUPT;
  }
  if (dir.count != count) {
    snprintf(why, why_size, "'%s' lists %lu members, %lu were written", path,
             (unsigned long)dir.count, (unsigned long)count);
    rc = ETWCAP_E_CORRUPT;
  }
  for (i = 0; i < count && !rc; i++)
    rc = check_member(&io, &dir.entries[i], &expect[i], why, why_size);
  zip_directory_release(&dir);
  byte_source_close(&io);
  return rc;
}
