/* eventlog.h with wevtapi: EvtSubscribe to future events of one log with a
 * push callback (Windows calls it on a thread of its own), each event
 * rendered as XML for its id, level, time and provider, and its message
 * formatted by the publisher's message table (EvtFormatMessage), or the
 * EventData texts when there is none.  wevtapi.dll is loaded at run time. */
#include "triggers/os/eventlog_win32.h"

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct eventlog_api *test_api;

void eventlog_win32_set_api(const struct eventlog_api *api)
{
  test_api = api;
}

struct sub {
  HMODULE dll;
  struct eventlog_api api;
  EVT_HANDLE handle;
  eventlog_fn fn;
  void *fn_ctx;
  char log[128];
};

#define PROC(name) ((void (*)(void))GetProcAddress(s->dll, name))

static int load(struct sub *s, char *err, size_t cap)
{
  if (test_api) {
    s->api = *test_api;
    return 0;
  }
  if (!(s->dll = LoadLibraryW(L"wevtapi.dll"))) {
    snprintf(err, cap, "cannot load wevtapi.dll (LoadLibraryW: %lu)",
             (unsigned long)GetLastError());
    return ETWCAP_E_UNSUPPORTED;
  }
  s->api.subscribe = (EVT_HANDLE(WINAPI *)(EVT_HANDLE, HANDLE, LPCWSTR, LPCWSTR, EVT_HANDLE,
                                           PVOID, EVT_SUBSCRIBE_CALLBACK, DWORD))PROC("EvtSubscribe");
  s->api.render =
    (WINBOOL(WINAPI *)(EVT_HANDLE, EVT_HANDLE, DWORD, DWORD, PVOID, PDWORD, PDWORD))PROC("EvtRender");
  s->api.open_publisher = (EVT_HANDLE(WINAPI *)(EVT_HANDLE, LPCWSTR, LPCWSTR, LCID, DWORD))PROC(
    "EvtOpenPublisherMetadata");
  s->api.format_message = (WINBOOL(WINAPI *)(EVT_HANDLE, EVT_HANDLE, DWORD, DWORD, PEVT_VARIANT,
                                             DWORD, DWORD, LPWSTR, PDWORD))PROC("EvtFormatMessage");
  s->api.close = (WINBOOL(WINAPI *)(EVT_HANDLE))PROC("EvtClose");
  if (!s->api.subscribe || !s->api.render || !s->api.open_publisher || !s->api.format_message ||
      !s->api.close) {
    snprintf(err, cap, "wevtapi.dll lacks EvtSubscribe or its companions");
    FreeLibrary(s->dll);
    s->dll = NULL;
    return ETWCAP_E_UNSUPPORTED;
  }
  return 0;
}

/* The text of the first <tag ...>TEXT</tag> after p, or of attribute
 * `attr` of <tag>, into out. */
static int xml_text(const char *xml, const char *tag, const char *attr, char *out, size_t cap)
{
  char open[64];
  const char *p, *q, *end;
  size_t n;
  snprintf(open, sizeof(open), "<%s", tag);
  for (p = strstr(xml, open); p; p = strstr(p + 1, open)) {
    char c = p[strlen(open)];
    if (c == ' ' || c == '>' || c == '/')
      break;
  }
  if (!p || !(end = strchr(p, '>')))
    return 0;
  if (attr) {
    char a[64];
    snprintf(a, sizeof(a), " %s=", attr);
    q = strstr(p, a);
    if (!q || q > end)
      return 0;
    q += strlen(a);
    if (*q != '\'' && *q != '"')
      return 0;
    p = q + 1;
    end = strchr(p, *q);
  } else {
    if (end[-1] == '/')
      return 0;
    p = end + 1;
    end = strchr(p, '<');
  }
  if (!end)
    return 0;
  n = (size_t)(end - p) < cap - 1 ? (size_t)(end - p) : cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return 1;
}

static int64_t iso_filetime(const char *s)
{
  SYSTEMTIME st;
  FILETIME ft;
  unsigned y, mo, d, h, mi;
  double sec;
  if (sscanf(s, "%u-%u-%uT%u:%u:%lf", &y, &mo, &d, &h, &mi, &sec) != 6)
    return 0;
  memset(&st, 0, sizeof(st));
  st.wYear = (WORD)y;
  st.wMonth = (WORD)mo;
  st.wDay = (WORD)d;
  st.wHour = (WORD)h;
  st.wMinute = (WORD)mi;
  st.wSecond = (WORD)sec;
  if (!SystemTimeToFileTime(&st, &ft))
    return 0;
  return (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) +
         (int64_t)((sec - (double)(unsigned)sec) * 1e7);
}

