/* The wevtapi.dll entry points eventlog_win32.c calls, as a table (loaded
 * at run time: wevtapi is not on every Windows, and Wine's EvtSubscribe is
 * a stub).  The Windows tests put a scripted event log here.  Only
 * *_win32.c files include this. */
#ifndef ETWCAP_EVENTLOG_WIN32_H
#define ETWCAP_EVENTLOG_WIN32_H

#include "src/base/os/compat_win32.h"

#include <winevt.h>

#include "triggers/os/eventlog.h"

struct eventlog_api {
  EVT_HANDLE(WINAPI *subscribe)(EVT_HANDLE session, HANDLE signal, LPCWSTR channel,
                                LPCWSTR query, EVT_HANDLE bookmark, PVOID context,
                                EVT_SUBSCRIBE_CALLBACK callback, DWORD flags);
  WINBOOL(WINAPI *render)(EVT_HANDLE context, EVT_HANDLE fragment, DWORD flags, DWORD size,
                          PVOID buffer, PDWORD used, PDWORD property_count);
  EVT_HANDLE(WINAPI *open_publisher)(EVT_HANDLE session, LPCWSTR publisher, LPCWSTR log_path,
                                     LCID locale, DWORD flags);
  WINBOOL(WINAPI *format_message)(EVT_HANDLE publisher, EVT_HANDLE event, DWORD message_id,
                                  DWORD value_count, PEVT_VARIANT values, DWORD flags,
                                  DWORD size, LPWSTR buffer, PDWORD used);
  WINBOOL(WINAPI *close)(EVT_HANDLE handle);
};

/* Replaces wevtapi.dll for subscriptions opened from now on; NULL goes back
 * to loading it.  For tests only. */
void eventlog_win32_set_api(const struct eventlog_api *api);

/* The fields of an event's XML rendering (EvtRenderEventXml) the trigger
 * needs: EventID, Level as PerfView's entry type, TimeCreated, provider
 * name and the EventData texts (the message when the publisher has no
 * message table).  Pure; exposed for tests. */
struct eventlog_xml {
  uint32_t event_id;
  const char *type;      /* "Error", "Warning", "Information" (static) */
  int64_t ft;            /* 0 when absent */
  char provider[256];
  char data[2048];
};
void eventlog_win32_parse_xml(const char *xml, struct eventlog_xml *out);

#endif
