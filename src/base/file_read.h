/* Reading a small text file whole (a response file, a session record). */
#ifndef ETWCAP_FILE_READ_H
#define ETWCAP_FILE_READ_H

#include <stddef.h>

/* Reads `path` (UTF-8) into *text, NUL-terminated, its length in *len
 * (etwcap_free the text).  ETWCAP_E_RANGE when it is larger than max_bytes;
 * else 0 or the open/read error. */
int file_read_small(const char *path, size_t max_bytes, char **text, size_t *len);

#endif