void eventlog_win32_parse_xml(const char *xml, struct eventlog_xml *out)
{
  char v[128];
  const char *p;
  size_t n = 0;
  memset(out, 0, sizeof(*out));
  out->type = "Information";
  if (xml_text(xml, "EventID", NULL, v, sizeof(v)))
    out->event_id = (uint32_t)strtoul(v, NULL, 10);
  if (xml_text(xml, "Level", NULL, v, sizeof(v))) {
    /* EventLogEntryType as .NET maps levels: critical and error are Error. */
    unsigned level = (unsigned)strtoul(v, NULL, 10);
    out->type = level == 1 || level == 2 ? "Error" : level == 3 ? "Warning" : "Information";
  }
  if (xml_text(xml, "TimeCreated", "SystemTime", v, sizeof(v)))
    out->ft = iso_filetime(v);
  xml_text(xml, "Provider", "Name", out->provider, sizeof(out->provider));
  for (p = strstr(xml, "<Data"); p; p = strstr(p + 1, "<Data")) {
    const char *b = strchr(p, '>'), *e;
    if (!b || b[-1] == '/' || !(e = strstr(b, "</Data>")))
      continue;
    if (n && n + 1 < sizeof(out->data))
      out->data[n++] = ' ';
    while (++b < e && n + 1 < sizeof(out->data))
      out->data[n++] = *b;
  }
  out->data[n] = '\0';
}

static char *render_xml(struct sub *s, EVT_HANDLE event)
{
  DWORD used = 0, props = 0;
  wchar_t *w;
  char *xml;
  s->api.render(NULL, event, EvtRenderEventXml, 0, NULL, &used, &props);
  if (!used || !(w = etwcap_malloc(used + sizeof(wchar_t))))
    return NULL;
  if (!s->api.render(NULL, event, EvtRenderEventXml, used, w, &used, &props)) {
    etwcap_free(w);
    return NULL;
  }
  w[used / sizeof(wchar_t)] = 0;
  xml = utf16_to_utf8(w);
  etwcap_free(w);
  return xml;
}

static char *format_message(struct sub *s, EVT_HANDLE event, const char *provider)
{
  wchar_t *wprov = provider[0] ? utf8_to_utf16(provider) : NULL, *buf = NULL;
  EVT_HANDLE pub = wprov ? s->api.open_publisher(NULL, wprov, NULL, 0, 0) : NULL;
  DWORD used = 0;
  char *text = NULL;
  etwcap_free(wprov);
  if (!pub)
    return NULL;
  s->api.format_message(pub, event, 0, 0, NULL, EvtFormatMessageEvent, 0, NULL, &used);
  if (used && (buf = etwcap_malloc((used + 1) * sizeof(wchar_t))) != NULL &&
      s->api.format_message(pub, event, 0, 0, NULL, EvtFormatMessageEvent, used, buf, &used)) {
    buf[used] = 0;
    text = utf16_to_utf8(buf);
  }
  etwcap_free(buf);
  s->api.close(pub);
  return text;
}

static DWORD WINAPI on_event(EVT_SUBSCRIBE_NOTIFY_ACTION action, PVOID ctx, EVT_HANDLE event)
{
  struct sub *s = ctx;
  struct eventlog_xml x;
  struct trigger_message m;
  char *xml, *text;
  FILETIME now;
  if (action != EvtSubscribeActionDeliver)
    return 0;
  if (!(xml = render_xml(s, event)))
    return 0;
  eventlog_win32_parse_xml(xml, &x);
  text = format_message(s, event, x.provider);
  GetSystemTimeAsFileTime(&now);
  m.ft = x.ft ? x.ft : (int64_t)(((uint64_t)now.dwHighDateTime << 32) | now.dwLowDateTime);
  m.log = s->log;
  m.type = x.type;
  m.event_id = x.event_id;
  m.message = text ? text : x.data;
  s->fn(s->fn_ctx, &m);
  etwcap_free(text);
  etwcap_free(xml);
  return 0;
}

static int evt_open(void *ctx, const char *log, eventlog_fn fn, void *fn_ctx, void **handle,
                    char *err, size_t cap)
{
  struct sub *s = etwcap_calloc(1, sizeof(*s));
  wchar_t *wlog;
  int rc;
  (void)ctx;
  *handle = NULL;
  if (!s)
    return ETWCAP_E_NOMEM;
  if ((rc = load(s, err, cap)) != 0) {
    etwcap_free(s);
    return rc;
  }
  s->fn = fn;
  s->fn_ctx = fn_ctx;
  snprintf(s->log, sizeof(s->log), "%s", log);
  if (!(wlog = utf8_to_utf16(log))) {
    rc = ETWCAP_E_NOMEM;
  } else {
    s->handle = s->api.subscribe(NULL, NULL, wlog, L"*", NULL, s, on_event,
                                 EvtSubscribeToFutureEvents);
    etwcap_free(wlog);
    if (!s->handle) {
      DWORD code = GetLastError();
      snprintf(err, cap, "cannot subscribe to the '%s' event log (EvtSubscribe: %lu)%s", log,
               (unsigned long)code,
               code == ERROR_EVT_CHANNEL_NOT_FOUND ? ": no log of that name" : "");
      rc = code == ERROR_EVT_CHANNEL_NOT_FOUND ? ETWCAP_E_NOENT
                                               : win32_error(code, ETWCAP_E_SYSTEM);
    }
  }
  if (rc) {
    if (s->dll)
      FreeLibrary(s->dll);
    etwcap_free(s);
    return rc;
  }
  *handle = s;
  return 0;
}

static void evt_close(void *ctx, void *handle)
{
  struct sub *s = handle;
  (void)ctx;
  if (!s)
    return;
  /* EvtClose waits for a callback in progress: none runs after it. */
  s->api.close(s->handle);
  if (s->dll)
    FreeLibrary(s->dll);
  etwcap_free(s);
}

struct eventlog_source eventlog_system(void)
{
  struct eventlog_source src = { NULL, evt_open, evt_close };
  return src;
}
