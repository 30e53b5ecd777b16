/* `etwcap unzip X.etl.zip`: PerfView's unzip — the capture's ETL written
 * beside the zip as X.etl, and the PDBs the zip carries (PerfView's NGEN
 * PDBs) under a `symbols` folder beside it, where PerfView's readers look
 * (docs/perfview-collection.md §8.2).  Through the one zip reader,
 * streamed, each file written under a temporary name and renamed; an
 * existing X.etl is not overwritten, and no member is written outside the
 * folder or through a link. */
#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/dir_parents.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"
#include "src/base/zip/zip_directory.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"

#include <stdio.h>
#include <string.h>

struct out {
  FILE *f;
  uint64_t bytes;
};

static int to_file(void *ctx, const void *data, size_t len)
{
  struct out *o = ctx;
  o->bytes += len;
  return fwrite(data, 1, len, o->f) == len ? 0 : ETWCAP_E_IO;
}

/* Member e into `path`: a temporary name, then the rename; nothing is left
 * on failure. */
static int extract(const struct byte_source *src, const struct zip_entry *e, const char *path,
                   uint64_t *bytes, char *why, size_t why_size)
{
  char tmp[2300];
  struct out o = { NULL, 0 };
  uint64_t size;
  uint32_t crc;
  int rc = os_temp_name(path, tmp, sizeof(tmp));
  if (!rc && !(o.f = os_fcreate(tmp)))
    rc = os_last_error() ? os_last_error() : ETWCAP_E_IO;
  if (rc) {
    snprintf(why, why_size, "cannot create a file beside '%.900s': %s", path,
             etwcap_strerror(rc));
    return rc;
  }
  rc = zip_entry_read(src, e, to_file, &o, &size, &crc, why, why_size);
  if (fclose(o.f) != 0 && !rc) {
    rc = ETWCAP_E_IO;
    snprintf(why, why_size, "cannot write '%.900s'", tmp);
  }
  if (!rc && (rc = os_rename_replace(tmp, path)) != 0)
    snprintf(why, why_size, "cannot rename '%.450s' to '%.450s': %s", tmp, path,
             etwcap_strerror(rc));
  if (rc)
    os_remove(tmp);
  *bytes = o.bytes;
  return rc;
}

/* The longest path component NTFS and the usual POSIX file systems hold
 * (255 UTF-16 units on NTFS, NAME_MAX 255 bytes on Linux): a member whose
 * name has a longer one could not have been written by a capture. */
#define UNZIP_COMPONENT_MAX 255
#define PDB_PATH_MAX 2200

/* The length of the longest '/'-separated component of name. */
static size_t longest_component(const char *name)
{
  size_t longest = 0;
  while (*name) {
    size_t n = strcspn(name, "/");
    if (n > longest)
      longest = n;
    name += n + (name[n] == '/');
  }
  return longest;
}

/* A member's path under symbols/: its own path, less a first folder
 * PerfView's zips put PDBs in; NULL for a name that could leave the folder
 * (absolute, a drive, `..`, an empty or dot component). */
static const char *pdb_relative(const char *name)
{
  static const char *const prefixes[] = { "symbols/", "ngenpdbs/", "ngenpdb/", NULL };
  const char *p, *rel = name;
  size_t i;
  for (i = 0; prefixes[i]; i++)
    if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
      rel = name + strlen(prefixes[i]);
  if (!*rel || *rel == '/' || strchr(rel, ':') || strchr(rel, '\\'))
    return NULL;
  for (p = rel; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return NULL;
    p += n + (p[n] == '/');
  }
  return rel;
}

/* symbols/rel into path (cap bytes); ETWCAP_E_CORRUPT when a part of rel is
 * longer than any file system holds or the whole does not fit. */
static int pdb_path(const char *symbols, const char *rel, char *path, size_t cap)
{
  if (longest_component(rel) > UNZIP_COMPONENT_MAX)
    return ETWCAP_E_CORRUPT;
  return snprintf(path, cap, "%s/%s", symbols, rel) < (int)cap ? 0 : ETWCAP_E_CORRUPT;
}

