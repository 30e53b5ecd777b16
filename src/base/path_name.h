/* The parts of a path, with both separators Windows accepts ('\' and '/')
 * recognised on every OS: traces and their paths move between machines. */
#ifndef ETWCAP_PATH_NAME_H
#define ETWCAP_PATH_NAME_H

#include <stddef.h>

/* The file name after the last separator (the whole path when there is none). */
const char *path_base_name(const char *path);
/* The length of the folder part, separator included (0 for a bare name). */
size_t path_dir_len(const char *path);
/* The length of `path` without a trailing `suffix` ("X" of "X.etl" for
 * ".etl"), which matches in any ASCII case, as Windows file names do;
 * strlen(path) when the path does not end with it. */
size_t path_stem_len(const char *path, const char *suffix);

#endif
