/* The event-log entry points of advapi32 the /EventLog writer calls
 * (operator_log_win32.c), as a table: the product uses advapi32's own; the
 * Windows unit test puts the model of tests/fakes/fake_reportevent_win32.c
 * in their place, since Wine keeps no Application log to read back.  Only
 * *_win32.c files include this header. */
#ifndef ETWCAP_OPERATOR_LOG_WIN32_H
#define ETWCAP_OPERATOR_LOG_WIN32_H

#include "src/base/os/compat_win32.h"

#include "src/os/operator_log.h"

struct operator_log_api {
  HANDLE(WINAPI *register_event_source)(LPCWSTR server, LPCWSTR source);
  BOOL(WINAPI *report_event)(HANDLE log, WORD type, WORD category, DWORD id, PSID user,
                             WORD string_count, DWORD data_size, LPCWSTR *strings, LPVOID data);
  BOOL(WINAPI *deregister_event_source)(HANDLE log);
};

/* Replaces the table for the entries written from now on; NULL puts
 * advapi32's back.  For tests: the product never calls it. */
void operator_log_win32_set_api(const struct operator_log_api *api);

#endif
