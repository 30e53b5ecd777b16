/* NGEN PDBs for the zip (see ngen_pdb.h). */
#include "src/finish/ngen_pdb.h"

#include "etw/event/guid.h"
#include "etw/image/pe_image.h"
#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/cancel.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define PATH_BYTES 1024

/* Case-insensitive search, for Windows paths. */
static const char *find_case(const char *s, const char *what)
{
  size_t n = strlen(what);
  for (; *s; s++)
    if (str_ncaseeq(s, what, n))
      return s;
  return NULL;
}

static const char *skip_digits(const char *s, unsigned *value)
{
  unsigned v = 0;
  for (; *s >= '0' && *s <= '9'; s++)
    v = v < 1000 ? v * 10 + (unsigned)(*s - '0') : v;
  *value = v;
  return s;
}

static int is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* "64", "32", "ARM64" after a cache name's '_' -> the framework folder. */
static const char *framework_of(const char *bitness, size_t len)
{
  if (len == 2 && bitness[0] == '6' && bitness[1] == '4')
    return "Framework64";
  if (len == 5 && str_ncaseeq(bitness, "ARM64", 5))
    return "FrameworkARM64";
  return "Framework";
}

/* ...\assembly\NativeImages_v4.0.30319_64\...: the machine cache. */
static const char *machine_cache(const char *image, unsigned *major)
{
  const char *p = find_case(image, "\\assembly\\NativeImages_v"), *bits;
  if (!p)
    return NULL;
  p = skip_digits(p + strlen("\\assembly\\NativeImages_v"), major);
  while (is_digit(*p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '.')
    p++;
  if (*p != '_')
    return NULL;
  bits = ++p;
  if (is_digit(p[0]) && is_digit(p[1]) && p[2] == '\\')
    return framework_of(bits, 2);
  if (str_ncaseeq(p, "ARM64\\", 6))
    return framework_of(bits, 5);
  return NULL;
}

/* ...\Microsoft\CLR_v4.0_64\NativeImages...: a per-user cache. */
static const char *user_cache(const char *image, unsigned *major)
{
  const char *p = find_case(image, "\\Microsoft\\CLR_v"), *bits = "";
  unsigned minor;
  size_t len = 0;
  if (!p)
    return NULL;
  p = skip_digits(p + strlen("\\Microsoft\\CLR_v"), major);
  if (*p != '.' || !is_digit(p[1]))
    return NULL;
  p = skip_digits(p + 1, &minor);
  if (*p == '_' && is_digit(p[1]) && is_digit(p[2])) {
    bits = p + 1;
    len = 2;
    p += 3;
  }
  return str_ncaseeq(p, "\\NativeImages", 13) ? framework_of(bits, len) : NULL;
}

/* ...\Microsoft.NET\Framework64\v4.0.30319\...\NativeImages...: images
 * generated beside the framework. */
static const char *framework_cache(const char *image, unsigned *major)
{
  const char *p = find_case(image, "\\Microsoft.NET\\Framework"), *bits = "";
  size_t len = 0;
  if (!p)
    return NULL;
  p += strlen("\\Microsoft.NET\\Framework");
  if (is_digit(p[0]) && is_digit(p[1])) {
    bits = p;
    len = 2;
    p += 2;
  }
  if (!str_ncaseeq(p, "\\v", 2) || !is_digit(p[2]))
    return NULL;
  p = skip_digits(p + 2, major);
  return find_case(p, "\\NativeImages") ? framework_of(bits, len) : NULL;
}

const char *ngen_pdb_framework(const char *image)
{
  char path[PATH_BYTES];
  unsigned major = 0;
  const char *fw;
  size_t i;
  /* Either separator: a copy of the images elsewhere may be read here. */
  snprintf(path, sizeof(path), "%s", image);
  for (i = 0; path[i]; i++)
    if (path[i] == '/')
      path[i] = '\\';
  fw = machine_cache(path, &major);
  if (!fw)
    fw = user_cache(path, &major);
  if (!fw)
    fw = framework_cache(path, &major);
  return fw && major >= 4 ? fw : NULL; /* createPDB came with runtime 4 */
}

/* Where the image is on this machine: the drive path of an NT path. */
static int local_path(const char *logged, char *out, size_t size)
{
  /* The drive table puts "C:" where a device name was: a name that fits
   * fits both ways. */
  if (strlen(logged) >= size)
    return ETWCAP_E_NAMETOOLONG;
  if (os_nt_path_to_dos(logged, out, size) != 0)
    memcpy(out, logged, strlen(logged) + 1);
  os_native_path(out);
  return 0;
}

/* "NAME.ni.pdb/GUIDAGE/NAME.ni.pdb" from the image's first RSDS record, as
 * PerfView names the PDB (PEFile.GetPdbSignature with first = true). */
static int pdb_relative_path(const char *image, char *out, size_t size, char *why,
                             size_t why_size)
{
  struct byte_source src;
  struct pe_image pe;
  const struct pe_debug_entry *d;
  char guid[GUID_STRING_SIZE], hex[33];
  const char *name;
  size_t i, k = 0;
  int rc = byte_source_open_file(&src, image);
  if (rc) {
    snprintf(why, why_size, "cannot open it: %s", etwcap_strerror(rc));
    return rc;
  }
  rc = pe_image_read(&pe, &src, PE_READ_DEBUG);
  byte_source_close(&src);
  if (rc) {
    snprintf(why, why_size, "cannot be read as an image (%s)", etwcap_strerror(rc));
    return rc;
  }
  d = pe_image_first_rsds(&pe);
  name = d && d->pdb_path ? path_base_name(d->pdb_path) : "";
  if (!str_ends_with_case(name, ".ni.pdb")) {
    snprintf(why, why_size, "its PDB record names no .ni.pdb");
    rc = ETWCAP_E_FORMAT;
  } else {
    guid_format(&d->pdb_guid, guid);
    for (i = 0; guid[i]; i++)
      if (guid[i] != '-')
        hex[k++] = guid[i];
    hex[k] = '\0';
    if (snprintf(out, size, "%s/%s%u/%s", name, hex, (unsigned)d->pdb_age, name) >=
        (int)size) {
      snprintf(why, why_size, "the PDB name its debug record gives is too long (%lu bytes)",
               (unsigned long)strlen(name));
      rc = ETWCAP_E_RANGE;
    }
  }
  pe_image_release(&pe);
  return rc;
}

/* Removes `file` (if there) and the two folders above it up to the work
 * folder: what ngen made for one image. */
static void remove_output(const char *work_dir, const char *rel)
{
  char path[PATH_BYTES];
  size_t n;
  int level;
  if ((size_t)snprintf(path, sizeof(path), "%s/%s", work_dir, rel) >= sizeof(path))
    return;
  os_native_path(path);
  os_remove(path);
  for (level = 0; level < 2; level++) {
    n = path_dir_len(path);
    while (n > 0 && (path[n - 1] == '/' || path[n - 1] == '\\'))
      n--;
    path[n] = '\0';
    os_remove_dir(path);
  }
}

static int keep(struct ngen_pdbs *out, const char *path, const char *rel)
{
  struct ngen_pdb_file *files =
      etwcap_reallocarray(out->files, out->count + 1, sizeof(*out->files));
  size_t n = strlen(rel) + sizeof("symbols/");
  if (!files)
    return ETWCAP_E_NOMEM;
  out->files = files;
  files[out->count].path = etwcap_strdup(path);
  files[out->count].zip_name = etwcap_malloc(n);
  if (!files[out->count].path || !files[out->count].zip_name) {
    etwcap_free(files[out->count].path);
    etwcap_free(files[out->count].zip_name);
    return ETWCAP_E_NOMEM;
  }
  snprintf(files[out->count].zip_name, n, "symbols/%s", rel);
  out->count++;
  return 0;
}

static int already_made(const struct ngen_pdbs *out, const char *rel)
{
  size_t i;
  for (i = 0; i < out->count; i++)
    if (str_caseeq(out->files[i].zip_name + strlen("symbols/"), rel))
      return 1;
  return 0;
}

/* One image: 1 when its PDB was made (or was made already), 0 when it
 * was skipped, ETWCAP_E_NEEDS_WINDOWS or ETWCAP_E_NOENT (no ngen here) to
 * stop; when it is not 1, `why` says why. */
static int make_one(const char *logged, const struct ngen_runner *runner, struct ngen_pdbs *out,
                    char *why, size_t why_size)
{
  char image[PATH_BYTES], rel[PATH_BYTES], pdb[PATH_BYTES], reason[512];
  const char *framework;
  int64_t size;
  int exit_code = -1, rc;

  /* Cut to fit, the name would be another image's, given to ngen. */
  if (local_path(logged, image, sizeof(image)) != 0) {
    snprintf(why, why_size, "the image's name is longer than %lu bytes: %.200s...",
             (unsigned long)sizeof(image) - 1, logged);
    return 0;
  }
  framework = ngen_pdb_framework(image);
  if (!framework) {
    snprintf(why, why_size, "%s is in no native image cache of .NET 4 or later", image);
    return 0;
  }
  if (pdb_relative_path(image, rel, sizeof(rel), reason, sizeof(reason)) != 0) {
    snprintf(why, why_size, "%s: %s", image, reason);
    return 0;
  }
  if (already_made(out, rel))
    return 1;
  if ((size_t)snprintf(pdb, sizeof(pdb), "%s/%s", out->work_dir, rel) >= sizeof(pdb)) {
    snprintf(why, why_size, "%s: the PDB's path is too long", image);
    return 0;
  }
  os_native_path(pdb);
  reason[0] = '\0';
  rc = runner->run(runner->ctx, framework, image, out->work_dir, &exit_code, reason,
                   sizeof(reason));
  if (rc == ETWCAP_E_NEEDS_WINDOWS || rc == ETWCAP_E_NOENT) {
    snprintf(why, why_size, "%s", reason);
    return rc;
  }
  if (rc || exit_code != 0 || os_file_size(pdb, &size) != 0) {
    if (rc)
      snprintf(why, why_size, "%s: ngen createPDB did not run: %s", image,
               reason[0] ? reason : etwcap_strerror(rc));
    else
      snprintf(why, why_size, "%s: ngen createPDB exited with %d and made no %s", image,
               exit_code, pdb);
    remove_output(out->work_dir, rel); /* ngen may leave a bad PDB behind */
    return 0;
  }
  if (keep(out, pdb, rel) != 0) {
    remove_output(out->work_dir, rel);
    snprintf(why, why_size, "%s: out of memory", pdb);
    return 0;
  }
  log_info("NGEN PDB: %s made for %s", rel, image);
  return 1;
}

void ngen_pdbs_make(const char *const *images, size_t image_count, const char *data_file,
                    const struct ngen_runner *runner, struct ngen_pdbs *out)
{
  char name[PATH_BYTES], dir[PATH_BYTES], why[3 * PATH_BYTES], first[3 * PATH_BYTES] = "";
  uint64_t t0 = os_time_monotonic_ns();
  size_t i, made = 0;
  int rc = 0;

  memset(out, 0, sizeof(*out));
  if (!image_count)
    return;
  /* Absolute, as PerfView passes it: ngen gets it on its command line. */
  rc = os_temp_name(data_file, name, sizeof(name));
  if (!rc)
    rc = os_full_path(name, dir, sizeof(dir));
  if (!rc && (rc = os_make_dir(dir)) == 0 && !(out->work_dir = etwcap_strdup(dir))) {
    os_remove_dir(dir);
    rc = ETWCAP_E_NOMEM;
  }
  if (rc) {
    log_warn("NGEN PDBs not made (native images needing one: %lu): cannot make a folder "
             "beside '%s': %s", (unsigned long)image_count, data_file, etwcap_strerror(rc));
    return;
  }
  for (i = 0; i < image_count && !cancel_requested(); i++) {
    why[0] = '\0';
    rc = make_one(images[i], runner, out, why, sizeof(why));
    if (rc < 0) {
      log_warn("NGEN PDBs not made (native images needing one: %lu): %s",
               (unsigned long)image_count, why[0] ? why : etwcap_strerror(rc));
      return;
    }
    if (rc == 1) {
      made++;
    } else {
      log_info("NGEN PDB skipped: %s", why);
      if (!first[0])
        snprintf(first, sizeof(first), "%s", why);
    }
  }
  if (made < image_count)
    log_warn("NGEN PDBs made for %lu of the %lu native images with samples or stacks; the "
             "others' frames show without names (first: %s)", (unsigned long)made,
             (unsigned long)image_count, first[0] ? first : "stopped");
  log_info("NGEN PDBs: %lu made for the %lu native images with samples or stacks in %.1f s",
           (unsigned long)out->count, (unsigned long)image_count,
           (double)(os_time_monotonic_ns() - t0) / 1e9);
}

void ngen_pdbs_release(struct ngen_pdbs *p)
{
  size_t i;
  for (i = 0; i < p->count; i++) {
    remove_output(p->work_dir, p->files[i].zip_name + strlen("symbols/"));
    etwcap_free(p->files[i].path);
    etwcap_free(p->files[i].zip_name);
  }
  if (p->work_dir && os_remove_dir(p->work_dir) != 0)
    log_warn("could not remove the folder '%s' ngen wrote to: remove it by hand", p->work_dir);
  etwcap_free(p->work_dir);
  etwcap_free(p->files);
  memset(p, 0, sizeof(*p));
}
