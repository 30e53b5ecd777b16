/* "Every ETL in this path": the file itself when it is an ETL, or each .etl
 * member of a zip archive (recognised by its signature, not its name), each
 * opened as an etl_reader.  Shared by dump, info and anything else that
 * takes FILE arguments. */
#ifndef ETWCAP_ETL_SOURCE_H
#define ETWCAP_ETL_SOURCE_H

#include "etw/etl/etl_reader.h"

#include <stddef.h>

/* Called once per ETL with a display name: the path as given, or
 * "PATH!MEMBER" for a zip member.  Returns 0 to go on, < 0 to stop with that
 * error (then the reader's error message is taken). */
typedef int (*etl_source_fn)(void *ctx, const char *display, struct etl_reader *r);

/* Runs fn over every ETL in `path`.  Returns 0 or the first error; the
 * error's message (naming the file and, for format errors, the byte offset)
 * is written to err. */
int etl_source_foreach(const char *path, etl_source_fn fn, void *ctx, char *err,
                       size_t errcap);

/* The same over bytes in memory (a whole ETL or zip), for tests and fuzzing. */
int etl_source_foreach_memory(const void *data, size_t len, const char *label,
                              etl_source_fn fn, void *ctx, char *err, size_t errcap);

#endif
