/* operator_log.h with advapi32's event-log calls. */
#include "src/base/os/compat_win32.h"

#include "src/os/operator_log_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

static WORD type_of(enum operator_event id)
{
  switch (id) {
  case OPERATOR_TRIGGER_FIRED:
  case OPERATOR_HEALTH_PROBLEM:
    return EVENTLOG_WARNING_TYPE;
  default:
    return EVENTLOG_INFORMATION_TYPE;
  }
}

/* The last error as etwcap's, never 0: the call failed. */
static int last_error(void)
{
  int rc = win32_error(GetLastError(), ETWCAP_E_SYSTEM);
  return rc ? rc : ETWCAP_E_SYSTEM;
}

static const struct operator_log_api real_api = {
  RegisterEventSourceW,
  ReportEventW,
  DeregisterEventSource,
};

static const struct operator_log_api *api = &real_api;

void operator_log_win32_set_api(const struct operator_log_api *a)
{
  api = a ? a : &real_api;
}

int operator_log_write(enum operator_event id, const char *text)
{
  wchar_t *w = utf8_to_utf16(text);
  const wchar_t *strings[1];
  HANDLE source;
  int rc = 0;
  if (!w)
    return ETWCAP_E_NOMEM;
  source = api->register_event_source(NULL, L"etwcap");
  if (!source) {
    rc = last_error();
  } else {
    strings[0] = w;
    if (!api->report_event(source, type_of(id), 0, (DWORD)id, NULL, 1, 0, strings, NULL))
      rc = last_error();
    api->deregister_event_source(source);
  }
  etwcap_free(w);
  return rc;
}
