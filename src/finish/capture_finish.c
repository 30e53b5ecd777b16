/* Merge, zip, verify, clean up (see capture_finish.h). */
#include "src/finish/capture_finish.h"

#include "etw/merge/merge_hooks.h"
#include "etw/merge/merge_inputs.h"
#include "src/base/alloc.h"
#include "src/base/dir_parents.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/os/os_time.h"
#include "src/base/path_name.h"
#include "src/base/progress.h"
#include "src/base/utf8.h"
#include "src/base/zip/archive_writer.h"
#include "src/os/os_proc.h"

#include <stdio.h>
#include <string.h>

static void on_merge_progress(void *ctx, uint64_t done, uint64_t total)
{
  progress_update(ctx, done, total);
}

/* Session descriptions for the manifest, from what the merge read. */
static void describe_sessions(const struct merge_inputs *in, const struct etl_merge_stats *st,
                              struct manifest_session *out)
{
  size_t i;
  for (i = 0; i < in->count; i++) {
    int64_t size = 0;
    memset(&out[i], 0, sizeof(out[i]));
    out[i].file = path_base_name(in->paths[i]);
    out[i].logger = st->input[i].logger;
    out[i].events = st->input[i].events;
    out[i].events_lost = st->input[i].events_lost;
    out[i].buffers_lost = st->input[i].buffers_lost;
    if (os_file_size(in->paths[i], &size) == 0)
      out[i].bytes = (uint64_t)size;
  }
}

static int merge_step(const struct capture_finish_params *p, const struct merge_inputs *in,
                      const char *merged_path, const struct file_io *out,
                      struct ngen_modules *ngen, struct etl_merge_stats *st, char *why,
                      size_t why_size)
{
  struct merge_hooks hooks = { ngen, p->identity };
  struct etl_merge_input inputs[ETL_MERGE_MAX_INPUTS];
  struct etl_merge_options o;
  struct progress prog;
  size_t i;
  int rc = 0;

  if (in->count > ETL_MERGE_MAX_INPUTS)
    return ETWCAP_E_INTERNAL; /* capture_finish refused it already */
  memset(inputs, 0, sizeof(inputs));
  for (i = 0; i < in->count && !rc; i++) {
    inputs[i].name = in->paths[i];
    rc = byte_source_open_file_id(&inputs[i].io, in->paths[i], &in->ids[i]);
    if (rc)
      snprintf(why, why_size, "cannot open '%s': %s", in->paths[i], etwcap_strerror(rc));
  }
  if (!rc) {
    memset(&o, 0, sizeof(o));
    o.io = out;
    if (ngen || p->identity) {
      o.inject = merge_hooks_inject;
      o.inject_ctx = &hooks;
    }
    o.progress = on_merge_progress;
    o.progress_ctx = &prog;
    progress_start(&prog, p->zip ? "merging and compressing" : "merging", p->console);
    rc = etl_merge(inputs, in->count, merged_path, &o, st, why, why_size);
    progress_end(&prog);
  }
  for (i = 0; i < in->count; i++)
    if (inputs[i].io.close)
      byte_source_close(&inputs[i].io);
  return rc;
}

/* The merge, as the producer of the zip's first member: one pass, the
 * merged ETL is compressed as it is written and never lands on disk. */
struct merge_job {
  const struct capture_finish_params *p;
  const struct merge_inputs *in;
  struct ngen_modules *ngen;
  struct etl_merge_stats *st;
};

static int produce_merged(void *ctx, const struct file_io *io, const char *path, char *why,
                          size_t why_size)
{
  struct merge_job *j = ctx;
  return merge_step(j->p, j->in, path, io, j->ngen, j->st, why, why_size);
}

/* The manifest, from what the merge did. */
static int manifest_json(const struct capture_finish_params *p, const struct merge_inputs *in,
                         const struct etl_merge_stats *st, uint64_t merged_bytes, char **json)
{
  struct manifest_session sessions[ETL_MERGE_MAX_INPUTS];
  char machine[256], os[128];
  struct capture_manifest m;

  memset(&m, 0, sizeof(m));
  describe_sessions(in, st, sessions);
  m.command_line = p->command_line;
  m.machine = os_hostname(machine, sizeof(machine));
  m.os = os_describe(os, sizeof(os));
  m.trace_os_major = st->header.os_major;
  m.trace_os_minor = st->header.os_minor;
  m.trace_os_build = st->header.build;
  m.start_filetime = st->header.start_time;
  m.stop_filetime = st->header.end_time;
  m.sessions = sessions;
  m.session_count = in->count;
  m.trigger = p->trigger;
  m.health = p->health;
  m.containers = p->containers;
  m.merged_file = path_base_name(p->data_file);
  m.merged_bytes = merged_bytes;
  m.merged_events = st->events_out;
  if (p->identity) {
    struct identity_counts c;
    identity_injector_counts(p->identity, &c);
    m.images_identified = c.identified;
    m.images_unreadable = c.unreadable;
  }
  m.written_filetime = os_time_now_utc_filetime();
  return capture_manifest_json(&m, json);
}

