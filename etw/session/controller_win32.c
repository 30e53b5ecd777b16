/* controller.h with advapi32: each operation builds the Win32 structure for
 * one piece of the plan and makes one call through the controller_advapi
 * table (controller_win32.h), then translates the result.  Nothing here
 * decides what to ask: the plan did.  The optional queries
 * (TraceQueryInformation, for the group mask read-back and the profile
 * sources; EnumerateTraceGuidsEx, for the EventSource keywords in use) are
 * resolved at run time and called through optional_call: Wine 8 has them
 * only as stubs that raise (docs/win32-contract.md §7.7-§7.8). */
#include "etw/session/controller_win32.h"

#include "etw/event/guid_win32.h"
#include "src/base/os/optional_call_win32.h"

#include <bcrypt.h>

#include "src/base/alloc.h"
#include "src/base/error.h"
#include "src/base/log.h"
#include "src/base/os/os_file.h"
#include "src/base/os/utf16_win32.h"
#include "src/base/os/win32_error_win32.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* SystemTraceControlGuid (evntrace.h): mingw declares it with DEFINE_GUID,
 * which needs initguid.h in one unit; a private copy is simpler. */
static const GUID system_trace_control_guid = {
  0x9e814aad, 0x3204, 0x11d2, { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 }
};

static ULONG real_enable_privilege(LPCWSTR privilege)
{
  HANDLE token;
  TOKEN_PRIVILEGES tp;
  ULONG rc = 0;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token))
    return GetLastError();
  memset(&tp, 0, sizeof(tp));
  tp.PrivilegeCount = 1;
  tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
  if (!LookupPrivilegeValueW(NULL, privilege, &tp.Privileges[0].Luid))
    rc = GetLastError();
  /* AdjustTokenPrivileges succeeds even when the token lacks the privilege;
   * GetLastError then says ERROR_NOT_ALL_ASSIGNED. */
  else if (!AdjustTokenPrivileges(token, FALSE, &tp, sizeof(tp), NULL, NULL) ||
           GetLastError() != ERROR_SUCCESS)
    rc = GetLastError();
  CloseHandle(token);
  return rc;
}

typedef ULONG(WINAPI *trace_query_information_fn)(TRACEHANDLE, TRACE_INFO_CLASS, PVOID, ULONG,
                                                  PULONG);

typedef ULONG(WINAPI *enumerate_trace_guids_ex_fn)(TRACE_QUERY_INFO_CLASS, PVOID, ULONG, PVOID,
                                                   ULONG, PULONG);

static struct controller_advapi real_advapi = {
  StartTraceW, ControlTraceW, EnableTraceEx2, TraceSetInformation, QueryAllTracesW, NULL, NULL,
  real_enable_privilege,
};

static const struct controller_advapi *advapi = &real_advapi;

/* TraceQueryInformation is Windows 8+; a static import would keep etwcap
 * from loading on Windows 7. */
static void resolve_optional(void)
{
  static int resolved;
  HMODULE m;
  if (resolved)
    return;
  resolved = 1;
  if ((m = GetModuleHandleW(L"advapi32.dll")) != NULL) {
    real_advapi.trace_query_information =
        (trace_query_information_fn)(void (*)(void))GetProcAddress(m, "TraceQueryInformation");
    real_advapi.enumerate_trace_guids_ex =
        (enumerate_trace_guids_ex_fn)(void (*)(void))GetProcAddress(m, "EnumerateTraceGuidsEx");
  }
}

void controller_win32_set_advapi(const struct controller_advapi *api)
{
  advapi = api ? api : &real_advapi;
}

/* Translates a failed call's code, keeping it for the log line.  Two codes
 * mean more from the session calls than they do elsewhere (StartTraceW's
 * documentation): ERROR_ALREADY_EXISTS is a session of that name already
 * running, ERROR_NO_SYSTEM_RESOURCES the limit on sessions. */
static int win32_fail(struct controller *c, const char *api, ULONG code)
{
  int rc = code == ERROR_ALREADY_EXISTS       ? ETWCAP_E_SESSION_EXISTS
           : code == ERROR_NO_SYSTEM_RESOURCES ? ETWCAP_E_SESSION_LIMIT
                                                : win32_error(code, ETWCAP_E_SYSTEM);
  if (rc == 0)
    rc = ETWCAP_E_INTERNAL;
  return controller_fail(c, rc, api, code, win32_error_name(code));
}