/* Before anything is written: every PDB's path fits, else the zip is
 * refused whole (a member named past what a file system holds was not
 * written by a capture). */
static int pdb_names_fit(const struct zip_directory *dir, const char *zip, const char *symbols)
{
  char path[PDB_PATH_MAX];
  size_t i;
  for (i = 0; i < dir->count; i++) {
    const char *name = dir->entries[i].name, *rel = pdb_relative(name);
    if (str_ends_with_case(name, ".pdb") && rel && pdb_path(symbols, rel, path, sizeof(path))) {
      log_error("'%s': the member '%.200s...' (%zu bytes) has a name no file system holds "
                "(a part over %d bytes, or a path over %zu bytes); the zip is damaged or was "
                "not written by a capture", zip, name, strlen(name), UNZIP_COMPONENT_MAX,
                sizeof(path) - 1);
      return ETWCAP_E_CORRUPT;
    }
  }
  return 0;
}

/* The PDBs into the folder `symbols` (made when the zip holds one). */
static int extract_pdbs(const struct byte_source *src, const struct zip_directory *dir,
                        const char *zip, const char *symbols, unsigned *count)
{
  char path[PDB_PATH_MAX], why[1024];
  size_t i;
  uint64_t bytes;
  int rc;
  *count = 0;
  for (i = 0; i < dir->count; i++) {
    const struct zip_entry *e = &dir->entries[i];
    const char *rel;
    if (!str_ends_with_case(e->name, ".pdb") || zip_directory_is_shadowed(dir, i))
      continue;
    if (!(rel = pdb_relative(e->name))) {
      log_warn("'%s' in '%s' is not written: its name would leave the symbols folder (%s)",
               e->name, zip, symbols);
      continue;
    }
    if (pdb_path(symbols, rel, path, sizeof(path)) != 0)
      return ETWCAP_E_CORRUPT; /* pdb_names_fit let it through: cannot happen */
    if (!*count && (os_make_dir(symbols) != 0 || !os_is_plain_dir(symbols))) {
      log_error("cannot make the folder '%s' (or it is a link): the PDBs are not written",
                symbols);
      return ETWCAP_E_IO;
    }
    os_native_path(path);
    if ((rc = dir_make_parents(path, strlen(symbols))) != 0 ||
        (rc = extract(src, e, path, &bytes, why, sizeof(why))) != 0) {
      log_error("%s: %s", e->name, rc == ETWCAP_E_EXIST ? "a folder on its path is a link or a "
                                                           "file" : why);
      return rc;
    }
    (*count)++;
  }
  return 0;
}

/* What unzip writes beside X.zip, each in cap bytes: the ETL (X.etl.zip
 * gives X.etl, X.zip gives X.etl) and the PDBs' folder (with /Wpr
 * X.etl.ngenpdb, the folder WPA's /Wpr captures keep their NGEN PDBs in;
 * else symbols beside the zip, as PerfView's unzip).  ETWCAP_E_NAMETOOLONG
 * when either does not fit whole: a path cut short would write elsewhere. */
static int unzip_names(const char *zip, int wpr, char *out, char *symbols, size_t cap)
{
  size_t stem = path_stem_len(zip, ".zip");
  int has_etl = stem >= 4 && str_ncaseeq(zip + stem - 4, ".etl", 4), len;
  len = snprintf(out, cap, "%.*s%s", (int)stem, zip, has_etl ? "" : ".etl");
  if (len < 0 || (size_t)len >= cap)
    return ETWCAP_E_NAMETOOLONG;
  len = wpr ? snprintf(symbols, cap, "%s.ngenpdb", out)
            : snprintf(symbols, cap, "%.*ssymbols", (int)path_dir_len(zip), zip);
  return len < 0 || (size_t)len >= cap ? ETWCAP_E_NAMETOOLONG : 0;
}

