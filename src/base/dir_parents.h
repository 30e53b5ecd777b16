/* Making the folders a file's path needs below a folder that exists, each
 * checked to be a plain folder: a planted link in the way stops it rather
 * than being followed. */
#ifndef ETWCAP_DIR_PARENTS_H
#define ETWCAP_DIR_PARENTS_H

#include <stddef.h>

/* The folders of `path` after its first root_len bytes (the existing root),
 * made one by one.  0, or ETWCAP_E_EXIST when one cannot be made or is not
 * a plain folder. */
int dir_make_parents(const char *path, size_t root_len);

#endif
