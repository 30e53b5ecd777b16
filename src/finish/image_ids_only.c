/* /ImageIDsOnly on an existing .etl.zip (see image_ids_only.h). */
#include "src/finish/image_ids_only.h"

#include "etw/merge/etl_merge.h"
#include "etw/merge/merge_hooks.h"
#include "src/base/alloc.h"
#include "src/base/byte_source.h"
#include "src/base/cancel.h"
#include "src/base/error.h"
#include "src/base/file_error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/progress.h"
#include "src/base/strutil.h"
#include "src/base/zip/archive_writer.h"
#include "src/base/zip/zip_directory.h"

#include <stdio.h>
#include <string.h>

/* One member of the zip being rewritten, with what the new zip keeps of it. */
struct kept {
  char *name;
  char *path;       /* its bytes, extracted; NULL for a folder entry */
  uint8_t *extra;   /* its central header's extra fields, then its local header's */
  size_t extra_len, local_extra_len;
  uint32_t dos_time;
};

struct extracted {
  struct kept *m;
  size_t count;
  size_t etl_index;
  int etl_members;
  char *comment; /* the archive's, or NULL */
};

static void extracted_release(struct extracted *x)
{
  size_t i;
  for (i = 0; i < x->count; i++) {
    if (x->m[i].path)
      os_remove(x->m[i].path);
    etwcap_free(x->m[i].path);
    etwcap_free(x->m[i].name);
    etwcap_free(x->m[i].extra);
  }
  etwcap_free(x->m);
  etwcap_free(x->comment);
}

/* A name we would write back into a zip must not point outside it:
 * absolute, drive-qualified, or with a ".." segment. */
static int name_escapes(const char *name)
{
  const char *p = name;
  if (name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':'))
    return 1;
  while (*p) {
    size_t n = strcspn(p, "/\\");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return 1;
    p += n;
    if (*p)
      p++;
  }
  return 0;
}

struct file_sink {
  FILE *f;
};

static int write_chunk(void *ctx, const void *data, size_t len)
{
  struct file_sink *k = ctx;
  if (cancel_requested())
    return ETWCAP_E_CANCELLED;
  return fwrite(data, 1, len, k->f) == len ? 0 : os_last_error();
}

/* Extracts one member to `path`, checking its size and CRC on the way. */
static int extract_member(const struct byte_source *io, const struct zip_entry *z, const char *path,
                          char *why, size_t why_size)
{
  struct file_sink k;
  char detail[256];
  uint64_t size;
  uint32_t crc;
  int rc;
  k.f = os_fcreate(path);
  if (!k.f) {
    rc = os_last_error();
    file_create_error(why, why_size, path, rc);
    return rc;
  }
  rc = zip_entry_read(io, z, write_chunk, &k, &size, &crc, detail, sizeof(detail));
  if (fclose(k.f) != 0 && !rc)
    rc = os_last_error();
  if (!rc && (size != z->uncompressed_size || crc != z->crc32)) {
    snprintf(detail, sizeof(detail), "size or CRC differs from the directory");
    rc = ETWCAP_E_CORRUPT;
  }
  if (rc)
    snprintf(why, why_size, "cannot extract member '%s': %s", z->name,
             rc == ETWCAP_E_CORRUPT || rc == ETWCAP_E_TRUNCATED ? detail : etwcap_strerror(rc));
  return rc;
}

/* A member's name, time and extra fields (the local header's read from
 * just before its data). */
static int keep_entry(const struct byte_source *io, const struct zip_entry *z, struct kept *k)
{
  k->name = etwcap_strdup(z->name);
  k->extra = etwcap_malloc((size_t)z->extra_len + z->local_extra_len + 1);
  if (!k->name || !k->extra)
    return ETWCAP_E_NOMEM;
  k->extra_len = z->extra_len;
  k->local_extra_len = z->local_extra_len;
  k->dos_time = z->dos_time;
  memcpy(k->extra, z->extra, z->extra_len);
  return byte_source_read_exact(io, z->data_offset - z->local_extra_len, k->extra + z->extra_len,
                                z->local_extra_len, NULL);
}

/* Every member but the folder entries to a temporary file beside the zip. */
static int extract_all(const char *zip_path, struct extracted *x, char *why, size_t why_size)
{
  struct byte_source io;
  struct zip_directory dir;
  char detail[256];
  size_t i, path_size = strlen(zip_path) + 32;
  int rc;
  memset(x, 0, sizeof(*x));
  rc = byte_source_open_file(&io, zip_path);
  if (rc) {
    snprintf(why, why_size, "cannot open '%s': %s", zip_path, etwcap_strerror(rc));
    return rc;
  }
  rc = zip_directory_read(&io, &dir, detail, sizeof(detail));
  if (rc) {
    snprintf(why, why_size, "'%s' is not a zip archive we can read: %s", zip_path, detail);
    byte_source_close(&io);
    return ETWCAP_E_FORMAT;
  }
  x->m = etwcap_calloc(dir.count ? dir.count : 1, sizeof(*x->m));
  if (!x->m || (dir.comment_len && !(x->comment = etwcap_strdup(dir.comment))))
    rc = ETWCAP_E_NOMEM;
  for (i = 0; i < dir.count && !rc; i++) {
    const struct zip_entry *z = &dir.entries[i];
    struct kept *k = &x->m[i];
    size_t len = strlen(z->name);
    if (name_escapes(z->name)) {
      snprintf(why, why_size, "'%s' has a member named '%s', which points outside the "
               "archive; refusing to rewrite it", zip_path, z->name);
      rc = ETWCAP_E_FORMAT;
      break;
    }
    x->count++;
    rc = keep_entry(&io, z, k);
    if (rc || (len && z->name[len - 1] == '/'))
      continue; /* a folder entry has nothing to extract */
    /* Named at random beside the zip, never by member name: a hostile name
     * cannot point outside the folder, nobody can plant a link in advance. */
    k->path = etwcap_calloc(1, path_size);
    rc = k->path ? os_temp_name(zip_path, k->path, path_size) : ETWCAP_E_NOMEM;
    if (!rc)
      rc = extract_member(&io, z, k->path, why, why_size);
    if (!rc && str_ends_with_case(z->name, ".etl")) {
      x->etl_index = i;
      x->etl_members++;
    }
  }
  zip_directory_release(&dir);
  byte_source_close(&io);
  if (!rc && x->etl_members != 1) {
    snprintf(why, why_size, "'%s' holds %d .etl members; /ImageIDsOnly needs exactly one",
             zip_path, x->etl_members);
    rc = ETWCAP_E_FORMAT;
  }
  if (rc && !why[0])
    snprintf(why, why_size, "cannot read '%s': %s", zip_path, etwcap_strerror(rc));
  return rc;
}

