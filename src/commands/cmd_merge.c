/* `etwcap merge DataFile`: merge a collection's session files into one ETL
 * and zip it (PerfView's merge command; capture_finish.c does the work). */
#include "etw/merge/identity_inject.h"
#include "etw/plan/data_file.h"
#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/log_memory.h"
#include "src/base/strutil.h"
#include "src/capture/work_cancel.h"
#include "src/cli/cli.h"
#include "src/cli/command.h"
#include "src/cli/qualifiers.h"
#include "src/finish/capture_finish.h"
#include "src/finish/capture_manifest.h"
#include "src/finish/image_ids_only.h"
#include "src/os/os_proc.h"

#include <stdio.h>
#include <string.h>

static const struct opt_def merge_defs[] = {
  { "ImageIDsOnly", NULL, BIND_BOOL(image_ids_only), NULL, NULL,
    "DataFile is an .etl.zip merged elsewhere (by PerfView or etwcap): add image identity "
    "from the images visible here and write the zip back. Run it inside a container on a "
    "trace collected on the host, so the container's symbols resolve anywhere.",
    0, 0, NULL },
  { "PathMap", NULL, BIND_LIST(path_map, path_map_count), "FROM=TO", NULL,
    "Find the images of image events under another path: a logged path starting with FROM "
    "(case-insensitive) is read at TO instead, e.g. "
    "/PathMap:\\Device\\HarddiskVolume3=D:\\copy-of-c. Repeatable. On Windows the "
    "drive table maps \\Device\\HarddiskVolumeN paths without it.",
    0, 0, NULL },
};

static const struct opt_group merge_group = OPT_GROUP("Merge", merge_defs);

static const struct opt_group *const groups[] = { &merge_group, &opt_group_merge, NULL };

/* /PathMap items, parsed into `maps` (pointing into copies in `store`). */
static int path_maps(const struct cli *cli, struct identity_path_map *maps, char **store,
                     size_t *count)
{
  size_t n = cli->q.path_map_count, i;
  char *const *items = cli->q.path_map;
  *count = 0;
  for (i = 0; i < n && i < 64; i++) {
    store[i] = etwcap_strdup(items[i]);
    if (!store[i])
      return ETWCAP_E_NOMEM;
    *count = i + 1;
    if (identity_parse_path_map(store[i], &maps[i]) != 0) {
      log_error("/PathMap:%s is not FROM=TO (e.g. /PathMap:\\Device\\HarddiskVolume3=C:)",
                items[i]);
      return ETWCAP_E_USAGE;
    }
  }
  if (n > 64) {
    log_error("at most 64 /PathMap rules");
    return ETWCAP_E_USAGE;
  }
  return 0;
}

static int run_image_ids_only(const char *zip, struct identity_injector *identity,
                              const struct ngen_runner *ngen, int low_priority, FILE *console,
                              char *why, size_t why_size)
{
  struct identity_counts c;
  int rc = image_ids_only(zip, identity, ngen, low_priority, console, why, why_size);
  if (rc)
    return rc;
  identity_injector_counts(identity, &c);
  printf("Updated %s: %llu of %llu image events newly identified (%llu were already); %llu "
         "named files could not be read here.\n",
         zip, (unsigned long long)c.identified, (unsigned long long)c.image_events,
         (unsigned long long)c.already, (unsigned long long)c.unreadable);
  return 0;
}

/* Copies `path` into out (cap bytes) whole, or says that the user's
 * `given` path is too long: a path cut short would name another file. */
static int copy_path(char *out, size_t cap, const char *path, const char *given)
{
  if (strlen(path) >= cap) {
    log_error("the path is too long for merge (at most %zu bytes): move the files to a "
              "shorter path than '%s'", cap - 1, given);
    return ETWCAP_E_NAMETOOLONG;
  }
  memcpy(out, path, strlen(path) + 1);
  return 0;
}