/* UTF-8 into a fixed WCHAR field; ETWCAP_E_RANGE when it does not fit. */
static int copy_name(WCHAR *dst, size_t chars, const char *utf8)
{
  wchar_t *w = utf8_to_utf16(utf8);
  size_t n;
  if (!w)
    return ETWCAP_E_USAGE; /* not valid UTF-8 */
  n = wcslen(w);
  if (n >= chars) {
    etwcap_free(w);
    return ETWCAP_E_RANGE;
  }
  memcpy(dst, w, (n + 1) * sizeof(WCHAR));
  etwcap_free(w);
  return 0;
}

/* The file name as ETW should keep it: absolute, so `stop` and the QUERY
 * name the same file whatever the current folder of the process that asks. */
static int copy_full_path(WCHAR *dst, size_t chars, const char *utf8)
{
  wchar_t *w = utf8_to_utf16(utf8);
  DWORD n;
  if (!w)
    return ETWCAP_E_USAGE;
  n = GetFullPathNameW(w, (DWORD)chars, dst, NULL);
  etwcap_free(w);
  if (n == 0)
    return ETWCAP_E_NOENT;
  if (n >= chars)
    return ETWCAP_E_RANGE;
  return 0;
}

static WCHAR *logger_name_field(EVENT_TRACE_PROPERTIES *p)
{
  return (WCHAR *)((BYTE *)p + sizeof(EVENT_TRACE_PROPERTIES));
}

static WCHAR *file_name_field(EVENT_TRACE_PROPERTIES *p)
{
  return logger_name_field(p) + CONTROLLER_WIN32_NAME_CHARS;
}

/* A zeroed property block with the size and both name offsets set, as
 * StartTraceW, ControlTraceW and QueryAllTracesW require; `extra` bytes
 * follow the names (a heap session's extension block). */
static EVENT_TRACE_PROPERTIES *new_props_with(size_t extra)
{
  EVENT_TRACE_PROPERTIES *p = etwcap_calloc(1, CONTROLLER_WIN32_PROPS_SIZE + extra);
  if (!p)
    return NULL;
  p->Wnode.BufferSize = (ULONG)(CONTROLLER_WIN32_PROPS_SIZE + extra);
  p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
  p->LoggerNameOffset = (ULONG)sizeof(EVENT_TRACE_PROPERTIES);
  p->LogFileNameOffset = (ULONG)(sizeof(EVENT_TRACE_PROPERTIES) +
                                 CONTROLLER_WIN32_NAME_CHARS * sizeof(WCHAR));
  return p;
}

static EVENT_TRACE_PROPERTIES *new_props(void)
{
  return new_props_with(0);
}

/* A heap session (PLAN_ROLE_HEAP) as TraceEvent's StartWindowsHeapSession
 * makes it: Wnode.Guid the heap provider's, and EnableFlags
 * EVENT_TRACE_FLAG_EXTENSION | 0x00FF0000 | the offset of the extension
 * block (the process, the stacked heap events) that follows the names. */
static void heap_props(EVENT_TRACE_PROPERTIES *p, const uint32_t *ext, size_t words)
{
  p->Wnode.Guid = guid_to_win32(&plan_heap_provider_guid);
  memcpy((BYTE *)p + CONTROLLER_WIN32_PROPS_SIZE, ext, words * sizeof(uint32_t));
  p->EnableFlags = PLAN_ENABLE_FLAGS_EXTENSION | (ULONG)CONTROLLER_WIN32_PROPS_SIZE;
}

static void utf8_of(const WCHAR *w, size_t max_chars, char *out, size_t size)
{
  WCHAR tmp[CONTROLLER_WIN32_NAME_CHARS];
  size_t n = 0;
  char *u;
  while (n < max_chars && n + 1 < CONTROLLER_WIN32_NAME_CHARS && w[n])
    n++;
  memcpy(tmp, w, n * sizeof(WCHAR));
  tmp[n] = 0;
  u = utf16_to_utf8(tmp);
  snprintf(out, size, "%s", u ? u : "");
  etwcap_free(u);
}

/* Reads a block ETW filled in.  Names are read only when their offset
 * lies inside the block. */