static void log_merged(const struct capture_finish_params *p, const struct capture_finish_result *r)
{
  log_info("merged %lu files (%.1f MB, %llu events) in %.1f s", (unsigned long)r->inputs,
           (double)r->in_bytes / 1048576.0, (unsigned long long)r->events, r->merge_seconds);
  if (p->identity) {
    struct identity_counts c;
    identity_injector_counts(p->identity, &c);
    log_info("image identity: %llu of %llu image events identified; %llu named files that "
             "could not be read as images (give /PathMap when the images are elsewhere)",
             (unsigned long long)c.identified, (unsigned long long)c.image_events,
             (unsigned long long)c.unreadable);
  }
}

/* The NGEN PDBs of the native images the merge saw used, as zip members
 * under symbols/ (PerfView's merge puts them there). */
static int add_ngen_pdbs(struct archive *a, const struct capture_finish_params *p,
                         struct ngen_modules *ngen, struct ngen_pdbs *pdbs, char *why,
                         size_t why_size)
{
  struct archive_member m;
  const char *const *images;
  size_t count, i;
  int rc = ngen_modules_finish(ngen, &images, &count);
  if (rc) {
    snprintf(why, why_size, "choosing the native images that need NGEN PDBs: %s",
             etwcap_strerror(rc));
    return rc;
  }
  ngen_pdbs_make(images, count, p->data_file, p->ngen, pdbs);
  for (i = 0; i < pdbs->count && !rc; i++) {
    memset(&m, 0, sizeof(m));
    m.name = pdbs->files[i].zip_name;
    m.path = pdbs->files[i].path;
    rc = archive_add(a, &m, NULL, why, why_size);
  }
  return rc;
}

/* Merges into the zip, then adds the NGEN PDBs, LogFile.txt (which by then
 * says how both went) and the manifest, verifies and renames. */
static int merge_into_zip(const struct capture_finish_params *p, const struct merge_inputs *in,
                          struct etl_merge_stats *st, struct capture_finish_result *r, char *why,
                          size_t why_size)
{
  struct merge_job job = { p, in, NULL, st };
  struct ngen_pdbs pdbs;
  struct archive_member m;
  struct archive_options o;
  struct archive_stats zs;
  struct archive *a;
  uint64_t merged_bytes = 0, t0 = os_time_monotonic_ns(), t1, ngen_ns = 0;
  char *json = NULL;
  int rc;

  memset(&pdbs, 0, sizeof(pdbs));
  memset(&o, 0, sizeof(o));
  o.threads = p->low_priority ? 1 : 0;
  o.low_priority = p->low_priority;
  if (p->ngen && (rc = ngen_modules_new(&job.ngen)) != 0) {
    snprintf(why, why_size, "%s", etwcap_strerror(rc));
    return rc;
  }
  rc = archive_open(&a, r->output, &o, why, why_size);
  if (rc) {
    ngen_modules_free(job.ngen);
    return rc;
  }
  memset(&m, 0, sizeof(m));
  m.name = path_base_name(p->data_file);
  m.produce = produce_merged;
  m.produce_ctx = &job;
  rc = archive_add(a, &m, &merged_bytes, why, why_size);
  t1 = os_time_monotonic_ns();
  r->merge_seconds = (double)(t1 - t0) / 1e9;
  r->events = st->events_out;
  if (!rc) {
    log_merged(p, r);
    rc = manifest_json(p, in, st, merged_bytes, &json);
  }
  if (!rc && job.ngen) {
    uint64_t n0 = os_time_monotonic_ns();
    rc = add_ngen_pdbs(a, p, job.ngen, &pdbs, why, why_size);
    ngen_ns = os_time_monotonic_ns() - n0; /* logged on its own, not verification */
  }
  if (!rc) {
    memset(&m, 0, sizeof(m));
    m.name = "LogFile.txt";
    m.data = p->log && p->log->text ? p->log->text : "";
    m.size = p->log ? p->log->len : 0;
    rc = archive_add(a, &m, NULL, why, why_size);
  }
  if (!rc) {
    m.name = CAPTURE_MANIFEST_NAME;
    m.data = json;
    m.size = strlen(json);
    rc = archive_add(a, &m, NULL, why, why_size);
  }
  if (rc) {
    archive_abort(a);
  } else {
    rc = archive_commit(a, &zs, why, why_size);
    if (!rc)
      r->out_bytes = zs.zip_bytes;
  }
  r->verify_seconds = (double)(os_time_monotonic_ns() - t1 - ngen_ns) / 1e9;
  ngen_pdbs_release(&pdbs);
  ngen_modules_free(job.ngen);
  etwcap_free(json);
  return rc;
}

