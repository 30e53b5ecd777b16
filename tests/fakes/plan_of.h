/* The plan a command line makes, as `collect` or `plan` builds it (the
 * trigger engine first, then plan_options_from_cli and plan_build) for the
 * fake environment's Windows (fake_env_os), for the tests that check
 * sessions, names and counts. */
#ifndef ETWCAP_PLAN_OF_H
#define ETWCAP_PLAN_OF_H

#include "etw/plan/plan.h"

/* args: the words after "etwcap" (NULL-terminated), after `first` when it
 * is not NULL ("plan", so that plan's own qualifiers parse).  The command
 * line must parse; returns plan_build's code, *plan to plan_release. */
int test_plan_of(const char *first, const char *const *args, struct plan *plan);

#endif