static int run_unzip(const struct cli *cli)
{
  const char *zip = cli->args[0];
  struct byte_source src;
  struct zip_directory dir;
  const struct zip_entry *etl = NULL;
  char out[1100], symbols[1100], why[1024];
  size_t i;
  uint64_t bytes = 0;
  unsigned pdbs = 0;
  int64_t size;
  int rc;
  if (!str_ends_with_case(zip, ".zip")) {
    log_error("unzip takes a capture's .etl.zip, not '%s'", zip);
    return ETWCAP_E_USAGE;
  }
  if (unzip_names(zip, cli->q.plan.wpr, out, symbols, sizeof(out)) != 0) {
    log_error("the path '%s' is too long for unzip (%zu bytes; what it writes beside it must "
              "fit in %zu): move the zip to a shorter path", zip, strlen(zip), sizeof(out) - 1);
    return ETWCAP_E_NAMETOOLONG;
  }
  if ((rc = byte_source_open_file(&src, zip)) != 0) {
    log_error("cannot open '%s': %s", zip, etwcap_strerror(rc));
    return rc;
  }
  rc = zip_directory_read(&src, &dir, why, sizeof(why));
  if (rc) {
    log_error("'%s': %s", zip, why);
    src.close(src.ctx);
    return rc;
  }
  for (i = 0; i < dir.count; i++)
    if (str_ends_with_case(dir.entries[i].name, ".etl") && !zip_directory_is_shadowed(&dir, i)) {
      if (etl) {
        log_error("'%s' holds more than one .etl ('%s', '%s'): a capture's zip holds one", zip,
                  etl->name, dir.entries[i].name);
        rc = ETWCAP_E_FORMAT;
        break;
      }
      etl = &dir.entries[i];
    }
  if (!rc && !etl) {
    log_error("'%s' holds no .etl: it is not a capture's zip", zip);
    rc = ETWCAP_E_FORMAT;
  }
  if (!rc && os_file_size(out, &size) == 0) {
    log_error("'%s' exists: unzip does not overwrite it; move it away and run unzip again", out);
    rc = ETWCAP_E_EXIST;
  }
  if (!rc)
    rc = pdb_names_fit(&dir, zip, symbols);
  if (!rc && (rc = zip_entry_supported(etl, why, sizeof(why))) != 0)
    log_error("'%s': %s", zip, why);
  if (!rc && (rc = extract(&src, etl, out, &bytes, why, sizeof(why))) != 0)
    log_error("%s", why);
  if (!rc)
    rc = extract_pdbs(&src, &dir, zip, symbols, &pdbs);
  if (!rc)
    printf(pdbs ? "Wrote %s (%.1f MB) and %u PDB(s) under %s.\n"
                : "Wrote %s (%.1f MB); the zip holds no PDBs.\n",
           out, (double)bytes / 1048576.0, pdbs, symbols);
  zip_directory_release(&dir);
  src.close(src.ctx);
  return rc;
}

static const struct opt_def unzip_defs[] = {
  { "Wpr", NULL, BIND_BOOL(plan.wpr), NULL, NULL,
    "Put the PDBs into X.etl.ngenpdb beside the ETL instead of 'symbols', as PerfView's "
    "unzip /Wpr does for WPA.",
    0, 0, NULL },
};

static const struct opt_group unzip_group = OPT_GROUP("Unzip", unzip_defs);
static const struct opt_group *const groups[] = { &unzip_group, NULL };

const struct command cmd_unzip = {
  "unzip", run_unzip, 0, "DataFile.etl.zip", 1, 1,
  "Unpack a capture's .etl.zip: its ETL, and its PDBs under symbols.",
  "Writes the capture's ETL beside the zip (X.etl.zip gives X.etl; an existing X.etl is not "
  "overwritten) and the PDBs the zip carries (PerfView's NGEN PDBs) under a 'symbols' folder "
  "beside it, where PerfView looks. Every member is checked (size and CRC-32) as it is "
  "written; nothing is written outside that folder or through a link. Works on any OS.",
  groups,
};
