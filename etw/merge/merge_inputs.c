/* Finding a collection's session files (rules in merge_inputs.h). */
#include "etw/merge/merge_inputs.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/os_dir.h"
#include "src/base/os/os_file.h"
#include "src/base/path_name.h"
#include "src/base/strutil.h"

#include <stdlib.h>
#include <string.h>

static const char *const sibling_kinds[] = { ".kernel", ".clr", ".user" };

int merge_inputs_is_sibling(const char *main_name, const char *name)
{
  size_t base_len = path_stem_len(main_name, ".etl"), i, name_len = strlen(name);
  if (base_len == strlen(main_name))
    return 0;
  /* Windows names are case-insensitive; so is the match, on every OS. */
  if (name_len <= base_len + 4 || !str_ncaseeq(name, main_name, base_len) ||
      !str_ends_with_case(name, ".etl"))
    return 0;
  for (i = 0; i < sizeof(sibling_kinds) / sizeof(sibling_kinds[0]); i++)
    if (str_ncaseeq(name + base_len, sibling_kinds[i], strlen(sibling_kinds[i])))
      return 1;
  return 0;
}

struct search {
  const char *main_name;
  const char *dir; /* folder part of the main path, with its separator */
  size_t dir_len;
  struct merge_inputs *out;
};

static int add_path(struct merge_inputs *in, const char *dir, size_t dir_len, const char *name)
{
  char **grown = etwcap_reallocarray(in->paths, in->count + 1, sizeof(char *));
  char *path;
  if (!grown)
    return ETWCAP_E_NOMEM;
  in->paths = grown;
  path = etwcap_malloc(dir_len + strlen(name) + 1);
  if (!path)
    return ETWCAP_E_NOMEM;
  memcpy(path, dir, dir_len);
  strcpy(path + dir_len, name);
  in->paths[in->count++] = path;
  return 0;
}

int merge_inputs_add(struct merge_inputs *in, const char *path)
{
  return add_path(in, "", 0, path);
}

static int on_entry(void *ctx, const char *name)
{
  struct search *s = ctx;
  if (!merge_inputs_is_sibling(s->main_name, name))
    return 0;
  return add_path(s->out, s->dir, s->dir_len, name);
}

/* A folder named like a session file is not one: left out, not merged. */
static void drop_folders(struct merge_inputs *in)
{
  size_t i, kept = 1;
  for (i = 1; i < in->count; i++)
    if (os_is_directory(in->paths[i]))
      etwcap_free(in->paths[i]);
    else
      in->paths[kept++] = in->paths[i];
  in->count = kept;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int merge_inputs_find(const char *main_path, struct merge_inputs *out)
{
  struct search s;
  int64_t size;
  char *dir = NULL;
  int rc;

  out->paths = NULL;
  out->ids = NULL;
  out->count = 0;
  rc = os_file_size(main_path, &size);
  if (rc)
    return rc;
  /* The folder by this OS's rules: on Linux a '\\' belongs to the name. */
  s.dir_len = os_dir_part_len(main_path);
  s.main_name = main_path + s.dir_len;
  s.dir = main_path;
  s.out = out;
  rc = add_path(out, "", 0, main_path);
  if (!rc && !(dir = s.dir_len ? etwcap_strndup(main_path, s.dir_len) : etwcap_strdup(".")))
    rc = ETWCAP_E_NOMEM;
  if (!rc)
    rc = os_dir_list(dir, on_entry, &s);
  etwcap_free(dir);
  if (rc) {
    merge_inputs_release(out);
    return rc;
  }
  drop_folders(out);
  merge_inputs_sort(out);
  return 0;
}

void merge_inputs_sort(struct merge_inputs *in)
{
  if (in->count > 1)
    qsort(in->paths + 1, in->count - 1, sizeof(char *), by_name);
}

void merge_inputs_release(struct merge_inputs *in)
{
  size_t i;
  for (i = 0; i < in->count; i++)
    etwcap_free(in->paths[i]);
  etwcap_free(in->paths);
  etwcap_free(in->ids);
  in->paths = NULL;
  in->ids = NULL;
  in->count = 0;
}
