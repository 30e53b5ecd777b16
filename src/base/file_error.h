/* The message for a file that could not be created, pointing the right way:
 * "cannot write to FOLDER: permission denied" when the folder refuses,
 * "cannot create 'PATH': name too long", "... is a folder, not a file". */
#ifndef ETWCAP_FILE_ERROR_H
#define ETWCAP_FILE_ERROR_H

#include <stddef.h>

void file_create_error(char *why, size_t why_size, const char *path, int rc);

#endif
