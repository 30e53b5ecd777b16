/* Writing a small file whole (a session record, a request, a report) the
 * way every output is written: into a temporary name beside it that another
 * user cannot predict, created exclusively without following links, then
 * renamed over `path`, which must be a regular file or nothing. */
#ifndef ETWCAP_FILE_WRITE_H
#define ETWCAP_FILE_WRITE_H

#include <stddef.h>

/* 0, or the create/write/rename error; on error nothing new is left and
 * `path` is as it was. */
int file_write_replace(const char *path, const void *data, size_t len);

#endif
