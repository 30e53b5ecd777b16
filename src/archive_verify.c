/* Verification of a freshly written zip (see archive_verify.h). */
#include "archive_verify.h"

#include "alloc.h"
#include "error.h"

#include <stdio.h>
#include <string.h>
#include <unzip.h>

#define VERIFY_BUFFER_BYTES (1024 * 1024)

static int check_member(unzFile uf, const struct archive_expect *e, unsigned char *buf,
                        char *why, size_t why_size)
{
  unz_file_info64 info;
  char name[1024];
  uint64_t total = 0;
  int n;

  if (unzGetCurrentFileInfo64(uf, &info, name, sizeof(name), NULL, 0, NULL, 0) != UNZ_OK) {
    snprintf(why, why_size, "cannot read the directory entry of '%s'", e->name);
    return ETWCAP_E_CORRUPT;
  }
  if (strcmp(name, e->name) != 0 || info.uncompressed_size != e->size || info.crc != e->crc32) {
    snprintf(why, why_size,
             "member '%s' reads back as '%s' (%llu bytes, CRC %08lx), expected %llu bytes, "
             "CRC %08lx",
             e->name, name, (unsigned long long)info.uncompressed_size, (unsigned long)info.crc,
             (unsigned long long)e->size, (unsigned long)e->crc32);
    return ETWCAP_E_CORRUPT;
  }
  if (unzOpenCurrentFile(uf) != UNZ_OK) {
    snprintf(why, why_size, "cannot open member '%s'", e->name);
    return ETWCAP_E_CORRUPT;
  }
  while ((n = unzReadCurrentFile(uf, buf, VERIFY_BUFFER_BYTES)) > 0)
    total += (uint64_t)n;
  /* unzCloseCurrentFile reports a CRC mismatch once everything was read. */
  if (n < 0 || unzCloseCurrentFile(uf) != UNZ_OK || total != e->size) {
    snprintf(why, why_size, "member '%s' does not inflate to its %llu bytes with CRC %08lx",
             e->name, (unsigned long long)e->size, (unsigned long)e->crc32);
    return ETWCAP_E_CORRUPT;
  }
  return 0;
}

int archive_verify(const struct file_io *io, const char *path,
                   const struct archive_expect *expect, size_t count, char *why,
                   size_t why_size)
{
  zlib_filefunc64_def funcs;
  unz_global_info64 global;
  unsigned char *buf = etwcap_malloc(VERIFY_BUFFER_BYTES);
  unzFile uf;
  size_t i;
  int rc = 0;

  if (!buf)
    return ETWCAP_E_NOMEM;
  file_io_to_minizip(io, &funcs);
  uf = unzOpen2_64(path, &funcs);
  if (!uf) {
    snprintf(why, why_size, "cannot reopen '%s' to verify it", path);
    etwcap_free(buf);
    return ETWCAP_E_CORRUPT;
  }
  if (unzGetGlobalInfo64(uf, &global) != UNZ_OK || global.number_entry != count) {
    snprintf(why, why_size, "'%s' does not list the %zu members written", path, count);
    rc = ETWCAP_E_CORRUPT;
  }
  for (i = 0; i < count && !rc; i++) {
    if ((i == 0 ? unzGoToFirstFile(uf) : unzGoToNextFile(uf)) != UNZ_OK) {
      snprintf(why, why_size, "'%s' ends before member '%s'", path, expect[i].name);
      rc = ETWCAP_E_CORRUPT;
      break;
    }
    rc = check_member(uf, &expect[i], buf, why, why_size);
  }
  unzClose(uf);
  etwcap_free(buf);
  return rc;
}
