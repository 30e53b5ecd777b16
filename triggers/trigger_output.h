/* Pure naming helpers for what happens after a trigger: the file names of
 * /CollectMultiple captures (PerfView: NAME.1.etl.zip, NAME.2.etl.zip ...)
 * and the /StopCommand line with %OUTPUTDIR% and %OUTPUTBASENAME%
 * substituted (running it is the Windows collection's job). */
#ifndef ETWCAP_TRIGGER_OUTPUT_H
#define ETWCAP_TRIGGER_OUTPUT_H

#include <stddef.h>

/* The name of capture `index` (1-based) of data_file ("X.etl", "X.etl.zip"
 * or "X"): "X.<index>.etl" plus ".zip" when zip.  index 0 gives the plain
 * name.  When `exists` is given, indexes whose name exists are skipped (as
 * PerfView's GetNewFile does) and *used gets the index taken.  Returns 0,
 * or ETWCAP_E_RANGE when the name does not fit in cap. */
int trigger_collect_name(const char *data_file, unsigned index, int zip,
                         int (*exists)(void *ctx, const char *path), void *ctx, char *out,
                         size_t cap, unsigned *used);

/* Substitutes %OUTPUTDIR% (the directory of output, without a trailing
 * separator; "." when none) and %OUTPUTBASENAME% (its file name without
 * ".etl.zip", ".etl" or ".zip"), ASCII case-insensitively.  0 or
 * ETWCAP_E_RANGE. */
int trigger_stop_command(const char *command, const char *output, char *out, size_t cap);

#endif