static void status_of(const EVENT_TRACE_PROPERTIES *p, struct controller_status *out)
{
  size_t size = p->Wnode.BufferSize;
  memset(out, 0, sizeof(*out));
  if (p->LoggerNameOffset >= sizeof(*p) && p->LoggerNameOffset + sizeof(WCHAR) <= size)
    utf8_of((const WCHAR *)((const BYTE *)p + p->LoggerNameOffset),
            (size - p->LoggerNameOffset) / sizeof(WCHAR), out->name, sizeof(out->name));
  if (p->LogFileNameOffset >= sizeof(*p) && p->LogFileNameOffset + sizeof(WCHAR) <= size)
    utf8_of((const WCHAR *)((const BYTE *)p + p->LogFileNameOffset),
            (size - p->LogFileNameOffset) / sizeof(WCHAR), out->file, sizeof(out->file));
  out->log_file_mode = p->LogFileMode;
  out->buffer_size_kb = p->BufferSize;
  out->minimum_buffers = p->MinimumBuffers;
  out->maximum_buffers = p->MaximumBuffers;
  out->maximum_file_size_mb = p->MaximumFileSize;
  out->flush_timer_sec = p->FlushTimer;
  out->enable_flags = p->EnableFlags;
  out->clock_type = p->Wnode.ClientContext;
  out->buffers = p->NumberOfBuffers;
  out->free_buffers = p->FreeBuffers;
  out->buffers_written = p->BuffersWritten;
  out->events_lost = p->EventsLost;
  out->log_buffers_lost = p->LogBuffersLost;
  out->realtime_buffers_lost = p->RealTimeBuffersLost;
  /* ETW does not report the file's size; the file system does. */
  out->file_bytes = -1;
  if (out->file[0] && os_file_size(out->file, &out->file_bytes) != 0)
    out->file_bytes = -1;
}

/* A private system logger's Wnode.Guid: "You must assign a new GUID to this
 * member" (Microsoft, "Configuring and Starting a SystemTraceProvider
 * Session"), as krabsetw does.  A random (version 4) GUID. */
/* A fresh RFC 4122 version 4 GUID.  Returns BCryptGenRandom's NTSTATUS
 * (0 on success): it reports its failure there, not in GetLastError. */
static NTSTATUS new_session_guid(GUID *g)
{
  unsigned char b[16];
  NTSTATUS status = BCryptGenRandom(NULL, b, sizeof(b), BCRYPT_USE_SYSTEM_PREFERRED_RNG);
  if (!BCRYPT_SUCCESS(status))
    return status;
  b[7] = (unsigned char)((b[7] & 0x0F) | 0x40); /* version 4 (Data3's high byte) */
  b[8] = (unsigned char)((b[8] & 0x3F) | 0x80); /* RFC 4122 variant */
  memcpy(g, b, sizeof(*g));
  return 0;
}

/* The properties every block built from a plan session carries (start and
 * PerfView's flush): buffers, timer, clock, flags. */
static void session_props(EVENT_TRACE_PROPERTIES *p, const struct plan_session *s)
{
  p->Wnode.Flags = s->wnode_flags;
  p->Wnode.ClientContext = s->clock_type;
  p->BufferSize = s->buffer_size_kb;
  p->MinimumBuffers = s->minimum_buffers;
  p->MaximumBuffers = s->maximum_buffers;
  p->MaximumFileSize = s->maximum_file_size_mb;
  p->LogFileMode = s->log_file_mode;
  p->FlushTimer = s->flush_timer_sec;
}

static int start(struct controller *c, const struct plan_session *s, uint64_t *handle,
                 char *file, size_t file_size)
{
  /* PLAN_HEAP_MAX_HOOKS keeps the block within PLAN_HEAP_EXTENSION_MAX_WORDS. */
  uint32_t ext[PLAN_HEAP_EXTENSION_MAX_WORDS];
  size_t ext_words =
      s->role == PLAN_ROLE_HEAP ? plan_heap_extension(s, ext, PLAN_HEAP_EXTENSION_MAX_WORDS) : 0;
  EVENT_TRACE_PROPERTIES *p = new_props_with(ext_words * sizeof(uint32_t));
  TRACEHANDLE h = 0;
  NTSTATUS status;
  char status_text[48];
  ULONG code;
  int rc;

  *handle = 0;
  if (file && file_size)
    file[0] = '\0';
  if (!p)
    return ETWCAP_E_NOMEM;
  rc = copy_name(logger_name_field(p), CONTROLLER_WIN32_NAME_CHARS, s->name);
  if (!rc && s->file)
    rc = copy_full_path(file_name_field(p), CONTROLLER_WIN32_NAME_CHARS, s->file);
  if (rc) {
    etwcap_free(p);
    return controller_fail(c, rc, "StartTraceW", 0, "name or path does not fit");
  }
  if (!s->file)
    p->LogFileNameOffset = 0;
  session_props(p, s);
  /* EnableFlags at start: the NT Kernel Logger's only way, and the
   * GROUP_MASK route's first step (krabsetw, tracelog -eflag); 0 on the
   * System Providers route (plan_kernel_route). */
  p->EnableFlags = s->enable_flags_at_start;
  if (s->role == PLAN_ROLE_HEAP) {
    heap_props(p, ext, ext_words);
  } else if (s->route == PLAN_ROUTE_NT_KERNEL_LOGGER) {
    p->Wnode.Guid = system_trace_control_guid;
  } else if ((s->log_file_mode & PLAN_SYSTEM_LOGGER_MODE) &&
             (status = new_session_guid(&p->Wnode.Guid)) != 0) {
    etwcap_free(p);
    snprintf(status_text, sizeof(status_text), "NTSTATUS 0x%08lX, no GUID for Wnode.Guid",
             (unsigned long)status);
    return controller_fail(c, ETWCAP_E_SYSTEM, "BCryptGenRandom", (unsigned long)status,
                           status_text);
  }
  {
    wchar_t *wname = utf8_to_utf16(s->name);
    if (!wname) {
      etwcap_free(p);
      return ETWCAP_E_NOMEM;
    }
    code = advapi->start_trace(&h, wname, p);
    etwcap_free(wname);
  }
  if (code == ERROR_SUCCESS && file && file_size && s->file)
    utf8_of(file_name_field(p), CONTROLLER_WIN32_NAME_CHARS, file, file_size);
  etwcap_free(p);
  if (code != ERROR_SUCCESS)
    return win32_fail(c, "StartTraceW", code);
  *handle = h;
  return 0;
}

