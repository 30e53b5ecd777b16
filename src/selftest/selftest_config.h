/* What every part of `etwcap selftest` is given: its surroundings (the
 * capture's and the workload's collection_env, the selftest_os), this
 * process's pid, the folder its files go to and where its verdict lines
 * are printed.  The driver (selftest_run.h) fills it; the phases
 * (selftest_phases.h) read it.  Portable, so tests fill it with fakes. */
#ifndef ETWCAP_SELFTEST_CONFIG_H
#define ETWCAP_SELFTEST_CONFIG_H

#include "src/capture/collection_env.h"
#include "src/selftest/selftest_os.h"

#include <stdio.h>

struct selftest_config {
  const struct collection_env *env;      /* the capture's controller and clock */
  const struct collection_env *work_env; /* the workload's (its own controller) */
  const struct selftest_os *os;
  unsigned long pid;                     /* this process */
  const char *dir;                       /* where the files go ("" = current folder) */
  FILE *out;                             /* the verdict lines */
};

#endif
