/* A `collect` as every capture of `etwcap selftest` runs it (the main one,
 * selftest_run.h, and each phase's, selftest_phases.h): under the
 * selftest's session names, with /ThreadTime and the CPU sampling interval
 * the checks judge the samples by; and the paths of its files in the
 * selftest's folder. */
#ifndef ETWCAP_SELFTEST_CAPTURE_H
#define ETWCAP_SELFTEST_CAPTURE_H

#include "src/capture/collection_env.h"

#include <stddef.h>

/* The CPU sampling interval the capture sets (/CpuSampleMSec), which
 * SAMPLE_RATE judges the samples by: 1 ms, PerfView's default. */
#define SELFTEST_SAMPLE_MSEC_TEXT "1"
#define SELFTEST_SAMPLE_INTERVAL_100NS 10000u

/* A `collect` under the selftest's session names: `prefix` as
 * /SessionName, the data file, /ThreadTime /CpuSampleMSec:1, then the
 * `count` qualifiers of `extra`.  The capture's result. */
int selftest_collect(const struct collection_env *env, const char *prefix, const char *data,
                     const char *const *extra, size_t count);

/* dir + name ("" or NULL dir: name alone), with one separator. */
void selftest_join_path(char *out, size_t size, const char *dir, const char *name);

#endif