static int enable_provider(struct controller *c, uint64_t handle, const struct plan_provider *pr,
                           unsigned params_version)
{
  EVENT_FILTER_DESCRIPTOR filters[PLAN_MAX_FILTERS];
  ENABLE_TRACE_PARAMETERS params;
  GUID guid;
  size_t i;
  ULONG code;

  memset(&params, 0, sizeof(params));
  memset(filters, 0, sizeof(filters));
  for (i = 0; i < pr->filter_count; i++) {
    filters[i].Ptr = (ULONGLONG)(uintptr_t)pr->filters[i].data;
    filters[i].Size = pr->filters[i].size;
    filters[i].Type = pr->filters[i].type;
  }
  params.Version = params_version;
  params.EnableProperty = pr->enable_property;
  params.EnableFilterDesc = pr->filter_count ? filters : NULL;
  params.FilterDescCount = (ULONG)pr->filter_count;
  guid = guid_to_win32(&pr->guid);
  /* Timeout 0: asynchronous, as TraceEvent does; a provider that is slow
   * to answer must not hold the capture up. */
  code = advapi->enable_trace_ex2((TRACEHANDLE)handle, &guid, pr->control_code, pr->level,
                                  pr->match_any, pr->match_all, 0, &params);
  if (code != ERROR_SUCCESS)
    return win32_fail(c, "EnableTraceEx2", code);
  return 0;
}

static int set_info(struct controller *c, uint64_t handle, TRACE_INFO_CLASS cls, void *data,
                    ULONG size)
{
  ULONG code = advapi->trace_set_information((TRACEHANDLE)handle, cls, data, size);
  if (code != ERROR_SUCCESS)
    return win32_fail(c, "TraceSetInformation", code);
  return 0;
}

static int set_group_mask(struct controller *c, uint64_t handle,
                          const uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  /* The whole PERFINFO_GROUPMASK, 8 ULONGs (krabsetw perfinfo_groupmask.hpp,
   * PERF_NUM_MASKS 8): Profile, CSwitch, Dispatcher live in Masks[1]. */
  ULONG masks[PLAN_GROUP_MASK_WORDS];
  memcpy(masks, mask, sizeof(masks));
  return set_info(c, handle, TraceSystemTraceEnableFlagsInfo, masks, sizeof(masks));
}

/* The optional queries through optional_call: TraceQueryInformation, or
 * with `enumerate` EnumerateTraceGuidsEx for `provider`.  A stub that
 * raises is UNSUPPORTED, as a missing export is. */
struct info_query {
  int enumerate;
  TRACEHANDLE handle;
  TRACE_INFO_CLASS cls;
  GUID provider;
  void *data;
  ULONG size;
  ULONG returned;
};

static ULONG call_info_query(void *ctx)
{
  struct info_query *q = ctx;
  if (q->enumerate)
    return advapi->enumerate_trace_guids_ex(q->cls, &q->provider, sizeof(q->provider), q->data,
                                            q->size, &q->returned);
  return advapi->trace_query_information(q->handle, q->cls, q->data, q->size, &q->returned);
}

