/* /OSHeapExe's switch in the registry: the TracingFlags value of the
 * program's Image File Execution Options key, which makes Windows trace
 * the heap of every new process of that name (PerfView's
 * SetImageTracingFlags), set for the capture and put back after it, so no
 * program is left traced.  What was there before is remembered, to restore
 * it and to leave alone a value etwcap did not set.  Through the registry
 * seam (registry.h); the state travels in the session record so that
 * `stop` and `abort` in another process can put it back.
 *
 * Lifetime: a plain struct, no allocation. */
#ifndef ETWCAP_HEAP_TRACING_FLAG_H
#define ETWCAP_HEAP_TRACING_FLAG_H

#include "etw/plan/plan.h"
#include "src/base/os/registry.h"

#include <stddef.h>
#include <stdint.h>

#define HEAP_TRACING_FLAG_VALUE "TracingFlags"
#define HEAP_TRACING_FLAG_ON 1u /* PerfView's value */

/* What etwcap changed: `exe` is "" when it changed nothing (no /OSHeapExe,
 * or the value was already 1). */
struct heap_tracing_flag {
  char exe[PLAN_HEAP_EXE_MAX];
  int had_value;          /* TracingFlags existed before: restore `prior` */
  uint32_t prior;
  int created_key;        /* the program's IFEO key did not exist before */
};

/* Sets TracingFlags to 1 for `exe` (a file name, "notepad.exe"), filling
 * *f first: the caller saves *f where a later `stop` or `abort` finds it.
 * Leaves a value that is already 1 as it is (f->exe then ""), and refuses
 * (ETWCAP_E_SYSTEM) to replace one that is no REG_DWORD.  Errors of the
 * registry (ETWCAP_E_ACCES when not elevated) are returned; `why` says
 * what failed. */
int heap_tracing_flag_set(const struct registry *reg, const char *exe, struct heap_tracing_flag *f,
                          char *why, size_t why_size);

/* Puts back what heap_tracing_flag_set changed: the earlier value, or no
 * value (and no key, when etwcap created it).  A value someone changed
 * since (no longer 1) is left alone and logged.  Then f->exe is "".  0, or
 * the registry's error with `why`. */
int heap_tracing_flag_clear(const struct registry *reg, struct heap_tracing_flag *f, char *why,
                            size_t why_size);

/* HKLM's path of exe's IFEO key ("SOFTWARE\\...\\notepad.exe"); 0 or
 * ETWCAP_E_RANGE. */
int heap_tracing_flag_key(const char *exe, char *out, size_t size);

#endif
