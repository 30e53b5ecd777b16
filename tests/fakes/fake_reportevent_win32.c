/* The model of advapi32's event-log writing calls (see
 * fake_reportevent_win32.h).  Each rule names its source; the table in
 * tests/fakes/README.md lists them. */
#include "tests/fakes/fake_reportevent_win32.h"

#include "src/base/alloc.h"
#include "src/base/os/utf16_win32.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define FAKE_HANDLE ((HANDLE)(uintptr_t)0x5eed0002u)
/* ReportEventW, lpStrings: "Each string is limited to 31,839 characters." */
#define FAKE_RE_STRING_MAX 31839

static struct fake_re re;
static char source_of_handle[64];

struct fake_re *fake_re_reset(void)
{
  memset(&re, 0, sizeof(re));
  source_of_handle[0] = '\0';
  return &re;
}

static void violation(const char *what)
{
  re.violations++;
  snprintf(re.last_violation, sizeof(re.last_violation), "%s", what);
}

static void to_utf8(const wchar_t *w, char *out, size_t size)
{
  char *s = utf16_to_utf8(w);
  snprintf(out, size, "%s", s ? s : "");
  etwcap_free(s);
}

static int open_handle(HANDLE h)
{
  return h == FAKE_HANDLE && re.registered > re.deregistered;
}

/* RegisterEventSourceW: lpUNCServerName NULL is the local computer;
 * lpSourceName names the source (a source no log lists is written to the
 * Application log); the handle, or NULL with the last error. */
static HANDLE WINAPI fake_register(LPCWSTR server, LPCWSTR source)
{
  if (!source || !source[0]) {
    violation("RegisterEventSourceW without a source name");
    SetLastError(ERROR_INVALID_PARAMETER);
    return NULL;
  }
  if (server)
    re.remote = 1;
  if (re.register_error) {
    SetLastError(re.register_error);
    return NULL;
  }
  to_utf8(source, source_of_handle, sizeof(source_of_handle));
  re.registered++;
  return FAKE_HANDLE;
}

/* ReportEventW: a handle RegisterEventSource returned; wType one of the six
 * EVENTLOG_* types; wNumStrings strings in lpStrings, each at most 31,839
 * characters; dwDataSize bytes at lpRawData (none when 0).  Nonzero, or 0
 * with the last error. */
static BOOL WINAPI fake_report(HANDLE h, WORD type, WORD category, DWORD id, PSID user,
                               WORD string_count, DWORD data_size, LPCWSTR *strings,
                               LPVOID data)
{
  struct fake_re_entry *e;
  WORD i;
  (void)user;
  if (!open_handle(h)) {
    violation("ReportEventW on a handle RegisterEventSourceW did not return");
    SetLastError(ERROR_INVALID_HANDLE);
    return FALSE;
  }
  if (type != EVENTLOG_SUCCESS && type != EVENTLOG_AUDIT_FAILURE &&
      type != EVENTLOG_AUDIT_SUCCESS && type != EVENTLOG_ERROR_TYPE &&
      type != EVENTLOG_INFORMATION_TYPE && type != EVENTLOG_WARNING_TYPE)
    violation("ReportEventW with a type that is no EVENTLOG_* type");
  if (string_count && !strings)
    violation("ReportEventW with wNumStrings but no lpStrings");
  for (i = 0; strings && i < string_count; i++)
    if (!strings[i] || wcslen(strings[i]) > FAKE_RE_STRING_MAX)
      violation("ReportEventW with a missing string or one over 31,839 characters");
  if (data_size && !data)
    violation("ReportEventW with dwDataSize but no lpRawData");
  if (re.report_error) {
    SetLastError(re.report_error);
    return FALSE;
  }
  if (re.entry_count == FAKE_RE_ENTRIES_MAX) {
    violation("more entries than the model keeps");
    return TRUE;
  }
  e = &re.entries[re.entry_count++];
  memset(e, 0, sizeof(*e));
  snprintf(e->source, sizeof(e->source), "%s", source_of_handle);
  e->type = type;
  e->category = category;
  e->id = id;
  e->string_count = string_count;
  if (string_count && strings && strings[0])
    to_utf8(strings[0], e->text, sizeof(e->text));
  return TRUE;
}

/* DeregisterEventSource: a handle RegisterEventSource returned, closed
 * once. */
static BOOL WINAPI fake_deregister(HANDLE h)
{
  if (!open_handle(h)) {
    violation("DeregisterEventSource on a handle that is not open");
    SetLastError(ERROR_INVALID_HANDLE);
    return FALSE;
  }
  re.deregistered++;
  return TRUE;
}

const struct operator_log_api fake_re_api = {
  fake_register,
  fake_report,
  fake_deregister,
};