/* Returns 0 or the error; *code is the call's own answer when it made one. */
static int query_info(struct controller *c, struct info_query *q, ULONG *code)
{
  const char *api = q->enumerate ? "EnumerateTraceGuidsEx" : "TraceQueryInformation";
  struct optional_call_fault fault;
  char raised[48];
  resolve_optional();
  if (q->enumerate ? !advapi->enumerate_trace_guids_ex : !advapi->trace_query_information)
    return controller_fail(c, ETWCAP_E_UNSUPPORTED, api, 0, "not exported by advapi32");
  if (optional_call(call_info_query, q, code, &fault) != 0) {
    snprintf(raised, sizeof(raised), "raised 0x%08lX at %p", (unsigned long)fault.code,
             fault.address);
    return controller_fail(c, ETWCAP_E_UNSUPPORTED, api, fault.code, raised);
  }
  return 0;
}

static int query_group_mask(struct controller *c, uint64_t handle,
                            uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  ULONG masks[PLAN_GROUP_MASK_WORDS];
  struct info_query q;
  ULONG code;
  int rc;
  memset(&q, 0, sizeof(q));
  memset(masks, 0, sizeof(masks));
  q.handle = (TRACEHANDLE)handle;
  q.cls = TraceSystemTraceEnableFlagsInfo;
  q.data = masks;
  q.size = sizeof(masks);
  if ((rc = query_info(c, &q, &code)) != 0)
    return rc;
  if (code != ERROR_SUCCESS)
    return win32_fail(c, "TraceQueryInformation", code);
  if (q.returned != sizeof(masks)) {
    /* The answer is a whole PERFINFO_GROUPMASK (evntrace.h: "Queries the
     * current Group Mask state ... Return Format: PERFINFO_GROUPMASK").
     * Fewer bytes would read as groups off, and a Set of the OR would
     * then clear what Windows coupled to the flags: no answer is safer. */
    return controller_fail(c, ETWCAP_E_UNSUPPORTED, "TraceQueryInformation", q.returned,
                           "answer is not one PERFINFO_GROUPMASK");
  }
  memcpy(mask, masks, sizeof(masks));
  return 0;
}

static int set_stack_ids(struct controller *c, uint64_t handle, const struct plan_stack_id *ids,
                         size_t count)
{
  CLASSIC_EVENT_ID list[PLAN_MAX_STACK_IDS];
  size_t i;
  if (count > PLAN_MAX_STACK_IDS)
    return controller_fail(c, ETWCAP_E_RANGE, "TraceSetInformation", 0, "too many stack ids");
  memset(list, 0, sizeof(list));
  for (i = 0; i < count; i++) {
    list[i].EventGuid = guid_to_win32(&ids[i].task);
    list[i].Type = ids[i].type;
  }
  return set_info(c, handle, TraceStackTracingInfo, list,
                  (ULONG)(count * sizeof(CLASSIC_EVENT_ID)));
}

static int set_profile_interval(struct controller *c, uint32_t interval_100ns)
{
  TRACE_PROFILE_INTERVAL pi;
  pi.Source = 0; /* the timer */
  pi.Interval = interval_100ns;
  /* Machine-wide: the session handle is 0, as TraceEvent passes it. */
  return set_info(c, 0, TraceSampledProfileIntervalInfo, &pi, sizeof(pi));
}

static int set_stack_caching(struct controller *c, uint64_t handle, int enabled,
                             uint32_t cache_size, uint32_t bucket_count)
{
  ETWCAP_TRACE_STACK_CACHING_INFO info;
  memset(&info, 0, sizeof(info));
  info.Enabled = enabled ? TRUE : FALSE;
  info.CacheSize = cache_size;     /* WPR's sizes (plan.h PLAN_STACK_CACHE_*) */
  info.BucketCount = bucket_count;
  return set_info(c, handle, ETWCAP_TRACE_STACK_CACHING_CLASS, &info, sizeof(info));
}

static int enable_profile_privilege(struct controller *c)
{
  ULONG code = advapi->enable_privilege(L"SeSystemProfilePrivilege");
  if (code != ERROR_SUCCESS)
    return win32_fail(c, "AdjustTokenPrivileges", code);
  return 0;
}

/* PerfView's flush block (TraceEventSession.SetFileName -> Flush ->
 * GetProperties with the new file name): the session's own properties; an
 * in-memory ring goes out as INDEPENDENT|FILE_MODE_CIRCULAR with its size
 * (CircularBufferMB) as MaximumFileSize. */
