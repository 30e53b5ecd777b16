/* Listing a folder's entries (names only, UTF-8).  os_dir_posix.c and
 * os_dir_win32.c implement it. */
#ifndef ETWCAP_OS_DIR_H
#define ETWCAP_OS_DIR_H

#include <stddef.h>

/* Called for each entry other than "." and ".."; a non-zero return stops
 * the listing and is returned by os_dir_list. */
typedef int (*os_dir_fn)(void *ctx, const char *name);

/* Lists `dir` ("" or "." for the current folder).  0, the callback's
 * non-zero value, or ETWCAP_E_NOENT / ETWCAP_E_ACCES / ETWCAP_E_IO. */
int os_dir_list(const char *dir, os_dir_fn fn, void *ctx);

/* The length of `path`'s folder part, its last separator included (0 for a
 * bare name), by this OS's rules: Windows separates with '\\' and '/', POSIX
 * only with '/' ('\\' is an ordinary character of a Linux file name).  For
 * a path that names a file here; path_name.h splits Windows paths read from
 * traces the same way on every OS. */
size_t os_dir_part_len(const char *path);

#endif