static int run_merge(const struct cli *cli)
{
  struct capture_finish_params p;
  struct capture_finish_result r;
  struct log_memory log;
  struct identity_path_map maps[64];
  struct identity_options io;
  struct container_capture cc;
  struct identity_injector *identity = NULL;
  char *store[64] = { NULL };
  char data_file[1024], why[1024];
  size_t nmaps = 0, i;
  int rc;

  if (cli->q.plan.merge == 0) {
    log_error("'merge /Merge:false' would do nothing. Use /Zip:false to merge without zipping.");
    return ETWCAP_E_USAGE;
  }
  if (cli->q.image_ids_only) {
    if (!str_ends_with_case(cli->args[0], ".zip")) {
      log_error("/ImageIDsOnly takes the .etl.zip of a merged trace, not '%s'", cli->args[0]);
      return ETWCAP_E_USAGE;
    }
    rc = copy_path(data_file, sizeof(data_file), cli->args[0], cli->args[0]);
  } else if (str_ends_with_case(cli->args[0], ".zip")) {
    log_error("'%s' is already merged and zipped. To add image identity to it, run: "
              "etwcap merge %s /ImageIDsOnly (with /PathMap where the images are elsewhere)",
              cli->args[0], cli->args[0]);
    return ETWCAP_E_USAGE;
  } else {
    char *name;
    if (data_file_name(cli->args[0], &name) != 0)
      return ETWCAP_E_NOMEM;
    rc = copy_path(data_file, sizeof(data_file), name, cli->args[0]);
    etwcap_free(name);
  }
  if (rc)
    return rc;
  rc = path_maps(cli, maps, store, &nmaps);
  memset(&io, 0, sizeof(io));
  io.maps = maps;
  io.map_count = nmaps;
  io.use_os_mapping = os_is_windows();
  /* Containers still running give their images' identity from here too. */
  container_capture_init(&cc, NULL);
  if (!rc && cli->q.image_ids_only)
    capture_manifest_recall_volumes(&cc, data_file);
  if (!rc && (rc = container_capture_at_stop(&cc, &io, 0, 0)) == 0)
    identity = cc.identity;
  if (rc) {
    container_capture_release(&cc);
    for (i = 0; i < nmaps; i++)
      etwcap_free(store[i]);
    return rc;
  }
  memset(&log, 0, sizeof(log));
  log_add_sink(log_memory_sink, &log, LOG_DEBUG);
  log_info("%s", cli->command_line);

  memset(&p, 0, sizeof(p));
  p.data_file = data_file;
  p.zip = cli->q.plan.zip != 0; /* unset: zip */
  p.low_priority = cli->q.low_priority;
  p.command_line = cli->command_line;
  p.log = &log;
  p.console = os_stderr_is_terminal() ? stderr : NULL;
  p.identity = identity;
  p.containers = &cc;
  p.ngen = p.zip && !cli->q.no_ngen_pdbs ? &ngen_runner_os : NULL; /* PerfView's Merge() */
  work_cancel_begin();
  if (cli->q.image_ids_only)
    rc = run_image_ids_only(data_file, identity, p.ngen, p.low_priority, p.console, why,
                            sizeof(why));
  else
    rc = capture_finish(&p, &r, why, sizeof(why));
  if (rc == ETWCAP_E_CANCELLED && work_cancel_reason())
    snprintf(why, sizeof(why), "stopped by %s: the temporary files are removed and the inputs "
             "are as they were", work_cancel_reason());
  work_cancel_end();
  log_remove_sink(log_memory_sink, &log);
  if (rc) {
    log_error("%s", why);
  } else if (cli->q.image_ids_only) {
    /* run_image_ids_only reported the result */
  } else {
    capture_finish_print(&r);
  }
  log_memory_release(&log);
  container_capture_release(&cc);
  for (i = 0; i < nmaps; i++)
    etwcap_free(store[i]);
  return rc;
}

const struct command cmd_merge = {
  "merge", run_merge, 0, "DataFile", 1, 1,
  "Merge session files into one ETL and zip it.",
  "Merges DataFile and its sibling session files (DataFile.kernel*.etl, .clr*.etl, .user*.etl, "
  "as PerfView names them) into one ETL, every event once in time order, with image "
  "identity (the PDB each loaded image needs, read from the image files) before each kernel "
  "image event, and writes "
  "DataFile.zip holding the merged ETL, LogFile.txt, etwcap-capture.json and (on Windows) "
  "the NGEN PDBs of the .NET native images the trace sampled (see /NoNGenPdbs). The zip is "
  "written to a temporary name, read back and checked, and only then are the session files "
  "deleted. With /Zip:false the merged ETL replaces DataFile.",
  groups,
};