static void flush_props(EVENT_TRACE_PROPERTIES *p, const struct plan_session *s)
{
  session_props(p, s);
  if (s->log_file_mode & PLAN_BUFFERING_MODE) {
    p->LogFileMode = (s->log_file_mode & ~(ULONG)PLAN_BUFFERING_MODE) | PLAN_FILE_MODE_CIRCULAR;
    p->MaximumFileSize = (ULONG)((uint64_t)s->minimum_buffers * s->buffer_size_kb / 1024);
  }
}

/* What UPDATE changes and nothing else: 0 leaves FlushTimer and
 * MaximumBuffers as they are, LogFileMode 0 keeps real time off (our file
 * sessions have it off), EnableFlags keeps a system logger's kernel events
 * on (0 would switch them off). */
static void update_props(EVENT_TRACE_PROPERTIES *p, const struct plan_session *s)
{
  if (s->route == PLAN_ROUTE_NT_KERNEL_LOGGER)
    p->Wnode.Guid = system_trace_control_guid;
  if (s->role == PLAN_ROLE_KERNEL)
    p->EnableFlags = s->enable_flags_at_start;
}

/* ControlTraceW by name with a fresh block: `file` (may be NULL) as its
 * log file, `fill` (may be NULL) fills the rest from `s`. */
static int control(struct controller *c, const char *name, ULONG code_in, const char *file,
                   void (*fill)(EVENT_TRACE_PROPERTIES *, const struct plan_session *),
                   const struct plan_session *s, struct controller_status *out)
{
  EVENT_TRACE_PROPERTIES *p = new_props();
  wchar_t *wname;
  ULONG code;
  int rc = 0;
  if (!p)
    return ETWCAP_E_NOMEM;
  if (file && (rc = copy_full_path(file_name_field(p), CONTROLLER_WIN32_NAME_CHARS, file)) != 0) {
    etwcap_free(p);
    return controller_fail(c, rc, "ControlTraceW", 0, "path does not fit");
  }
  if (fill && s)
    fill(p, s);
  wname = utf8_to_utf16(name);
  if (!wname) {
    etwcap_free(p);
    return ETWCAP_E_NOMEM;
  }
  code = advapi->control_trace(0, wname, p, code_in);
  etwcap_free(wname);
  if (code != ERROR_SUCCESS)
    rc = win32_fail(c, "ControlTraceW", code);
  else if (out)
    status_of(p, out);
  etwcap_free(p);
  return rc;
}

static int query(struct controller *c, const char *name, struct controller_status *out)
{
  int rc = control(c, name, EVENT_TRACE_CONTROL_QUERY, NULL, NULL, NULL, out);
  /* A running session always has buffers.  A "success" that fills nothing
   * (Wine's stub answers every name so) says nothing about the session. */
  if (rc == 0 && out->buffer_size_kb == 0 && out->minimum_buffers == 0)
    return controller_fail(c, ETWCAP_E_NO_SESSION, "ControlTraceW", 0,
                           "QUERY succeeded but filled nothing");
  return rc;
}

static int flush(struct controller *c, const struct plan_session *s, const char *name,
                 const char *file)
{
  return control(c, name, EVENT_TRACE_CONTROL_FLUSH, file, flush_props, s, NULL);
}

static int switch_file(struct controller *c, const struct plan_session *s, const char *name,
                       const char *file)
{
  return control(c, name, EVENT_TRACE_CONTROL_UPDATE, file, update_props, s, NULL);
}

static int stop(struct controller *c, const char *name, struct controller_status *out)
{
  return control(c, name, EVENT_TRACE_CONTROL_STOP, NULL, NULL, NULL, out);
}

static int list(struct controller *c, controller_list_fn fn, void *ctx)
{
  EVENT_TRACE_PROPERTIES *blocks[CONTROLLER_WIN32_MAX_SESSIONS];
  struct controller_status st;
  ULONG found = 0, code, i;
  int rc = 0;

  memset(blocks, 0, sizeof(blocks));
  for (i = 0; i < CONTROLLER_WIN32_MAX_SESSIONS; i++)
    if (!(blocks[i] = new_props()))
      rc = ETWCAP_E_NOMEM;
  if (!rc) {
    code = advapi->query_all_traces(blocks, CONTROLLER_WIN32_MAX_SESSIONS, &found);
    if (code == ERROR_MORE_DATA) {
      /* More sessions than one call reports: list the ones we got. */
      log_warn("more than %d trace sessions are running; only %d are listed",
               CONTROLLER_WIN32_MAX_SESSIONS, CONTROLLER_WIN32_MAX_SESSIONS);
      found = CONTROLLER_WIN32_MAX_SESSIONS;
    } else if (code != ERROR_SUCCESS) {
      rc = win32_fail(c, "QueryAllTracesW", code);
    }
  }
  for (i = 0; !rc && i < found && i < CONTROLLER_WIN32_MAX_SESSIONS; i++) {
    status_of(blocks[i], &st);
    rc = fn(ctx, &st);
  }
  for (i = 0; i < CONTROLLER_WIN32_MAX_SESSIONS; i++)
    etwcap_free(blocks[i]);
  return rc;
}