/* /Wpr (no zip): the NGEN PDBs go into the folder X.etl.ngenpdb beside the
 * merged ETL, in the symbol-server layout, where PerfView's /Wpr puts them
 * for WPA.  Like the zip's, they never fail the merge: what is not kept is
 * logged. */
static void keep_ngen_pdbs_beside(const struct capture_finish_params *p,
                                  struct ngen_modules *ngen)
{
  struct ngen_pdbs pdbs;
  const char *const *images;
  char dir[1100], path[2200];
  size_t count, i, kept = 0;
  int rc;
  memset(&pdbs, 0, sizeof(pdbs));
  if ((rc = ngen_modules_finish(ngen, &images, &count)) != 0) {
    log_warn("no NGEN PDBs: choosing the native images that need them failed: %s",
             etwcap_strerror(rc));
    return;
  }
  ngen_pdbs_make(images, count, p->data_file, p->ngen, &pdbs);
  snprintf(dir, sizeof(dir), "%s.ngenpdb", p->data_file);
  if (pdbs.count && (os_make_dir(dir) != 0 || !os_is_plain_dir(dir)))
    log_warn("cannot make the folder '%s' (or it is not a plain folder): the %lu NGEN PDBs "
             "are not kept", dir, (unsigned long)pdbs.count);
  else
    for (i = 0; i < pdbs.count; i++) {
      snprintf(path, sizeof(path), "%s/%s", dir, pdbs.files[i].zip_name + strlen("symbols/"));
      os_native_path(path);
      if ((rc = dir_make_parents(path, strlen(dir))) == 0 &&
          (rc = os_rename_replace(pdbs.files[i].path, path)) == 0)
        kept++;
      else
        log_warn("NGEN PDB '%s' not kept in '%s': %s", pdbs.files[i].zip_name, dir,
                 etwcap_strerror(rc));
    }
  if (kept)
    log_info("%lu NGEN PDB(s) in %s", (unsigned long)kept, dir);
  ngen_pdbs_release(&pdbs);
}

/* Without /Zip: a merged X.etl.  Replace X.etl first, then the siblings go:
 * a failure in between keeps every event somewhere. */
static int merge_into_etl(const struct capture_finish_params *p, const struct merge_inputs *in,
                          struct etl_merge_stats *st, struct capture_finish_result *r, char *why,
                          size_t why_size)
{
  char *merged_path = etwcap_malloc(strlen(p->data_file) + 32);
  struct ngen_modules *ngen = NULL;
  uint64_t t0 = os_time_monotonic_ns();
  int64_t size = 0;
  int rc = merged_path ? 0 : ETWCAP_E_NOMEM;

  /* X.etl.<random>.tmp: created exclusively, under a name nobody can plant
   * a link at in advance. */
  if (!rc && (rc = os_temp_name(p->data_file, merged_path, strlen(p->data_file) + 32)) != 0)
    snprintf(why, why_size, "cannot name a temporary file beside '%s': %s", p->data_file,
             etwcap_strerror(rc));
  if (!rc && p->ngen && (rc = ngen_modules_new(&ngen)) != 0)
    snprintf(why, why_size, "%s", etwcap_strerror(rc));
  if (!rc)
    rc = merge_step(p, in, merged_path, NULL, ngen, st, why, why_size);
  r->merge_seconds = (double)(os_time_monotonic_ns() - t0) / 1e9;
  r->events = st->events_out;
  if (!rc) {
    log_merged(p, r);
    rc = os_rename_replace(merged_path, p->data_file);
    if (rc) {
      snprintf(why, why_size, "cannot rename '%s' to '%s': %s", merged_path, p->data_file,
               etwcap_strerror(rc));
      os_remove(merged_path);
    }
  }
  if (!rc && os_file_size(p->data_file, &size) == 0)
    r->out_bytes = (uint64_t)size;
  if (!rc && ngen)
    keep_ngen_pdbs_beside(p, ngen);
  ngen_modules_free(ngen);
  etwcap_free(merged_path);
  return rc;
}

/* Only what was merged goes: a file put under an input's name since the
 * merge opened it is left alone. */
static void delete_inputs(const struct merge_inputs *in, size_t from)
{
  size_t i;
  for (i = from; i < in->count; i++) {
    int rc = os_remove_same(in->paths[i], &in->ids[i]);
    if (rc == ETWCAP_E_REPLACED)
      log_warn("'%s' is not deleted: another file took its name during the merge (the "
               "capture holds the file that was there when the merge began)", in->paths[i]);
    else if (rc)
      log_warn("could not delete '%s' after merging it: %s", in->paths[i], etwcap_strerror(rc));
  }
}

