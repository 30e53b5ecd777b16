/* The periodic kernel rundown files kept for a ring or segment (rules in
 * periodic_rundown_files.h). */
#include "src/capture/periodic_rundown_files.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/path_name.h"

#include <stdio.h>
#include <string.h>

int periodic_rundown_file_name(const char *data_file, unsigned n, char *out, size_t cap)
{
  int w = snprintf(out, cap, "%.*s.kernelRundown.%u.etl",
                   (int)path_stem_len(data_file, ".etl"), data_file, n);
  return w < 0 || (size_t)w >= cap ? ETWCAP_E_RANGE : 0;
}

/* Deletes the oldest kept file, if it is still the one written. */
static void delete_oldest(struct periodic_rundown_files *f)
{
  char path[CONTROLLER_PATH_MAX];
  int rc = periodic_rundown_file_name(f->data_file, f->number[0], path, sizeof(path));
  if (!rc)
    rc = os_remove_same(path, &f->id[0]);
  if (rc == ETWCAP_E_REPLACED)
    log_warn("'%s' is not deleted: another file has taken the name of etwcap's periodic "
             "rundown file", path);
  else if (rc && rc != ETWCAP_E_NOENT)
    log_warn("cannot delete the older periodic rundown file '%s' (%s): it stays, and is "
             "merged with the capture", path, etwcap_strerror(rc));
  else if (!rc)
    log_debug("deleted the periodic rundown file '%s' (the newest %d are kept)", path,
              PERIODIC_RUNDOWN_FILES_KEPT);
  f->count--;
  memmove(f->number, f->number + 1, f->count * sizeof(f->number[0]));
  memmove(f->id, f->id + 1, f->count * sizeof(f->id[0]));
}

void periodic_rundown_files_written(struct periodic_rundown_files *f, const char *data_file,
                                    unsigned n)
{
  char path[CONTROLLER_PATH_MAX];
  struct os_file_id id;
  if (strcmp(f->data_file, data_file) != 0) {
    snprintf(f->data_file, sizeof(f->data_file), "%s", data_file);
    f->count = 0;
  }
  if (periodic_rundown_file_name(data_file, n, path, sizeof(path)) != 0 ||
      os_path_id(path, &id) != 0)
    return;
  if (f->count == PERIODIC_RUNDOWN_FILES_KEPT)
    delete_oldest(f);
  f->number[f->count] = n;
  f->id[f->count++] = id;
}

/* Copies `from` to `to`, created exclusively; a part written is removed. */
static int copy_file(const char *from, const char *to)
{
  FILE *in = os_fopen_regular(from, NULL), *out;
  char *buf = NULL;
  size_t got;
  int rc = 0;
  if (!in)
    return os_last_error();
  if (!(out = os_fcreate(to))) {
    rc = os_last_error();
    fclose(in);
    return rc;
  }
  if (!(buf = etwcap_malloc(65536)))
    rc = ETWCAP_E_NOMEM;
  while (!rc && (got = fread(buf, 1, 65536, in)) > 0)
    if (fwrite(buf, 1, got, out) != got)
      rc = ETWCAP_E_IO;
  if (!rc && ferror(in))
    rc = ETWCAP_E_IO;
  if (fclose(out) != 0 && !rc)
    rc = ETWCAP_E_IO;
  fclose(in);
  etwcap_free(buf);
  if (rc)
    os_remove(to);
  return rc;
}

size_t periodic_rundown_files_copy(const struct periodic_rundown_files *f,
                                   const char *data_file, const char *to)
{
  char from[CONTROLLER_PATH_MAX], copy[CONTROLLER_PATH_MAX];
  size_t i, copied = 0;
  if (strcmp(f->data_file, data_file) != 0)
    return 0;
  for (i = 0; i < f->count; i++) {
    int rc = periodic_rundown_file_name(data_file, f->number[i], from, sizeof(from));
    if (!rc)
      rc = periodic_rundown_file_name(to, f->number[i], copy, sizeof(copy));
    if (!rc)
      rc = copy_file(from, copy);
    if (rc)
      log_warn("snapshot '%s' goes without the periodic rundown file '%s' (%s)", to, from,
               etwcap_strerror(rc));
    else
      copied++;
  }
  return copied;
}