/* The list's byte size first (a NULL buffer: ReturnLength says how much,
 * TraceEvent's GetInfo), then the list; each PROFILE_SOURCE_INFO's name
 * starts at its Description member and the next entry NextEntryOffset bytes
 * on (0: the last).  Entries outside the returned bytes end the walk. */
static int query_profile_sources(struct controller *c, struct plan_machine_source *out,
                                 size_t max, size_t *count)
{
  struct info_query q;
  BYTE *list = NULL;
  ULONG code, size, at = 0;
  int rc;
  *count = 0;
  memset(&q, 0, sizeof(q));
  q.cls = TraceProfileSourceListInfo;
  if ((rc = query_info(c, &q, &code)) != 0)
    return rc;
  if (code != ERROR_SUCCESS && code != ERROR_BAD_LENGTH && code != ERROR_INSUFFICIENT_BUFFER &&
      code != ERROR_MORE_DATA)
    return win32_fail(c, "TraceQueryInformation", code);
  size = q.returned;
  if (size < sizeof(PROFILE_SOURCE_INFO))
    return 0; /* no sources */
  if (!(list = etwcap_calloc(1, size + sizeof(WCHAR))))
    return ETWCAP_E_NOMEM;
  q.data = list;
  q.size = size;
  q.returned = 0;
  if ((rc = query_info(c, &q, &code)) == 0 && code != ERROR_SUCCESS)
    rc = win32_fail(c, "TraceQueryInformation", code);
  while (!rc && *count < max && at + offsetof(PROFILE_SOURCE_INFO, Description) <= size) {
    const PROFILE_SOURCE_INFO *e = (const PROFILE_SOURCE_INFO *)(list + at);
    struct plan_machine_source *m = &out[*count];
    TRACE_PROFILE_INTERVAL iv;
    size_t name_at = at + offsetof(PROFILE_SOURCE_INFO, Description);
    memset(m, 0, sizeof(*m));
    utf8_of((const WCHAR *)(list + name_at), (size + sizeof(WCHAR) - name_at) / sizeof(WCHAR),
            m->name, sizeof(m->name));
    m->id = e->Source;
    m->min_interval = e->MinInterval;
    m->max_interval = e->MaxInterval;
    /* The current interval: TraceQueryInformation(TraceSampledProfileIntervalInfo)
     * with Source filled in (TraceEvent's GetInfo). */
    iv.Source = e->Source;
    iv.Interval = 0;
    memset(&q, 0, sizeof(q));
    q.cls = TraceSampledProfileIntervalInfo;
    q.data = &iv;
    q.size = sizeof(iv);
    if ((rc = query_info(c, &q, &code)) == 0 && code != ERROR_SUCCESS)
      rc = win32_fail(c, "TraceQueryInformation", code);
    m->interval = iv.Interval;
    (*count)++;
    if (e->NextEntryOffset == 0 || e->NextEntryOffset > size - at)
      break;
    at += e->NextEntryOffset;
  }
  etwcap_free(list);
  return rc;
}

static int set_source_interval(struct controller *c, uint32_t source, uint32_t interval)
{
  TRACE_PROFILE_INTERVAL pi;
  pi.Source = source;
  pi.Interval = interval;
  /* Machine-wide, session handle 0, as TraceEventProfileSources.Set. */
  return set_info(c, 0, TraceSampledProfileIntervalInfo, &pi, sizeof(pi));
}

static int set_ulongs(struct controller *c, uint64_t handle, TRACE_INFO_CLASS cls,
                      const uint32_t *values, size_t count, size_t max)
{
  ULONG list[PLAN_MAX_PROFILE_SOURCES];
  size_t i;
  if (count > max || count > PLAN_MAX_PROFILE_SOURCES)
    return controller_fail(c, ETWCAP_E_RANGE, "TraceSetInformation", 0, "too many sources");
  for (i = 0; i < count; i++)
    list[i] = values[i];
  return set_info(c, handle, cls, list, (ULONG)(count * sizeof(ULONG)));
}

