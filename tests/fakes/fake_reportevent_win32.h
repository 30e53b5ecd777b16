/* A model of advapi32's event-log writing calls (RegisterEventSourceW,
 * ReportEventW, DeregisterEventSource) for the Windows unit tests, as an
 * operator_log_api table: it keeps the entries a log would hold and checks
 * every call against the documented contract (rules and sources in
 * tests/fakes/README.md, "fake_reportevent").  A breach is counted as a
 * violation (tests assert none); a scripted error is returned. */
#ifndef ETWCAP_FAKE_REPORTEVENT_WIN32_H
#define ETWCAP_FAKE_REPORTEVENT_WIN32_H

#include "src/os/operator_log_win32.h"

#define FAKE_RE_ENTRIES_MAX 16

struct fake_re_entry {
  char source[64];     /* the source its handle was registered for, UTF-8 */
  WORD type, category;
  DWORD id;
  WORD string_count;
  char text[1024];     /* the first insertion string, UTF-8 */
};

struct fake_re {
  /* Scripted: the next RegisterEventSourceW / ReportEventW fails with this
   * last error (0: succeeds). */
  DWORD register_error, report_error;
  /* Seen. */
  int registered, deregistered, remote;
  unsigned violations;
  char last_violation[160];
  struct fake_re_entry entries[FAKE_RE_ENTRIES_MAX]; /* what the log holds */
  unsigned entry_count;
};

/* Resets the model (an empty log, no handle) and returns it; the table to
 * hand to operator_log_win32_set_api. */
struct fake_re *fake_re_reset(void);
extern const struct operator_log_api fake_re_api;

#endif