/* The NGEN PDBs of the native images the trace used that the zip does not
 * hold yet, appended to `members` (room for them is made here). */
static int add_ngen_pdbs(struct ngen_modules *ngen, const struct ngen_runner *runner,
                         const char *zip_path, struct ngen_pdbs *pdbs,
                         struct archive_member **members, size_t *count)
{
  const char *const *images;
  struct archive_member *m;
  size_t n, i, k;
  int rc = ngen_modules_finish(ngen, &images, &n);
  if (rc)
    return rc;
  ngen_pdbs_make(images, n, zip_path, runner, pdbs);
  if (!pdbs->count)
    return 0;
  if (!(m = etwcap_reallocarray(*members, *count + pdbs->count, sizeof(*m))))
    return ETWCAP_E_NOMEM;
  *members = m;
  for (i = 0; i < pdbs->count; i++) {
    for (k = 0; k < *count && !str_caseeq(m[k].name, pdbs->files[i].zip_name); k++) {
    }
    if (k < *count)
      continue; /* made by an earlier merge: kept as it was */
    memset(&m[*count], 0, sizeof(*m));
    m[*count].name = pdbs->files[i].zip_name;
    m[*count].path = pdbs->files[i].path;
    ++*count;
  }
  return 0;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
  progress_update(ctx, done, total);
}

int image_ids_only(const char *zip_path, struct identity_injector *identity,
                   const struct ngen_runner *ngen, int low_priority, FILE *console, char *why,
                   size_t why_size)
{
  struct merge_hooks hooks = { NULL, identity };
  struct ngen_pdbs pdbs;
  struct extracted x;
  struct etl_merge_input in;
  struct etl_merge_options mo;
  struct etl_merge_stats st;
  struct archive_member *members = NULL;
  struct archive_options ao;
  struct archive_stats as;
  struct progress prog;
  char *merged = NULL;
  size_t i, count;
  int rc;

  why[0] = '\0';
  memset(&x, 0, sizeof(x));
  memset(&pdbs, 0, sizeof(pdbs));
  rc = ngen ? ngen_modules_new(&hooks.ngen) : 0;
  if (!rc)
    rc = extract_all(zip_path, &x, why, why_size);
  if (rc)
    goto cleanup;
  merged = etwcap_malloc(strlen(zip_path) + 32);
  members = etwcap_calloc(x.count, sizeof(*members));
  if (!merged || !members) {
    rc = ETWCAP_E_NOMEM;
    goto cleanup;
  }
  rc = os_temp_name(zip_path, merged, strlen(zip_path) + 32);
  if (rc)
    goto cleanup;

  memset(&in, 0, sizeof(in));
  in.name = x.m[x.etl_index].name;
  rc = byte_source_open_file(&in.io, x.m[x.etl_index].path);
  if (rc)
    goto cleanup;
  memset(&mo, 0, sizeof(mo));
  mo.inject = merge_hooks_inject;
  mo.inject_ctx = &hooks;
  mo.progress = on_progress;
  mo.progress_ctx = &prog;
  progress_start(&prog, "adding image identity", console);
  rc = etl_merge(&in, 1, merged, &mo, &st, why, why_size);
  progress_end(&prog);
  byte_source_close(&in.io);
  if (rc)
    goto cleanup;
  for (i = 0; i < x.count; i++) {
    const struct kept *k = &x.m[i];
    members[i].name = k->name;
    members[i].path = i == x.etl_index ? merged : k->path;
    members[i].dos_time = k->dos_time;
    members[i].extra = k->extra;
    members[i].extra_size = k->extra_len;
    members[i].local_extra = k->extra + k->extra_len;
    members[i].local_extra_size = k->local_extra_len;
  }
  count = x.count;
  if (hooks.ngen && (rc = add_ngen_pdbs(hooks.ngen, ngen, zip_path, &pdbs, &members, &count)))
    goto cleanup;
  if (st.events_out == st.events_in && count == x.count) {
    /* Nothing to add: the archive stays exactly as it was. */
    log_info("no image identity to add to '%s'; it is left unchanged", zip_path);
    goto cleanup;
  }

  memset(&ao, 0, sizeof(ao));
  ao.threads = low_priority ? 1 : 0;
  ao.low_priority = low_priority;
  ao.comment = x.comment;
  rc = archive_write(zip_path, members, count, &ao, &as, why, why_size);

cleanup:
  ngen_pdbs_release(&pdbs);
  ngen_modules_free(hooks.ngen);
  if (merged)
    os_remove(merged);
  etwcap_free(merged);
  etwcap_free(members);
  if (x.m)
    extracted_release(&x);
  return rc;
}