static int set_profile_sources(struct controller *c, const uint32_t *ids, size_t count)
{
  /* Machine-wide, handle 0, as TraceEventProfileSources.Set. */
  return set_ulongs(c, 0, TraceProfileSourceConfigInfo, ids, count, PLAN_MAX_PROFILE_SOURCES);
}

static int set_lbr(struct controller *c, uint64_t handle, uint32_t filters,
                   const uint32_t *sources, size_t count)
{
  ULONG f = filters;
  int rc = set_info(c, handle, ETWCAP_TRACE_LBR_CONFIGURATION_CLASS, &f, sizeof(f));
  if (rc)
    return rc;
  return set_ulongs(c, handle, ETWCAP_TRACE_LBR_EVENT_LIST_CLASS, sources, count,
                    PLAN_MAX_LBR_SOURCES);
}

/* The answer's layout (TRACE_GUID_INFO, TRACE_PROVIDER_INSTANCE_INFO,
 * TRACE_ENABLE_INFO in evntrace.h): a header with InstanceCount, then per
 * instance a block whose NextOffset (from the block's start, 0 for the
 * last) leads to the next, each followed by EnableCount enable infos. */
static uint64_t keywords_of(const unsigned char *buf, ULONG size)
{
  const TRACE_GUID_INFO *info = (const TRACE_GUID_INFO *)(const void *)buf;
  uint64_t all = 0;
  ULONG at = sizeof(*info), i, j;
  if (size < sizeof(*info))
    return 0;
  for (i = 0; i < info->InstanceCount; i++) {
    const TRACE_PROVIDER_INSTANCE_INFO *inst;
    if (at > size || size - at < sizeof(*inst))
      break;
    inst = (const TRACE_PROVIDER_INSTANCE_INFO *)(const void *)(buf + at);
    for (j = 0; j < inst->EnableCount; j++) {
      ULONG e = at + (ULONG)sizeof(*inst) + j * (ULONG)sizeof(TRACE_ENABLE_INFO);
      if (e > size || size - e < sizeof(TRACE_ENABLE_INFO))
        break;
      all |= ((const TRACE_ENABLE_INFO *)(const void *)(buf + e))->MatchAllKeyword;
    }
    /* NextOffset leads past this block and its enable infos, and stays
     * inside the answer: a smaller one would read them as the next
     * instance, a larger one would wrap the ULONG `at` back. */
    if (!inst->NextOffset ||
        inst->NextOffset < sizeof(*inst) + (uint64_t)inst->EnableCount * sizeof(TRACE_ENABLE_INFO) ||
        inst->NextOffset > size - at)
      break;
    at += inst->NextOffset;
  }
  return all;
}

/* Asked with no buffer first ("If the buffer size is zero on input ... the
 * ReturnLength parameter receives the required buffer size"), then with
 * that much; a list that grew in between is asked again. */
static int query_provider_keywords(struct controller *c, const struct etw_guid *provider,
                                   uint64_t *match_all)
{
  struct info_query q;
  ULONG code = ERROR_INSUFFICIENT_BUFFER;
  int tries, rc = 0;
  *match_all = 0;
  memset(&q, 0, sizeof(q));
  q.enumerate = 1;
  q.cls = TraceGuidQueryInfo;
  q.provider = guid_to_win32(provider);
  for (tries = 0; tries < 3 && code == ERROR_INSUFFICIENT_BUFFER; tries++) {
    if (q.returned > q.size) {
      etwcap_free(q.data);
      if (!(q.data = etwcap_malloc(q.returned)))
        return ETWCAP_E_NOMEM;
      q.size = q.returned;
    }
    if ((rc = query_info(c, &q, &code)) != 0) {
      etwcap_free(q.data);
      return rc;
    }
  }
  /* A provider no process registered and no session enabled is not found:
   * no session holds a bit of it. */
  if (code == ERROR_SUCCESS && q.data)
    *match_all = keywords_of(q.data, q.returned < q.size ? q.returned : q.size);
  else if (code != ERROR_SUCCESS && code != ERROR_WMI_GUID_NOT_FOUND)
    rc = win32_fail(c, "EnumerateTraceGuidsEx", code);
  etwcap_free(q.data);
  return rc;
}

const struct controller_ops controller_system_ops = {
  "advapi32", start, enable_provider, set_group_mask, query_group_mask, set_stack_ids,
  set_profile_interval, set_stack_caching, enable_profile_privilege, query, flush, stop, list,
  switch_file, query_profile_sources, set_source_interval, set_profile_sources, set_lbr,
  query_provider_keywords,
};