/* The session files: the caller's list, or X.etl and its siblings by name;
 * with room for what each is when opened. */
static int gather_inputs(const struct capture_finish_params *p, struct merge_inputs *in,
                         char *why, size_t why_size)
{
  size_t i;
  int rc = 0;
  memset(in, 0, sizeof(*in));
  if (p->inputs)
    for (i = 0; i < p->inputs->count && !rc; i++)
      rc = merge_inputs_add(in, p->inputs->paths[i]);
  else
    rc = merge_inputs_find(p->data_file, in);
  if (!rc && !in->count)
    rc = ETWCAP_E_NOENT;
  if (rc) {
    snprintf(why, why_size, "cannot find the session files of '%s': %s", p->data_file,
             etwcap_strerror(rc));
  } else if (in->count > ETL_MERGE_MAX_INPUTS) {
    /* merge_inputs_find takes every X.kernel*, X.clr*, X.user*.etl there. */
    snprintf(why, why_size, "'%s' has %lu session files beside it (X.etl, X.kernel*.etl, "
             "X.clr*.etl, X.user*.etl); one merge takes at most %d: move the files that are "
             "not this capture's elsewhere", p->data_file, (unsigned long)in->count,
             ETL_MERGE_MAX_INPUTS);
    rc = ETWCAP_E_FORMAT;
  } else if (!(in->ids = etwcap_calloc(in->count, sizeof(*in->ids)))) {
    rc = ETWCAP_E_NOMEM;
  }
  if (rc)
    merge_inputs_release(in);
  return rc;
}

/* r->output, whole, and not a folder: said before the merge, which the
 * final rename would otherwise refuse only at its end. */
static int name_output(const struct capture_finish_params *p, struct capture_finish_result *r,
                       char *why, size_t why_size)
{
  if (snprintf(r->output, sizeof(r->output), p->zip ? "%s.zip" : "%s", p->data_file) >=
      (int)sizeof(r->output)) {
    snprintf(why, why_size, "the name '%.200s...' is too long for the capture (%lu bytes, at "
             "most %lu): merge from a shorter path", p->data_file,
             (unsigned long)strlen(p->data_file), (unsigned long)sizeof(r->output) - 5);
    return ETWCAP_E_NAMETOOLONG;
  }
  if (p->zip && os_is_directory(r->output)) {
    snprintf(why, why_size, "'%s' is a folder: the capture cannot be written there; move it "
             "away or merge under another name", r->output);
    return ETWCAP_E_ISDIR;
  }
  return 0;
}

int capture_finish(const struct capture_finish_params *p, struct capture_finish_result *r,
                   char *why, size_t why_size)
{
  struct merge_inputs in;
  struct etl_merge_stats st;
  size_t i;
  int rc;

  memset(r, 0, sizeof(*r));
  if (!utf8_valid((const uint8_t *)p->data_file, strlen(p->data_file))) {
    /* Linux names are bytes; the zip's names and the manifest are UTF-8. */
    snprintf(why, why_size, "the name '%s' is not valid UTF-8: rename the file (the zip and its "
             "manifest name it in UTF-8)", p->data_file);
    return ETWCAP_E_USAGE;
  }
  /* merge_step can fail before etl_merge fills st (opening an input). */
  memset(&st, 0, sizeof(st));
  why[0] = '\0';
  rc = name_output(p, r, why, why_size);
  if (!rc)
    rc = gather_inputs(p, &in, why, why_size);
  if (rc)
    return rc;
  r->inputs = in.count;
  r->zipped = p->zip;
  for (i = 0; i < in.count; i++) {
    int64_t size;
    if (os_file_size(in.paths[i], &size) == 0)
      r->in_bytes += (uint64_t)size;
    log_debug("input %lu: %s", (unsigned long)i + 1, in.paths[i]);
  }
  if (p->zip) {
    rc = merge_into_zip(p, &in, &st, r, why, why_size);
    if (!rc)
      delete_inputs(&in, 0);
  } else {
    rc = merge_into_etl(p, &in, &st, r, why, why_size);
    if (!rc)
      delete_inputs(&in, 1);
  }
  merge_inputs_release(&in);
  return rc;
}

void capture_finish_print(const struct capture_finish_result *r)
{
  printf("Wrote %s: %.1f MB from %lu session file%s (%.1f MB, %llu events); ", r->output,
         (double)r->out_bytes / 1048576.0, (unsigned long)r->inputs, r->inputs == 1 ? "" : "s",
         (double)r->in_bytes / 1048576.0, (unsigned long long)r->events);
  if (r->zipped)
    printf("merge and compress %.1f s, verify %.1f s.\n", r->merge_seconds, r->verify_seconds);
  else
    printf("merge %.1f s.\n", r->merge_seconds);
}
