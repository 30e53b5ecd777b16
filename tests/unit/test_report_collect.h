/* The report model of one of the shared samples, for the report's unit
 * tests (test_report_gc.c, test_report_model.c): fails the test, printing
 * why, when the sample does not read. */
#ifndef ETWCAP_TEST_REPORT_COLLECT_H
#define ETWCAP_TEST_REPORT_COLLECT_H

#include "src/report/report_model.h"
#include "tests/fakes/test_support.h"

static inline void collect(const char *sample, struct report *r)
{
  char path[1024], err[1024];
  int rc;
  test_sample_path(sample, path, sizeof(path));
  rc = report_collect(r, path, err, sizeof(err));
  if (rc)
    print_error("%s\n", err);
  assert_int_equal(rc, 0);
}

#endif
