/* libFuzzer target: the input is a whole .etl or .etl.zip in memory, read
 * back as `etwcap selftest` reads its own capture: every event scanned for
 * the checks' facts (process ids, image names, stack timestamps,
 * TraceLogging schemas), then every check judged.  Any crash, leak or
 * sanitizer report is a bug in the selftest's reading of a trace. */
#include "src/selftest/selftest_checks.h"
#include "src/selftest/selftest_tl.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct selftest_facts facts;
  struct selftest_result results[32];
  struct selftest_outcome outcome;
  struct selftest_expect x;
  struct selftest_census census;
  memset(&x, 0, sizeof(x));
  /* Ids that make every pid- and thread-keyed reader run (a DCStart's
   * process, a sample's thread, a CLR event's process), whatever matches. */
  x.self_pid = 4;
  x.busy_tid = 8;
  x.dotnet_pid = 12;
  x.dll_name = "version.dll";
  selftest_tl_provider_guid(&x.own_provider);
  x.own_events = SELFTEST_TL_STEPS + 1;
  x.own_last_name = SELFTEST_TL_STOP;
  memset(&outcome, 0, sizeof(outcome));
  selftest_facts_init(&facts, &x);
  selftest_scan_memory(&facts, data, size);
  if (selftest_check_count <= sizeof(results) / sizeof(results[0]))
    selftest_judge_all(&facts, &outcome, results);
  selftest_census_of(&facts, &census);
  selftest_facts_release(&facts);
  return 0;
}
