/* libFuzzer target: which session files a merge takes (etw/merge/merge_inputs.c),
 * on a real folder whose file names come from the input.
 * Input: names separated by '\n', at most NAMES_MAX of them, each cut to
 * NAME_MAX_LEN bytes and written in safe characters (letters, digits, '.',
 * '_', '-'; other bytes map onto them).  The first name is the main file;
 * a name starting with '*' has the main file's name without ".etl" put in
 * its place, so "*.kernel.etl" is a sibling whatever the main file is.
 * Checks: the main file comes first; every other path is in the folder,
 * names a file made here, is a sibling by merge_inputs_is_sibling, appears
 * once and in name order; and every sibling made is found. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "etw/merge/merge_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAMES_MAX 100
#define NAME_MAX_LEN 64

static char folder[64];

static void empty_folder(void)
{
  DIR *d = opendir(folder);
  struct dirent *e;
  char path[sizeof(folder) + 2 * NAME_MAX_LEN + 2];
  if (!d)
    abort();
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    snprintf(path, sizeof(path), "%s/%s", folder, e->d_name);
    if (unlink(path) != 0)
      abort();
  }
  closedir(d);
}

static void remove_folder(void)
{
  empty_folder();
  rmdir(folder);
}

/* Bytes to a file name in safe characters. */
static size_t safe_name(const uint8_t *p, size_t n, char *out)
{
  static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
  size_t i;
  if (n > NAME_MAX_LEN)
    n = NAME_MAX_LEN;
  for (i = 0; i < n; i++)
    out[i] = strchr(safe, p[i]) && p[i] ? (char)p[i] : safe[p[i] % (sizeof(safe) - 1)];
  out[n] = '\0';
  return n;
}

/* "", "." and ".." (a '*' name on a main file called ".etl" or "..etl"
 * can make them) are the folder or its parent, not a file to make. */
static int names_a_file(const char *name)
{
  return name[0] && strcmp(name, ".") && strcmp(name, "..");
}

static char made[NAMES_MAX][2 * NAME_MAX_LEN + 1];

static void make_file(const char *name)
{
  char path[sizeof(folder) + sizeof(made[0]) + 1];
  int fd;
  snprintf(path, sizeof(path), "%s/%s", folder, name);
  fd = open(path, O_WRONLY | O_CREAT, 0600);
  if (fd < 0)
    abort();
  close(fd);
}

/* Index of name among the count made, or -1. */
static int made_index(const char *name, size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    if (!strcmp(made[i], name))
      return (int)i;
  return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int found[NAMES_MAX];
  char main_path[sizeof(folder) + sizeof(made[0]) + 1], base[NAME_MAX_LEN + 1];
  struct merge_inputs in;
  size_t count = 0, pos = 0, base_len = 0, dir_len, i, k, siblings = 0;
  struct stat st;
  if (!folder[0]) {
    snprintf(folder, sizeof(folder), "%s/fuzz_merge_inputs.XXXXXX", "/tmp");
    if (!mkdtemp(folder))
      abort();
    atexit(remove_folder);
  }
  empty_folder();
  while (pos < size && count < NAMES_MAX) {
    const uint8_t *end = memchr(data + pos, '\n', size - pos);
    size_t n = end ? (size_t)(end - (data + pos)) : size - pos;
    char *name = made[count];
    if (count && n && data[pos] == '*') {
      memcpy(name, base, base_len);
      safe_name(data + pos + 1, n - 1, name + base_len);
    } else if (n) {
      safe_name(data + pos, n, name);
    }
    pos += n + 1;
    if (!n || !names_a_file(name) || (count && made_index(name, count) >= 0))
      continue;
    make_file(name);
    if (!count) { /* the main file: X of X.etl for the '*' names */
      base_len = strlen(name);
      if (base_len >= 4 && !strcmp(name + base_len - 4, ".etl"))
        base_len -= 4;
      memcpy(base, name, base_len);
    }
    count++;
  }
  if (!count)
    return 0;
  snprintf(main_path, sizeof(main_path), "%s/%s", folder, made[0]);
  if (merge_inputs_find(main_path, &in) != 0 || in.count < 1 || in.count > count ||
      strcmp(in.paths[0], main_path))
    abort();
  dir_len = strlen(folder) + 1;
  memset(found, 0, sizeof(found));
  for (i = 1; i < in.count; i++) {
    const char *p = in.paths[i];
    int at;
    if (strncmp(p, main_path, dir_len) || (at = made_index(p + dir_len, count)) <= 0 ||
        found[at]++ || stat(p, &st) != 0 || !merge_inputs_is_sibling(made[0], p + dir_len) ||
        (i > 1 && strcmp(in.paths[i - 1], p) >= 0))
      abort();
  }
  for (k = 1; k < count; k++)
    siblings += merge_inputs_is_sibling(made[0], made[k]) != 0;
  if (siblings != in.count - 1)
    abort();
  merge_inputs_release(&in);
  return 0;
}
