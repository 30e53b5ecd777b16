/* The recording fake of advapi32's ETW controller calls (see
 * fake_advapi32_win32.h).  The contract checks cite the documented rules
 * they enforce. */
#include "tests/fakes/fake_advapi32_win32.h"

#include "src/base/alloc.h"
#include "src/base/os/utf16_win32.h"
#include "tests/fakes/fake_controller.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#define MAX_VIOLATIONS 64

static const GUID system_trace_control_guid = {
  0x9e814aad, 0x3204, 0x11d2, { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 }
};

struct script_fail {
  enum fake_api api;
  char name[1024];
  ULONG code;
  int info_class;
  ULONG property_mask;
  int times; /* 0 always; > 0 left; < 0 used up */
};

/* Kernel groups, in the fake's own words: krabsetw krabs/krabs/
 * perfinfo_groupmask.hpp writes each group as (Masks[] index << 29) | bit,
 * and marks which EVENT_TRACE_FLAG_* each is "equivalent to"; flags not in
 * this list are their own group in Masks[0]. */
static const struct {
  ULONG flag, group;
} moved_groups[] = {
  { 0x00000010, 0x20000004 }, /* CSWITCH -> PERF_CONTEXT_SWITCH */
  { 0x00000020, 0x20000080 }, /* DPC -> PERF_DPC */
  { 0x00000040, 0x20004000 }, /* INTERRUPT -> PERF_INTERRUPT */
  { 0x00000080, 0x40000040 }, /* SYSTEMCALL -> PERF_SYSCALL */
  { 0x00000800, 0x20000200 }, /* DISPATCHER -> PERF_DISPATCHER */
  { 0x00004000, 0x20008000 }, /* VIRTUAL_ALLOC -> PERF_VIRTUAL_ALLOC */
  { 0x00800000, 0x20000010 }, /* DRIVER -> PERF_DRIVERS */
  { 0x01000000, 0x20000002 }, /* PROFILE -> PERF_PROFILE */
};

/* ASSUMED, and partial (12 rows of the plan's 27): that a System Provider's
 * keywords show in the session's group mask as their legacy flags' groups.
 * The System Providers page pairs each keyword with a flag and group, but
 * nothing documents that TraceQueryInformation(TraceSystemTraceEnable
 * FlagsInfo) shows keyword enables, so etwcap treats that read-back as
 * informational (docs/win32-contract.md §3.3 rule 6).  (Process 151f55dc,
 * Scheduler 599a2a76, Profile bfeb0324, Io 3d5c43e3, Memory 82958ca9.) */
static const struct {
  ULONG data1;
  ULONGLONG keyword;
  ULONG flag;
} system_keywords[] = {
  { 0x151f55dc, 0x0001, 0x00000001 }, /* SYSTEM_PROCESS_KW_GENERAL: PROCESS */
  { 0x151f55dc, 0x0008, 0x00000008 }, /* PERF_COUNTER: PROCESS_COUNTERS */
  { 0x151f55dc, 0x0800, 0x00000002 }, /* THREAD */
  { 0x151f55dc, 0x1000, 0x00000004 }, /* LOADER: IMAGE_LOAD */
  { 0x599a2a76, 0x0002, 0x00000800 }, /* SYSTEM_SCHEDULER_KW_DISPATCHER */
  { 0x599a2a76, 0x0200, 0x00000010 }, /* SYSTEM_SCHEDULER_KW_CONTEXT_SWITCH: CSWITCH */
  { 0xbfeb0324, 0x0001, 0x01000000 }, /* SYSTEM_PROFILE_KW_GENERAL: PROFILE */
  { 0x3d5c43e3, 0x0001, 0x00000100 }, /* SYSTEM_IO_KW_DISK */
  { 0x3d5c43e3, 0x0002, 0x00000400 }, /* SYSTEM_IO_KW_DISK_INIT */
  { 0x3d5c43e3, 0x0004, 0x00000200 }, /* SYSTEM_IO_KW_FILENAME */
  { 0x3d5c43e3, 0x0200, 0x00010000 }, /* SYSTEM_IO_KW_NETWORK */
  { 0x82958ca9, 0x0002, 0x00002000 }, /* SYSTEM_MEMORY_KW_HARD_FAULTS */
};

static void groups_of_flags(ULONG flags, ULONG mask[FAKE_GROUP_WORDS])
{
  size_t i;
  for (i = 0; i < sizeof(moved_groups) / sizeof(moved_groups[0]); i++)
    if (flags & moved_groups[i].flag) {
      mask[moved_groups[i].group >> 29] |= moved_groups[i].group & 0x1FFFFFFF;
      flags &= ~moved_groups[i].flag;
    }
  mask[0] |= flags;
}

/* The System Providers page: "SystemProcessProviderGuid" etc. share the
 * tail 0x...; the fake knows them by Data1 of the page's GUIDs. */
static int is_system_provider(const GUID *g)
{
  static const ULONG known[] = { 0x151f55dc, 0x599a2a76, 0xbfeb0324, 0xd4bbee17, 0x434286f7,
                                 0x3d5c43e3, 0x82958ca9, 0x16156bd9, 0xfcb9baaf };
  size_t i;
  for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
    if (g->Data1 == known[i])
      return 1;
  return 0;
}

struct provider_taken {
  GUID guid;
  unsigned count;
};

static struct {
  char state_file[1024];
  unsigned os_major, os_minor, os_build;
  int query_raises;
  ULONG drop_groups[FAKE_GROUP_WORDS];
  struct provider_taken taken[8];
  size_t taken_count;
  struct {
    GUID guid;
    ULONGLONG all;
    unsigned process;            /* 0: every registration; k: the k-th only */
  } keywords[8];                 /* other tools' enables (MatchAllKeyword) */
  size_t keyword_count;
  struct {
    GUID guid;
    unsigned count;
  } registered[4];               /* processes that registered a provider */
  size_t registered_count;
  ULONG group_mask_answer;       /* bytes the group-mask query answers; 0: all 32 */
  int enumerate_raises;
  struct fake_advapi_session sessions[FAKE_ADVAPI_MAX_SESSIONS];
  size_t session_count;
  TRACEHANDLE next_handle;
  struct fake_advapi_call calls[FAKE_ADVAPI_MAX_CALLS];
  size_t call_count;
  char violations[MAX_VIOLATIONS][320];
  size_t violation_count;
  struct script_fail fails[16];
  size_t fail_count;
  void (*on_call)(void *ctx, const struct fake_advapi_call *call);
  void *on_call_ctx;
  char *history;
  struct fake_advapi_source sources[FAKE_ADVAPI_MAX_SOURCES];
  size_t source_count;
  TRACEHANDLE lbr_configured; /* the session TraceLbrConfigurationInfo went to */
} F;

static int os_at_least(unsigned major, unsigned minor, unsigned build)
{
  if (F.os_major != major)
    return F.os_major > major;
  if (F.os_minor != minor)
    return F.os_minor > minor;
  return F.os_build >= build;
}

static void violation(const char *fmt, ...)
{
  va_list ap;
  if (F.violation_count >= MAX_VIOLATIONS)
    return;
  va_start(ap, fmt);
  vsnprintf(F.violations[F.violation_count++], sizeof(F.violations[0]), fmt, ap);
  va_end(ap);
}

/* --- the state file -------------------------------------------------------- */

static void save_state(void)
{
  char tmp[1100];
  FILE *f;
  size_t i;
  if (!F.state_file[0])
    return;
  snprintf(tmp, sizeof(tmp), "%s.tmp", F.state_file);
  if (!(f = fopen(tmp, "wb")))
    return;
  fprintf(f, "N\t%llu\n", (unsigned long long)F.next_handle);
  for (i = 0; i < F.session_count; i++) {
    const struct fake_advapi_session *s = &F.sessions[i];
    fprintf(f, "S\t%llu\t%s\t%s\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu\t%lu,%lu,%lu,%lu,%lu,%lu,%lu,%lu\t%d\n",
            (unsigned long long)s->handle, s->name, s->file[0] ? s->file : "-",
            (unsigned long)s->log_file_mode, (unsigned long)s->buffer_size,
            (unsigned long)s->minimum_buffers, (unsigned long)s->maximum_buffers,
            (unsigned long)s->maximum_file_size, (unsigned long)s->flush_timer,
            (unsigned long)s->enable_flags, (unsigned long)s->client_context,
            (unsigned long)s->group_mask[0], (unsigned long)s->group_mask[1],
            (unsigned long)s->group_mask[2], (unsigned long)s->group_mask[3],
            (unsigned long)s->group_mask[4], (unsigned long)s->group_mask[5],
            (unsigned long)s->group_mask[6], (unsigned long)s->group_mask[7], s->foreign);
  }
  fclose(f);
  remove(F.state_file);
  rename(tmp, F.state_file);
}

static char *field(char **cursor)
{
  char *start = *cursor, *tab;
  if (!start)
    return (char *)"";
  tab = strchr(start, '\t');
  if (tab) {
    *tab = '\0';
    *cursor = tab + 1;
  } else {
    char *nl = strchr(start, '\n');
    if (nl)
      *nl = '\0';
    *cursor = NULL;
  }
  return start;
}

/* The state file is the truth when there is one: another process may have
 * started or stopped sessions since. */
static void load_state(void)
{
  char line[2600];
  FILE *f;
  if (!F.state_file[0])
    return;
  F.session_count = 0;
  if (!(f = fopen(F.state_file, "rb")))
    return;
  while (fgets(line, sizeof(line), f)) {
    char *c = line + 2;
    if (line[0] == 'N') {
      F.next_handle = strtoull(field(&c), NULL, 10);
    } else if (line[0] == 'S' && F.session_count < FAKE_ADVAPI_MAX_SESSIONS) {
      struct fake_advapi_session *s = &F.sessions[F.session_count++];
      const char *file;
      memset(s, 0, sizeof(*s));
      s->handle = strtoull(field(&c), NULL, 10);
      snprintf(s->name, sizeof(s->name), "%s", field(&c));
      file = field(&c);
      snprintf(s->file, sizeof(s->file), "%s", strcmp(file, "-") ? file : "");
      s->log_file_mode = strtoul(field(&c), NULL, 10);
      s->buffer_size = strtoul(field(&c), NULL, 10);
      s->minimum_buffers = strtoul(field(&c), NULL, 10);
      s->maximum_buffers = strtoul(field(&c), NULL, 10);
      s->maximum_file_size = strtoul(field(&c), NULL, 10);
      s->flush_timer = strtoul(field(&c), NULL, 10);
      s->enable_flags = strtoul(field(&c), NULL, 10);
      s->client_context = strtoul(field(&c), NULL, 10);
      {
        char *m = field(&c);
        size_t w;
        for (w = 0; w < FAKE_GROUP_WORDS; w++) {
          s->group_mask[w] = strtoul(m, &m, 10);
          if (*m == ',')
            m++;
        }
      }
      s->foreign = atoi(field(&c));
    }
  }
  fclose(f);
}

static const char *api_name(enum fake_api api)
{
  switch (api) {
  case FAKE_START_TRACE:
    return "StartTraceW";
  case FAKE_CONTROL_TRACE:
    return "ControlTraceW";
  case FAKE_ENABLE_TRACE_EX2:
    return "EnableTraceEx2";
  case FAKE_TRACE_SET_INFORMATION:
    return "TraceSetInformation";
  case FAKE_QUERY_ALL_TRACES:
    return "QueryAllTracesW";
  case FAKE_TRACE_QUERY_INFORMATION:
    return "TraceQueryInformation";
  case FAKE_ENUMERATE_TRACE_GUIDS_EX:
    return "EnumerateTraceGuidsEx";
  default:
    return "EnablePrivilege";
  }
}

/* One line per call in STATE.calls, for the test that runs two processes. */
static void append_history(const struct fake_advapi_call *c)
{
  char path[1100];
  FILE *f;
  if (!F.state_file[0])
    return;
  snprintf(path, sizeof(path), "%s.calls", F.state_file);
  if (!(f = fopen(path, "ab")))
    return;
  fprintf(f, "%lu %s %s code=%lu class=%d -> %lu\n", (unsigned long)GetCurrentProcessId(),
          api_name(c->api), c->name[0] ? c->name : "-", (unsigned long)c->control_code,
          c->info_class, (unsigned long)c->result);
  fclose(f);
}

/* --- sessions ---------------------------------------------------------------- */

static struct fake_advapi_session *find(const char *name)
{
  size_t i;
  for (i = 0; i < F.session_count; i++)
    if (!_stricmp(F.sessions[i].name, name))
      return &F.sessions[i];
  return NULL;
}

static struct fake_advapi_session *by_handle(TRACEHANDLE h)
{
  size_t i;
  for (i = 0; i < F.session_count; i++)
    if (F.sessions[i].handle == h)
      return &F.sessions[i];
  return NULL;
}

static void remove_session(struct fake_advapi_session *s)
{
  size_t i = (size_t)(s - F.sessions);
  memmove(&F.sessions[i], &F.sessions[i + 1], (F.session_count - i - 1) * sizeof(*s));
  F.session_count--;
}

static unsigned seed_of(const char *name)
{
  unsigned h = 0;
  while (*name)
    h = h * 31u + (unsigned char)*name++;
  return h % 97u;
}

/* --- recording ------------------------------------------------------------------ */

static struct fake_advapi_call *new_call(enum fake_api api)
{
  static struct fake_advapi_call overflow;
  struct fake_advapi_call *c =
      F.call_count < FAKE_ADVAPI_MAX_CALLS ? &F.calls[F.call_count++] : &overflow;
  if (c == &overflow)
    violation("more than %d calls: the fake's record is full", FAKE_ADVAPI_MAX_CALLS);
  memset(c, 0, sizeof(*c));
  c->api = api;
  c->info_class = -1;
  return c;
}

static ULONG finish(struct fake_advapi_call *c, ULONG result)
{
  c->result = result;
  append_history(c);
  return result;
}

static void utf8_name(const WCHAR *w, char *out, size_t size)
{
  char *u = w ? utf16_to_utf8(w) : NULL;
  snprintf(out, size, "%s", u ? u : "");
  etwcap_free(u);
}

/* A NUL-terminated UTF-16 string at `offset` inside a block of `size`
 * bytes; violation (and "") when it does not end inside. */
static void string_at(const char *api, const char *what, const EVENT_TRACE_PROPERTIES *p,
                      ULONG offset, char *out, size_t out_size)
{
  const WCHAR *w = (const WCHAR *)((const BYTE *)p + offset);
  size_t max = (p->Wnode.BufferSize - offset) / sizeof(WCHAR), n = 0;
  out[0] = '\0';
  while (n < max && w[n])
    n++;
  if (n == max) {
    violation("%s: %s at offset %lu is not NUL-terminated inside Wnode.BufferSize %lu", api, what,
              (unsigned long)offset, (unsigned long)p->Wnode.BufferSize);
    return;
  }
  utf8_name(w, out, out_size);
}

static ULONG scripted(enum fake_api api, const char *name, int info_class, ULONG property)
{
  size_t i;
  for (i = 0; i < F.fail_count; i++) {
    struct script_fail *x = &F.fails[i];
    if (x->api != api || x->times < 0)
      continue;
    if (x->name[0] && (!name || _stricmp(x->name, name) != 0))
      continue;
    if (x->info_class >= 0 && x->info_class != info_class)
      continue;
    if (x->property_mask && !(property & x->property_mask))
      continue;
    if (x->times > 0 && --x->times == 0)
      x->times = -1;
    return x->code;
  }
  return ERROR_SUCCESS;
}

/* Records the properties block and checks what every ETW call that takes
 * one requires (EVENT_TRACE_PROPERTIES remarks: Wnode.BufferSize covers the
 * structure and the name strings; the offsets lie after the structure). */
static void decode_props(const char *api, struct fake_advapi_call *c,
                         const EVENT_TRACE_PROPERTIES *p, int want_names)
{
  c->wnode_buffer_size = p->Wnode.BufferSize;
  c->wnode_flags = p->Wnode.Flags;
  c->client_context = p->Wnode.ClientContext;
  c->wnode_guid = p->Wnode.Guid;
  c->buffer_size = p->BufferSize;
  c->minimum_buffers = p->MinimumBuffers;
  c->maximum_buffers = p->MaximumBuffers;
  c->maximum_file_size = p->MaximumFileSize;
  c->log_file_mode = p->LogFileMode;
  c->flush_timer = p->FlushTimer;
  c->enable_flags = p->EnableFlags;
  c->logger_name_offset = p->LoggerNameOffset;
  c->log_file_name_offset = p->LogFileNameOffset;
  if (p->Wnode.BufferSize < sizeof(EVENT_TRACE_PROPERTIES))
    violation("%s(%s): Wnode.BufferSize %lu is smaller than EVENT_TRACE_PROPERTIES (%lu)", api,
              c->name, (unsigned long)p->Wnode.BufferSize,
              (unsigned long)sizeof(EVENT_TRACE_PROPERTIES));
  if (!(p->Wnode.Flags & WNODE_FLAG_TRACED_GUID))
    violation("%s(%s): Wnode.Flags 0x%lx lacks WNODE_FLAG_TRACED_GUID", api, c->name,
              (unsigned long)p->Wnode.Flags);
  if (want_names || p->LoggerNameOffset) {
    if (p->LoggerNameOffset < sizeof(EVENT_TRACE_PROPERTIES) ||
        p->LoggerNameOffset + sizeof(WCHAR) > p->Wnode.BufferSize)
      violation("%s(%s): LoggerNameOffset %lu is not after the structure inside the block", api,
                c->name, (unsigned long)p->LoggerNameOffset);
  }
  if (p->LogFileNameOffset) {
    if (p->LogFileNameOffset < sizeof(EVENT_TRACE_PROPERTIES) ||
        p->LogFileNameOffset + sizeof(WCHAR) > p->Wnode.BufferSize)
      violation("%s(%s): LogFileNameOffset %lu is not after the structure inside the block", api,
                c->name, (unsigned long)p->LogFileNameOffset);
    else if (p->LoggerNameOffset &&
             p->LogFileNameOffset < p->LoggerNameOffset + 1024 * sizeof(WCHAR) &&
             p->LoggerNameOffset < p->LogFileNameOffset + 1024 * sizeof(WCHAR))
      violation("%s(%s): the name areas at %lu and %lu overlap (1024 characters each)", api,
                c->name, (unsigned long)p->LoggerNameOffset,
                (unsigned long)p->LogFileNameOffset);
  } else if (want_names) {
    violation("%s(%s): LogFileNameOffset is 0: ETW cannot return the file name", api, c->name);
  }
}

static void fill_props(EVENT_TRACE_PROPERTIES *p, const struct fake_advapi_session *s)
{
  ULONG room = p->Wnode.BufferSize;
  p->Wnode.HistoricalContext = s->handle;
  p->Wnode.ClientContext = s->client_context;
  p->BufferSize = s->buffer_size;
  p->MinimumBuffers = s->minimum_buffers;
  p->MaximumBuffers = s->maximum_buffers;
  p->MaximumFileSize = s->maximum_file_size;
  p->LogFileMode = s->log_file_mode;
  p->FlushTimer = s->flush_timer;
  p->EnableFlags = s->enable_flags;
  p->NumberOfBuffers = s->minimum_buffers;
  p->FreeBuffers = s->minimum_buffers / 2;
  p->EventsLost = 0;
  p->BuffersWritten = 5;
  p->LogBuffersLost = 0;
  p->RealTimeBuffersLost = 0;
  if (p->LoggerNameOffset >= sizeof(*p) && p->LoggerNameOffset < room) {
    wchar_t *w = utf8_to_utf16(s->name);
    size_t n = w ? wcslen(w) : 0;
    if (w && p->LoggerNameOffset + (n + 1) * sizeof(WCHAR) <= room)
      memcpy((BYTE *)p + p->LoggerNameOffset, w, (n + 1) * sizeof(WCHAR));
    etwcap_free(w);
  }
  if (p->LogFileNameOffset >= sizeof(*p) && p->LogFileNameOffset < room) {
    wchar_t *w = utf8_to_utf16(s->file);
    size_t n = w ? wcslen(w) : 0;
    if (w && p->LogFileNameOffset + (n + 1) * sizeof(WCHAR) <= room)
      memcpy((BYTE *)p + p->LogFileNameOffset, w, (n + 1) * sizeof(WCHAR));
    etwcap_free(w);
  }
}

static int absolute(const char *path)
{
  return (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':' &&
          (path[2] == '\\' || path[2] == '/')) ||
         (path[0] == '\\' && path[1] == '\\');
}

static void apply_drops(struct fake_advapi_session *s)
{
  size_t w;
  for (w = 0; w < FAKE_GROUP_WORDS; w++)
    s->group_mask[w] &= ~F.drop_groups[w];
}

/* --- StartTraceW ---------------------------------------------------------------- */

/* The heap provider (TraceEvent HeapTraceProviderTraceEventParser.ProviderGuid). */
static const GUID heap_provider_guid = {
  0x222962ab, 0x6180, 0x4b88, { 0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a }
};

/* Where the names end: the extension block may not overlap them. */
static ULONG names_end(const EVENT_TRACE_PROPERTIES *p)
{
  ULONG end = 0, offs[2] = { p->LoggerNameOffset, p->LogFileNameOffset };
  size_t i;
  for (i = 0; i < 2; i++) {
    const WCHAR *w;
    ULONG at;
    if (!offs[i] || offs[i] >= p->Wnode.BufferSize)
      continue;
    w = (const WCHAR *)((const BYTE *)p + offs[i]);
    for (at = offs[i]; at + sizeof(WCHAR) <= p->Wnode.BufferSize && *w; at += sizeof(WCHAR))
      w++;
    if (at + sizeof(WCHAR) > end)
      end = at + sizeof(WCHAR);
  }
  return end;
}

/* A heap session: StartHeapTrace (Microsoft, WPT "StartHeapTrace") "starts
 * a heap tracing session for a set of specified PIDs" with stack walking
 * "for certain heap events" and "always uses its own" Wnode.Guid.  How
 * those reach StartTraceW is not documented by Microsoft; the layout is
 * TraceEvent's (ETWKernelControl.StartWindowsHeapSession, SaveExtensions):
 * EnableFlags = EVENT_TRACE_FLAG_EXTENSION (evntrace.h) | 0xFF << 16 |
 * the block's offset; the block inside Wnode.BufferSize after the names; a
 * header word (length in ULONGs, item count), items (length with header,
 * type: 1..5, ExtensionItemTypes) whose lengths add up; one ETW_EXT_PIDS
 * (2) item with the processes; ETW_EXT_STACKWALK_FILTER (3) items whose
 * hooks are heap events (group 0x10, "10 = HeapProvider"). */
static void check_heap_extension(struct fake_advapi_call *c, const EVENT_TRACE_PROPERTIES *p)
{
  ULONG flags = p->EnableFlags, offset = flags & 0xFFFF, total, count, at, i, pid_items = 0;
  const ULONG *w;
  c->heap = 1;
  if ((flags & 0xFFFF0000u) != (EVENT_TRACE_FLAG_EXTENSION | 0x00FF0000u)) {
    violation("StartTraceW(%s): a heap session's EnableFlags 0x%08lx is not "
              "EVENT_TRACE_FLAG_EXTENSION|0x00FF0000|offset",
              c->name, (unsigned long)flags);
    return;
  }
  if (offset < names_end(p) || offset + sizeof(ULONG) > p->Wnode.BufferSize) {
    violation("StartTraceW(%s): extension offset %lu is not after the names inside "
              "Wnode.BufferSize %lu",
              c->name, (unsigned long)offset, (unsigned long)p->Wnode.BufferSize);
    return;
  }
  w = (const ULONG *)((const BYTE *)p + offset);
  total = w[0] & 0xFFFF;
  count = w[0] >> 16;
  if (!total || offset + total * sizeof(ULONG) > p->Wnode.BufferSize) {
    violation("StartTraceW(%s): the extension block's length %lu leaves Wnode.BufferSize",
              c->name, (unsigned long)total);
    return;
  }
  for (at = 1, i = 0; i < count && at < total; i++) {
    ULONG len = w[at] & 0xFFFF, type = w[at] >> 16, k;
    if (!len || at + len > total || type < 1 || type > 5) {
      violation("StartTraceW(%s): extension item %lu (length %lu, type %lu) is malformed",
                c->name, (unsigned long)i, (unsigned long)len, (unsigned long)type);
      return;
    }
    for (k = 1; k < len; k++) {
      ULONG v = w[at + k];
      if (type == 2 && c->heap_pid_count < FAKE_ADVAPI_MAX_EXT)
        c->heap_pids[c->heap_pid_count++] = v;
      if (type == 3) {
        if ((v >> 8) != 0x10)
          violation("StartTraceW(%s): stack hook 0x%04lx is no heap event", c->name,
                    (unsigned long)v);
        if (c->heap_hook_count < FAKE_ADVAPI_MAX_EXT)
          c->heap_hooks[c->heap_hook_count++] = v;
      }
    }
    pid_items += type == 2;
    at += len;
  }
  if (i != count || at != total)
    violation("StartTraceW(%s): the extension block's items (%lu of %lu, %lu words) do not "
              "fill its length %lu",
              c->name, (unsigned long)i, (unsigned long)count, (unsigned long)at,
              (unsigned long)total);
  if (pid_items != 1)
    violation("StartTraceW(%s): a heap session needs one ETW_EXT_PIDS item, not %lu", c->name,
              (unsigned long)pid_items);
}

static ULONG WINAPI fake_start_trace(PTRACEHANDLE handle, LPCWSTR name,
                                     PEVENT_TRACE_PROPERTIES p)
{
  struct fake_advapi_call *c = new_call(FAKE_START_TRACE);
  struct fake_advapi_session *s;
  const char *api = "StartTraceW";
  ULONG code, file_modes;
  size_t name_len;

  utf8_name(name, c->name, sizeof(c->name));
  if (!handle || !name || !p) {
    violation("StartTraceW: a NULL argument");
    return finish(c, ERROR_INVALID_PARAMETER);
  }
  name_len = wcslen(name);
  decode_props(api, c, p, 0);
  if (name_len == 0 || name_len > 1023)
    violation("StartTraceW: the session name has %lu characters (1 to 1023)",
              (unsigned long)name_len);
  /* StartTraceW copies InstanceName to LoggerNameOffset: room for it. */
  if (p->LoggerNameOffset < sizeof(EVENT_TRACE_PROPERTIES) ||
      p->LoggerNameOffset + (name_len + 1) * sizeof(WCHAR) > p->Wnode.BufferSize)
    violation("StartTraceW(%s): no room for the name at LoggerNameOffset %lu", c->name,
              (unsigned long)p->LoggerNameOffset);
  if (p->LogFileNameOffset)
    string_at(api, "LogFileName", p, p->LogFileNameOffset, c->file, sizeof(c->file));
  if (p->Wnode.ClientContext < 1 || p->Wnode.ClientContext > 3)
    violation("StartTraceW(%s): Wnode.ClientContext %lu is no clock (1 QPC, 2 system, 3 CPU)",
              c->name, (unsigned long)p->Wnode.ClientContext);
  /* EVENT_TRACE_PROPERTIES.BufferSize: "The minimum buffer size is 4 (4KB).
   * The maximum buffer size is 16384 (16MB) ... Prior to Windows 8: The
   * maximum buffer size is 1024 (1MB)." */
  {
    ULONG max = os_at_least(6, 2, 0) ? 16384 : 1024;
    if (p->BufferSize < 4 || p->BufferSize > max)
      violation("StartTraceW(%s): BufferSize %lu KB is outside 4..%lu on this Windows", c->name,
                (unsigned long)p->BufferSize, (unsigned long)max);
  }
  if (p->MinimumBuffers < 2 || p->MaximumBuffers < p->MinimumBuffers)
    violation("StartTraceW(%s): MinimumBuffers %lu / MaximumBuffers %lu", c->name,
              (unsigned long)p->MinimumBuffers, (unsigned long)p->MaximumBuffers);
  file_modes = p->LogFileMode & (EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_CIRCULAR |
                                 EVENT_TRACE_FILE_MODE_NEWFILE);
  if (file_modes && (file_modes & (file_modes - 1)))
    violation("StartTraceW(%s): LogFileMode 0x%lx has more than one file mode", c->name,
              (unsigned long)p->LogFileMode);
  if ((p->LogFileMode & EVENT_TRACE_FILE_MODE_CIRCULAR) && !p->MaximumFileSize)
    violation("StartTraceW(%s): FILE_MODE_CIRCULAR needs MaximumFileSize", c->name);
  if (file_modes && !c->file[0])
    violation("StartTraceW(%s): a file mode without LogFileName", c->name);
  if ((p->LogFileMode & EVENT_TRACE_BUFFERING_MODE) && (file_modes || p->LogFileNameOffset))
    violation("StartTraceW(%s): BUFFERING_MODE with a file", c->name);
  if (!file_modes && !(p->LogFileMode & (EVENT_TRACE_REAL_TIME_MODE | EVENT_TRACE_BUFFERING_MODE)))
    violation("StartTraceW(%s): LogFileMode 0x%lx names no destination", c->name,
              (unsigned long)p->LogFileMode);
  if (c->file[0] && !absolute(c->file))
    violation("StartTraceW(%s): LogFileName '%s' is not absolute", c->name, c->file);
  /* "Configuring and Starting the NT Kernel Logger Session": Wnode.Guid is
   * SystemTraceControlGuid, EnableFlags names the kernel events. */
  if (!_stricmp(c->name, "NT Kernel Logger")) {
    if (memcmp(&p->Wnode.Guid, &system_trace_control_guid, sizeof(GUID)) != 0)
      violation("StartTraceW(NT Kernel Logger): Wnode.Guid is not SystemTraceControlGuid");
    if (!p->EnableFlags)
      violation("StartTraceW(NT Kernel Logger): EnableFlags is 0");
    if (p->LogFileMode & EVENT_TRACE_SYSTEM_LOGGER_MODE)
      violation("StartTraceW(NT Kernel Logger): SYSTEM_LOGGER_MODE on the kernel logger");
  } else if (p->LogFileMode & EVENT_TRACE_SYSTEM_LOGGER_MODE) {
    /* "Configuring and Starting a SystemTraceProvider Session": Windows 8
     * and later; "Make sure the Wnode.Guid member ... is not set to
     * SystemTraceControlGuid. You must assign a new GUID to this member";
     * EnableFlags may be given at start (`tracelog -start MySession ...
     * -eflag PROC_THREAD+LOADER+CSWITCH`). */
    static const GUID zero_guid;
    size_t i;
    if (!os_at_least(6, 2, 0))
      violation("StartTraceW(%s): SYSTEM_LOGGER_MODE before Windows 8", c->name);
    if (!memcmp(&p->Wnode.Guid, &system_trace_control_guid, sizeof(GUID)) ||
        !memcmp(&p->Wnode.Guid, &zero_guid, sizeof(GUID)))
      violation("StartTraceW(%s): a system logger needs a new Wnode.Guid", c->name);
    for (i = 0; i < F.session_count; i++)
      if (!memcmp(&F.sessions[i].wnode_guid, &p->Wnode.Guid, sizeof(GUID)))
        violation("StartTraceW(%s): Wnode.Guid is the one of '%s' (not new)", c->name,
                  F.sessions[i].name);
  } else if (!memcmp(&p->Wnode.Guid, &heap_provider_guid, sizeof(GUID))) {
    check_heap_extension(c, p);
  } else {
    /* EVENT_TRACE_PROPERTIES.EnableFlags: flags for the kernel events of
     * "the NT Kernel Logger session" (and system loggers). */
    if (!memcmp(&p->Wnode.Guid, &system_trace_control_guid, sizeof(GUID)))
      violation("StartTraceW(%s): SystemTraceControlGuid on a session that is not the NT "
                "Kernel Logger",
                c->name);
    if (p->EnableFlags)
      violation("StartTraceW(%s): EnableFlags 0x%lx on a session that is no kernel session",
                c->name, (unsigned long)p->EnableFlags);
  }
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_START_TRACE, c->name, -1, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  load_state();
  if (find(c->name))
    return finish(c, ERROR_ALREADY_EXISTS);
  if (F.session_count == FAKE_ADVAPI_MAX_SESSIONS)
    return finish(c, ERROR_NO_SYSTEM_RESOURCES);
  s = &F.sessions[F.session_count++];
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", c->name);
  snprintf(s->file, sizeof(s->file), "%s", c->file);
  s->handle = ++F.next_handle + 0x7000;
  s->log_file_mode = p->LogFileMode;
  s->buffer_size = p->BufferSize;
  s->minimum_buffers = p->MinimumBuffers;
  s->maximum_buffers = p->MaximumBuffers;
  s->maximum_file_size = p->MaximumFileSize;
  s->flush_timer = p->FlushTimer;
  s->enable_flags = p->EnableFlags;
  s->client_context = p->Wnode.ClientContext;
  s->wnode_guid = p->Wnode.Guid;
  if (!c->heap) /* a heap session's EnableFlags point at its extension block */
    groups_of_flags(p->EnableFlags, s->group_mask);
  apply_drops(s);
  *handle = s->handle;
  c->handle = s->handle;
  p->Wnode.HistoricalContext = s->handle;
  save_state();
  if (s->file[0])
    fake_etl_write(s->file, s->name, 0, seed_of(s->name)); /* the header, as ETW writes it */
  return finish(c, ERROR_SUCCESS);
}

/* --- ControlTraceW -------------------------------------------------------------- */

/* UPDATE (ControlTraceW, the members UPDATE may change): a new LogFileName
 * switches the file, what was written so far staying in the old one; on a
 * system logger EnableFlags are "the system providers that you want to
 * enable or keep enabled" and 0 "disable[s] all system providers", so the
 * session's groups become those of the flags given (keyword enables of the
 * System Providers included: they are system providers too); EnableFlags
 * "may be non-zero only for system loggers". */
static void update_session(const struct fake_advapi_call *c, struct fake_advapi_session *s,
                           ULONG enable_flags)
{
  int system_logger = (s->log_file_mode & EVENT_TRACE_SYSTEM_LOGGER_MODE) ||
                      !_stricmp(s->name, "NT Kernel Logger");
  if (enable_flags && !system_logger)
    violation("ControlTraceW(%s, UPDATE): EnableFlags 0x%lx on a session that is no system "
              "logger",
              c->name, (unsigned long)enable_flags);
  if (system_logger) {
    memset(s->group_mask, 0, sizeof(s->group_mask));
    groups_of_flags(enable_flags, s->group_mask);
    apply_drops(s);
  }
  if (c->file[0] && strcmp(c->file, s->file) != 0) {
    if (s->file[0])
      fake_etl_write(s->file, s->name, 5, seed_of(s->name));
    snprintf(s->file, sizeof(s->file), "%s", c->file);
    fake_etl_write(s->file, s->name, 0, seed_of(s->name));
  }
  save_state();
}

static ULONG WINAPI fake_control_trace(TRACEHANDLE handle, LPCWSTR name,
                                       PEVENT_TRACE_PROPERTIES p, ULONG code_in)
{
  struct fake_advapi_call *c = new_call(FAKE_CONTROL_TRACE);
  struct fake_advapi_session *s;
  ULONG code;
  utf8_name(name, c->name, sizeof(c->name));
  c->handle = handle;
  c->control_code = code_in;
  if (!p) {
    violation("ControlTraceW(%s): Properties is NULL", c->name);
    return finish(c, ERROR_INVALID_PARAMETER);
  }
  if (!handle && !name)
    violation("ControlTraceW: neither a handle nor a name");
  if (code_in > EVENT_TRACE_CONTROL_FLUSH)
    violation("ControlTraceW(%s): control code %lu", c->name, (unsigned long)code_in);
  /* QUERY and STOP return the names: room for both (ControlTraceW docs). */
  decode_props("ControlTraceW", c, p, code_in != EVENT_TRACE_CONTROL_FLUSH);
  if ((code_in == EVENT_TRACE_CONTROL_FLUSH || code_in == EVENT_TRACE_CONTROL_UPDATE) &&
      p->LogFileNameOffset)
    string_at("ControlTraceW", "LogFileName", p, p->LogFileNameOffset, c->file,
              sizeof(c->file));
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_CONTROL_TRACE, c->name, -1, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  load_state();
  s = handle ? by_handle(handle) : find(c->name);
  if (!s)
    return finish(c, ERROR_WMI_INSTANCE_NOT_FOUND);
  if (code_in == EVENT_TRACE_CONTROL_UPDATE)
    update_session(c, s, p->EnableFlags);
  fill_props(p, s);
  if (code_in == EVENT_TRACE_CONTROL_STOP) {
    if (s->file[0])
      fake_etl_write(s->file, s->name, 5, seed_of(s->name));
    remove_session(s);
    save_state();
  } else if (code_in == EVENT_TRACE_CONTROL_FLUSH && s->file[0]) {
    /* A file session's buffers go to its own file; a FLUSH names no new
     * one (ControlTraceW: FLUSH "flushes the session's active buffers"). */
    fake_etl_write(s->file, s->name, 5, seed_of(s->name));
  } else if (code_in == EVENT_TRACE_CONTROL_FLUSH && c->file[0] &&
             (s->log_file_mode & EVENT_TRACE_BUFFERING_MODE)) {
    /* Only an in-memory (buffering) session writes its buffers to the file
     * given with FLUSH (TraceEventSession.SetFileName: for "a in-memory
     * circular buffer session ... simply writes the snapshot to the file"). */
    fake_etl_write(c->file, s->name, 5, seed_of(s->name));
  }
  return finish(c, ERROR_SUCCESS);
}

/* --- EnableTraceEx2 ------------------------------------------------------------- */

#define KNOWN_PROPERTIES                                                                     \
  (EVENT_ENABLE_PROPERTY_SID | EVENT_ENABLE_PROPERTY_TS_ID | EVENT_ENABLE_PROPERTY_STACK_TRACE | \
   EVENT_ENABLE_PROPERTY_ENABLE_SILOS | EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING)

/* EnableProperty bits this Windows lacks.  ASSUMED (docs/win32-contract.md
 * §5.5, §16 item 8): ENABLE_TRACE_PARAMETERS says SID, TS_ID, STACK_TRACE
 * since Windows 7 and IGNORE_KEYWORD_0 .. EXCLUDE_INPRIVATE (0x10..0x200)
 * "Supported on Windows 10, version 1507 and later", but some of them are
 * "also supported on Windows 8.1 and Windows 7 with SP1 through a patch", and
 * the error an unpatched system returns is not documented;
 * ERROR_INVALID_PARAMETER is this model's guess.  The page gives no version
 * for ENABLE_SILOS and SOURCE_CONTAINER_TRACKING: build 14393 (the first
 * Windows with containers) is inferred. */
static ULONG missing_properties(ULONG property)
{
  ULONG missing = 0;
  if (!os_at_least(10, 0, 10240))
    missing |= property & 0x3F0u;
  if (!os_at_least(10, 0, 14393))
    missing |= property & (EVENT_ENABLE_PROPERTY_ENABLE_SILOS |
                           EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING);
  return missing;
}

/* EnableTraceEx2 remarks: "Up to eight trace sessions can enable and
 * receive events from the same manifest-based provider"; the ninth gets
 * ERROR_NO_SYSTEM_RESOURCES ("Exceeded the number of trace sessions that
 * can enable the provider"). */
static int provider_full(const GUID *g)
{
  size_t i;
  for (i = 0; i < F.taken_count; i++)
    if (!memcmp(&F.taken[i].guid, g, sizeof(*g)))
      return F.taken[i].count >= 8;
  return 0;
}

static void check_filter(const struct fake_advapi_call *c, const EVENT_FILTER_DESCRIPTOR *d,
                         ULONG version)
{
  const unsigned char *data = (const unsigned char *)(uintptr_t)d->Ptr;
  if (!d->Ptr || !d->Size) {
    violation("EnableTraceEx2(%s): descriptor type 0x%lx with no data", c->name,
              (unsigned long)d->Type);
    return;
  }
  switch (d->Type) {
  case EVENT_FILTER_TYPE_NONE:
  case 0xFFFFFFFFu: /* provider data, Update or SendManifest */
    if (d->Size > MAX_EVENT_FILTER_DATA_SIZE)
      violation("EnableTraceEx2(%s): provider data of %lu bytes (at most %d)", c->name,
                (unsigned long)d->Size, MAX_EVENT_FILTER_DATA_SIZE);
    break;
  case EVENT_FILTER_TYPE_PID:
    if (version < 2)
      violation("EnableTraceEx2(%s): a PID filter needs ENABLE_TRACE_PARAMETERS_VERSION_2",
                c->name);
    if (d->Size % sizeof(ULONG) || d->Size / sizeof(ULONG) > MAX_EVENT_FILTER_PID_COUNT)
      violation("EnableTraceEx2(%s): PID filter of %lu bytes (ULONGs, at most %d)", c->name,
                (unsigned long)d->Size, MAX_EVENT_FILTER_PID_COUNT);
    break;
  case EVENT_FILTER_TYPE_EXECUTABLE_NAME:
    if (version < 2)
      violation("EnableTraceEx2(%s): an exe filter needs ENABLE_TRACE_PARAMETERS_VERSION_2",
                c->name);
    if (d->Size % 2 || d->Size >= MAX_EVENT_FILTER_DATA_SIZE || data[d->Size - 1] ||
        data[d->Size - 2])
      violation("EnableTraceEx2(%s): exe-name filter of %lu bytes is not NUL-terminated UTF-16 "
                "under 1024 bytes",
                c->name, (unsigned long)d->Size);
    break;
  case EVENT_FILTER_TYPE_EVENT_ID:
  case EVENT_FILTER_TYPE_STACKWALK: {
    /* EVENT_FILTER_EVENT_ID: BOOLEAN FilterIn, UCHAR Reserved, USHORT Count,
     * USHORT Events[Count]. */
    unsigned count = d->Size >= 4 ? (unsigned)(data[2] | data[3] << 8) : 0;
    if (version < 2)
      violation("EnableTraceEx2(%s): an event-id filter needs VERSION_2", c->name);
    if (d->Size < 6 || d->Size != 4 + 2 * count || count > 64 || data[0] > 1)
      violation("EnableTraceEx2(%s): event-id filter of %lu bytes for %u ids", c->name,
                (unsigned long)d->Size, count);
    break;
  }
  default:
    violation("EnableTraceEx2(%s): unexpected filter type 0x%lx", c->name,
              (unsigned long)d->Type);
  }
}

static ULONG WINAPI fake_enable_trace_ex2(TRACEHANDLE handle, LPCGUID provider, ULONG code_in,
                                          UCHAR level, ULONGLONG any, ULONGLONG all,
                                          ULONG timeout, PENABLE_TRACE_PARAMETERS params)
{
  static const GUID zero;
  struct fake_advapi_call *c = new_call(FAKE_ENABLE_TRACE_EX2);
  struct fake_advapi_session *s;
  ULONG code, i, j;
  load_state();
  s = by_handle(handle);
  snprintf(c->name, sizeof(c->name), "%s", s ? s->name : "?");
  c->handle = handle;
  c->control_code = code_in;
  c->level = level;
  c->any = any;
  c->all = all;
  c->timeout = timeout;
  if (provider)
    c->provider = *provider;
  if (!provider || !memcmp(provider, &zero, sizeof(zero)))
    violation("EnableTraceEx2(%s): no provider GUID", c->name);
  if (code_in > EVENT_CONTROL_CODE_CAPTURE_STATE)
    violation("EnableTraceEx2(%s): control code %lu", c->name, (unsigned long)code_in);
  if (!params) {
    violation("EnableTraceEx2(%s): no ENABLE_TRACE_PARAMETERS", c->name);
  } else {
    const EVENT_FILTER_DESCRIPTOR *d = params->EnableFilterDesc;
    ULONG count;
    c->version = params->Version;
    c->enable_property = params->EnableProperty;
    if (params->Version != ENABLE_TRACE_PARAMETERS_VERSION &&
        params->Version != ENABLE_TRACE_PARAMETERS_VERSION_2)
      violation("EnableTraceEx2(%s): ENABLE_TRACE_PARAMETERS.Version %lu", c->name,
                (unsigned long)params->Version);
    if (params->EnableProperty & ~(ULONG)KNOWN_PROPERTIES)
      violation("EnableTraceEx2(%s): EnableProperty 0x%lx has unknown bits", c->name,
                (unsigned long)params->EnableProperty);
    /* ENABLE_TRACE_PARAMETERS.ControlFlags: "Reserved. Set to 0".  SourceId
     * is the caller's choice (Tracy passes the provider GUID): recorded for
     * the tests, which assert etwcap's zero, not a rule. */
    if (params->ControlFlags)
      violation("EnableTraceEx2(%s): ControlFlags must be 0", c->name);
    c->source_id = params->SourceId;
    /* VERSION 1 has no FilterDescCount: EnableFilterDesc is one descriptor. */
    count = params->Version == ENABLE_TRACE_PARAMETERS_VERSION_2 ? params->FilterDescCount
                                                                 : (d ? 1 : 0);
    if (count && !d)
      violation("EnableTraceEx2(%s): FilterDescCount %lu with no descriptors", c->name,
                (unsigned long)count);
    if (!count && d && params->Version == ENABLE_TRACE_PARAMETERS_VERSION_2)
      violation("EnableTraceEx2(%s): descriptors but FilterDescCount 0", c->name);
    if (count > MAX_EVENT_FILTERS_COUNT)
      violation("EnableTraceEx2(%s): %lu descriptors (at most %d)", c->name,
                (unsigned long)count, MAX_EVENT_FILTERS_COUNT);
    c->filter_count = count;
    for (i = 0; d && i < count && i < FAKE_ADVAPI_MAX_DESCS; i++) {
      check_filter(c, &d[i], params->Version);
      for (j = 0; j < i; j++)
        if (d[j].Type == d[i].Type)
          violation("EnableTraceEx2(%s): filter type 0x%lx given twice", c->name,
                    (unsigned long)d[i].Type);
      c->filters[i].type = d[i].Type;
      c->filters[i].size = d[i].Size;
      if (d[i].Ptr && d[i].Size <= sizeof(c->filters[i].data))
        memcpy(c->filters[i].data, (const void *)(uintptr_t)d[i].Ptr, d[i].Size);
    }
  }
  if (!s)
    violation("EnableTraceEx2: handle 0x%llx is no running session", (unsigned long long)handle);
  if (provider && is_system_provider(provider)) {
    /* System Providers: "Beginning with Windows 10 SDK build 20348";
     * "can only be enabled from a session with the
     * EVENT_TRACE_SYSTEM_LOGGER_MODE set". */
    if (!os_at_least(10, 0, 20348))
      violation("EnableTraceEx2(%s): a System Provider before build 20348", c->name);
    if (s && !(s->log_file_mode & EVENT_TRACE_SYSTEM_LOGGER_MODE))
      violation("EnableTraceEx2(%s): a System Provider in a session without "
                "SYSTEM_LOGGER_MODE",
                c->name);
  }
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_ENABLE_TRACE_EX2, c->name, -1, c->enable_property)) != ERROR_SUCCESS)
    return finish(c, code);
  /* Not among EnableTraceEx2's documented return values: the model's
   * answer for a handle of no session (etwcap treats every failure alike). */
  if (!s)
    return finish(c, ERROR_INVALID_HANDLE);
  if (missing_properties(c->enable_property))
    return finish(c, ERROR_INVALID_PARAMETER);
  if (provider && provider_full(provider))
    return finish(c, ERROR_NO_SYSTEM_RESOURCES);
  if (provider && is_system_provider(provider) && code_in == EVENT_CONTROL_CODE_ENABLE_PROVIDER) {
    ULONG flags = 0;
    for (i = 0; i < sizeof(system_keywords) / sizeof(system_keywords[0]); i++)
      if (provider->Data1 == system_keywords[i].data1 && (any & system_keywords[i].keyword))
        flags |= system_keywords[i].flag;
    groups_of_flags(flags, s->group_mask);
    apply_drops(s);
    save_state();
  }
  return finish(c, ERROR_SUCCESS);
}

/* --- profile sources ------------------------------------------------------------ */

static struct fake_advapi_source *source_of(ULONG id)
{
  size_t i;
  for (i = 0; i < F.source_count; i++)
    if (F.sources[i].id == id)
      return &F.sources[i];
  return NULL;
}

/* The PROFILE_SOURCE_INFO list (evntrace.h: NextEntryOffset, Source,
 * MinInterval, MaxInterval, Reserved, then Description, a NUL-terminated
 * WCHAR name; NextEntryOffset 0 on the last).  Entries are 8-aligned, for
 * the ULONG64 member.  Too small a buffer: ERROR_BAD_LENGTH with the size
 * needed in ReturnLength, which TraceEvent's GetInfo reads from a first
 * call with no buffer. */
static ULONG query_source_list(void *info, ULONG length, PULONG returned)
{
  BYTE buf[FAKE_ADVAPI_MAX_SOURCES * 96];
  ULONG at = 0, last = 0;
  size_t i, n;
  memset(buf, 0, sizeof(buf));
  for (i = 0; i < F.source_count; i++) {
    PROFILE_SOURCE_INFO *e = (PROFILE_SOURCE_INFO *)(buf + at);
    WCHAR *name = (WCHAR *)(buf + at + offsetof(PROFILE_SOURCE_INFO, Description));
    e->Source = F.sources[i].id;
    e->MinInterval = F.sources[i].min_interval;
    e->MaxInterval = F.sources[i].max_interval;
    for (n = 0; F.sources[i].name[n]; n++)
      name[n] = (WCHAR)(unsigned char)F.sources[i].name[n];
    last = at;
    at += (ULONG)((offsetof(PROFILE_SOURCE_INFO, Description) + (n + 1) * sizeof(WCHAR) + 7) & ~7u);
    e->NextEntryOffset = i + 1 < F.source_count ? at - last : 0;
  }
  if (returned)
    *returned = at;
  if (!info || length < at)
    return ERROR_BAD_LENGTH;
  memcpy(info, buf, at);
  return ERROR_SUCCESS;
}

/* TRACE_PROFILE_INTERVAL in and out: Source says which, Interval is the
 * answer ("Queries the setting for the sampling profile interval for the
 * supplied source", TRACE_QUERY_INFO_CLASS). */
static ULONG query_source_interval(void *info, ULONG length, PULONG returned)
{
  TRACE_PROFILE_INTERVAL *pi = info;
  struct fake_advapi_source *src;
  if (!info || length != sizeof(TRACE_PROFILE_INTERVAL)) {
    violation("TraceQueryInformation(TraceSampledProfileIntervalInfo): %lu bytes "
              "(TRACE_PROFILE_INTERVAL is %lu)", (unsigned long)length,
              (unsigned long)sizeof(TRACE_PROFILE_INTERVAL));
    return ERROR_BAD_LENGTH;
  }
  if (!(src = source_of(pi->Source))) {
    violation("TraceQueryInformation(TraceSampledProfileIntervalInfo): source %lu is not in "
              "the list", (unsigned long)pi->Source);
    return ERROR_INVALID_PARAMETER; /* the model's answer */
  }
  pi->Interval = src->interval;
  if (returned)
    *returned = sizeof(*pi);
  return ERROR_SUCCESS;
}

/* --- TraceSetInformation -------------------------------------------------------- */

static ULONG WINAPI fake_trace_set_information(TRACEHANDLE handle, TRACE_INFO_CLASS cls,
                                               PVOID info, ULONG length)
{
  struct fake_advapi_call *c = new_call(FAKE_TRACE_SET_INFORMATION);
  struct fake_advapi_session *s;
  ULONG code, i;
  load_state();
  s = handle ? by_handle(handle) : NULL;
  snprintf(c->name, sizeof(c->name), "%s", s ? s->name : "");
  c->handle = handle;
  c->info_class = (int)cls;
  c->info_length = length;
  if (info && length <= sizeof(c->info))
    memcpy(c->info, info, length);
  if (!info || !length)
    violation("TraceSetInformation(class %d): no information", (int)cls);
  switch ((int)cls) {
  case TraceStackTracingInfo:
    if (!s)
      violation("TraceStackTracingInfo: handle 0x%llx is no running session",
                (unsigned long long)handle);
    if (length % sizeof(CLASSIC_EVENT_ID) || length / sizeof(CLASSIC_EVENT_ID) > 256)
      violation("TraceStackTracingInfo: %lu bytes is not a list of at most 256 CLASSIC_EVENT_ID",
                (unsigned long)length);
    for (i = 0; info && i < length / sizeof(CLASSIC_EVENT_ID); i++) {
      const CLASSIC_EVENT_ID *id = (const CLASSIC_EVENT_ID *)info + i;
      static const UCHAR zero[7];
      if (memcmp(id->Reserved, zero, sizeof(zero)))
        violation("TraceStackTracingInfo: Reserved bytes of id %lu are not 0", (unsigned long)i);
    }
    break;
  case TraceSystemTraceEnableFlagsInfo:
    if (!s || !(s->log_file_mode & EVENT_TRACE_SYSTEM_LOGGER_MODE))
      violation("TraceSystemTraceEnableFlagsInfo: handle 0x%llx is no system logger",
                (unsigned long long)handle);
    /* A PERFINFO_GROUPMASK, 8 ULONGs (krabsetw perfinfo_groupmask.hpp,
     * PERF_NUM_MASKS 8); a shorter prefix leaves the other words 0. */
    if (length < 4 || length > 32 || length % 4) {
      violation("TraceSystemTraceEnableFlagsInfo: %lu bytes (a PERFINFO_GROUPMASK prefix, 4..32)",
                (unsigned long)length);
    } else if (s) {
      memset(s->group_mask, 0, sizeof(s->group_mask));
      memcpy(s->group_mask, info, length);
      apply_drops(s);
    }
    break;
  case TraceSampledProfileIntervalInfo: {
    const TRACE_PROFILE_INTERVAL *pi = info;
    struct fake_advapi_source *src;
    if (handle)
      violation("TraceSampledProfileIntervalInfo: the interval is machine-wide: handle 0");
    if (length != sizeof(TRACE_PROFILE_INTERVAL)) {
      violation("TraceSampledProfileIntervalInfo: %lu bytes (TRACE_PROFILE_INTERVAL is %lu)",
                (unsigned long)length, (unsigned long)sizeof(TRACE_PROFILE_INTERVAL));
    } else if (pi->Source == 0) {
      /* The range is xperf's (its -SetProfInt help: 1221 to 10000000, in
       * 100 ns); TRACE_PROFILE_INTERVAL's page gives none. */
      if (pi->Interval < 1221 || pi->Interval > 10000000)
        violation("TraceSampledProfileIntervalInfo: source 0, interval %lu (timer 0, "
                  "1221..10000000 x 100 ns)",
                  (unsigned long)pi->Interval);
      else if ((src = source_of(0)) != NULL)
        src->interval = pi->Interval; /* the timer is source 0 of the list too */
    } else if (!(src = source_of(pi->Source))) {
      /* A hardware counter: "Source: the profile source" of the list
       * TraceProfileSourceListInfo returns (TRACE_PROFILE_INTERVAL). */
      violation("TraceSampledProfileIntervalInfo: source %lu is not in the machine's "
                "TraceProfileSourceListInfo", (unsigned long)pi->Source);
    } else if (pi->Interval < src->min_interval || pi->Interval > src->max_interval) {
      /* PROFILE_SOURCE_INFO: MinInterval, MaxInterval bound the interval. */
      violation("TraceSampledProfileIntervalInfo: source %lu interval %lu outside %lu..%lu",
                (unsigned long)pi->Source, (unsigned long)pi->Interval,
                (unsigned long)src->min_interval, (unsigned long)src->max_interval);
    } else {
      src->interval = pi->Interval;
    }
    break;
  }
  case TraceProfileSourceConfigInfo:
    /* "Configures the list of profiling sources that will be collected when
     * the performance monitoring counter profile event fires"; Windows 8
     * and later (TRACE_QUERY_INFO_CLASS).  An array of ULONG source ids
     * (TraceEvent's TraceEventProfileSources.Set passes int[]), each one
     * of TraceProfileSourceListInfo's. */
    if (!os_at_least(6, 2, 0))
      violation("TraceProfileSourceConfigInfo: Windows 8 or later");
    if (handle && !s)
      violation("TraceProfileSourceConfigInfo: handle 0x%llx is no running session",
                (unsigned long long)handle);
    if (!length || length % sizeof(ULONG))
      violation("TraceProfileSourceConfigInfo: %lu bytes is not an array of ULONG",
                (unsigned long)length);
    for (i = 0; info && i < length / sizeof(ULONG); i++)
      if (!source_of(((const ULONG *)info)[i]))
        violation("TraceProfileSourceConfigInfo: source %lu is not in the machine's list",
                  (unsigned long)((const ULONG *)info)[i]);
    break;
  case 20: /* TraceLbrConfigurationInfo */
    /* "Enables Last Branch Record tracing for the given session, and
     * configures corresponding LBR filters"; Windows 10 19H1 (build 18362)
     * and later (TRACE_QUERY_INFO_CLASS).  One ULONG of filter flags
     * (TraceEvent EnableLastBranchRecordingIfConfigured; LbrFilterFlags
     * defines bits 0..9). */
    if (!os_at_least(10, 0, 18362)) {
      violation("TraceLbrConfigurationInfo: needs Windows 10 19H1 (build 18362)");
      return finish(c, ERROR_NOT_SUPPORTED); /* the model's answer */
    }
    if (!s)
      violation("TraceLbrConfigurationInfo: handle 0x%llx is no running session",
                (unsigned long long)handle);
    if (length != sizeof(ULONG))
      violation("TraceLbrConfigurationInfo: %lu bytes (one ULONG)", (unsigned long)length);
    else if (*(const ULONG *)info & ~0x3FFul)
      violation("TraceLbrConfigurationInfo: filter bits 0x%lx outside LbrFilterFlags",
                (unsigned long)*(const ULONG *)info);
    F.lbr_configured = handle;
    break;
  case 21: /* TraceLbrEventListInfo */
    /* "Configures the list of events that will trigger ETW to trace Last
     * Branch Record information as configured by TraceLbrConfigurationInfo"
     * (so after it, on the same session); at most 4 ULONG event ids
     * (TraceEvent: ETW_MAX_LBR_EVENTS = 4). */
    if (!os_at_least(10, 0, 18362)) {
      violation("TraceLbrEventListInfo: needs Windows 10 19H1 (build 18362)");
      return finish(c, ERROR_NOT_SUPPORTED);
    }
    if (!s || F.lbr_configured != handle)
      violation("TraceLbrEventListInfo: session 0x%llx has no TraceLbrConfigurationInfo yet",
                (unsigned long long)handle);
    if (!length || length % sizeof(ULONG) || length / sizeof(ULONG) > 4)
      violation("TraceLbrEventListInfo: %lu bytes (1 to 4 ULONG)", (unsigned long)length);
    break;
  case 24: /* TraceStackCachingInfo */
    if (!s)
      violation("TraceStackCachingInfo: handle 0x%llx is no running session",
                (unsigned long long)handle);
    /* No rule on the sizes: WPR's XML requires them, the API documents
     * neither them nor their unit, and PerfView's working call passes
     * Enabled 1 with both 0 (TraceEventSession.cs; docs/win32-contract.md
     * §7.4). */
    if (length != sizeof(ETWCAP_TRACE_STACK_CACHING_INFO))
      violation("TraceStackCachingInfo: %lu bytes (TRACE_STACK_CACHING_INFO is %lu)",
                (unsigned long)length, (unsigned long)sizeof(ETWCAP_TRACE_STACK_CACHING_INFO));
    break;
  default:
    violation("TraceSetInformation: class %d is not one etwcap uses", (int)cls);
  }
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_TRACE_SET_INFORMATION, c->name, (int)cls, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  save_state();
  return finish(c, ERROR_SUCCESS);
}

/* --- TraceQueryInformation ---------------------------------------------------------- */

/* TraceQueryInformation (Windows 8 and later, its documented minimum; the
 * table entry is NULL before): TraceSystemTraceEnableFlagsInfo returns the
 * session's group mask, 8 ULONGs. */
static ULONG WINAPI fake_trace_query_information(TRACEHANDLE handle, TRACE_INFO_CLASS cls,
                                                 PVOID info, ULONG length, PULONG returned)
{
  struct fake_advapi_call *c = new_call(FAKE_TRACE_QUERY_INFORMATION);
  struct fake_advapi_session *s;
  ULONG code;
  load_state();
  s = handle ? by_handle(handle) : NULL;
  snprintf(c->name, sizeof(c->name), "%s", s ? s->name : "");
  c->handle = handle;
  c->info_class = (int)cls;
  c->info_length = length;
  if (F.query_raises) {
    /* Wine 8: "Call ... to unimplemented function TraceQueryInformation,
     * aborting" — a non-continuable exception (docs/building.md §2.2). */
    finish(c, ERROR_CALL_NOT_IMPLEMENTED);
    RaiseException(0x80000100, EXCEPTION_NONCONTINUABLE, 0, NULL);
  }
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_TRACE_QUERY_INFORMATION, c->name, (int)cls, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  if ((int)cls == TraceProfileSourceListInfo)
    return finish(c, query_source_list(info, length, returned));
  if ((int)cls == TraceSampledProfileIntervalInfo)
    return finish(c, query_source_interval(info, length, returned));
  if ((int)cls != TraceSystemTraceEnableFlagsInfo) {
    violation("TraceQueryInformation: class %d is not modelled", (int)cls);
    return finish(c, ERROR_NOT_SUPPORTED);
  }
  if (!s) /* the model's answer; TraceQueryInformation documents no code for it */
    return finish(c, ERROR_INVALID_HANDLE);
  if (!info || length < sizeof(s->group_mask)) {
    if (returned)
      *returned = sizeof(s->group_mask);
    return finish(c, ERROR_BAD_LENGTH);
  }
  memcpy(info, s->group_mask, sizeof(s->group_mask));
  memcpy(c->info, s->group_mask, sizeof(s->group_mask)); /* what it answered, for the tests */
  if (returned)
    *returned = F.group_mask_answer ? F.group_mask_answer : (ULONG)sizeof(s->group_mask);
  return finish(c, ERROR_SUCCESS);
}

/* --- EnumerateTraceGuidsEx ------------------------------------------------------- */

/* Enables of `provider` now, as the registration of process `process` (1..,
 * or 0 for a provider no process registered) sees them: other tools'
 * (fake_advapi32_provider_keyword, for every registration or for one) and
 * each successful EnableTraceEx2(ENABLE_PROVIDER) of a session that still
 * runs.  Up to `max` MatchAllKeyword values to `all`. */
static size_t enables_of(const GUID *provider, unsigned process, ULONGLONG *all, size_t max)
{
  size_t i, n = 0;
  for (i = 0; i < F.keyword_count && n < max; i++)
    if (!memcmp(&F.keywords[i].guid, provider, sizeof(*provider)) &&
        (!F.keywords[i].process || F.keywords[i].process == process))
      all[n++] = F.keywords[i].all;
  for (i = 0; i < F.call_count && n < max; i++) {
    const struct fake_advapi_call *c = &F.calls[i];
    if (c->api == FAKE_ENABLE_TRACE_EX2 && c->result == ERROR_SUCCESS &&
        c->control_code == EVENT_CONTROL_CODE_ENABLE_PROVIDER && by_handle(c->handle) &&
        !memcmp(&c->provider, provider, sizeof(*provider)))
      all[n++] = c->all;
  }
  return n;
}

static unsigned registrations_of(const GUID *provider)
{
  size_t i;
  for (i = 0; i < F.registered_count; i++)
    if (!memcmp(&F.registered[i].guid, provider, sizeof(*provider)))
      return F.registered[i].count;
  return 0;
}

#define FAKE_ENABLES_MAX 16

/* The instances of `provider` into `b` (when not NULL); returns the bytes
 * they take.  One per registering process (Pid 4001, 4002, ...), each with
 * the enables its registration sees; with no registration, one PRE_ENABLE
 * instance (Pid 0) when a session enables it, none otherwise. */
static size_t provider_instances(const GUID *provider, unsigned char *b, ULONG *count)
{
  ULONGLONG all[FAKE_ENABLES_MAX];
  unsigned k, processes = registrations_of(provider), last = processes ? processes : 1;
  size_t at = sizeof(TRACE_GUID_INFO), n, i;
  *count = 0;
  for (k = processes ? 1 : 0; k <= processes; k++) {
    TRACE_PROVIDER_INSTANCE_INFO *inst = b ? (TRACE_PROVIDER_INSTANCE_INFO *)(void *)(b + at)
                                           : NULL;
    n = enables_of(provider, k, all, FAKE_ENABLES_MAX);
    if (!processes && !n)
      break;
    (*count)++;
    if (inst) {
      inst->NextOffset = k == last || !processes
                             ? 0
                             : (ULONG)(sizeof(*inst) + n * sizeof(TRACE_ENABLE_INFO));
      inst->EnableCount = (ULONG)n;
      inst->Pid = processes ? 4000 + k : 0;
      inst->Flags = processes ? 0 : TRACE_PROVIDER_FLAG_PRE_ENABLE;
    }
    at += sizeof(TRACE_PROVIDER_INSTANCE_INFO);
    for (i = 0; i < n; i++, at += sizeof(TRACE_ENABLE_INFO)) {
      TRACE_ENABLE_INFO *e = b ? (TRACE_ENABLE_INFO *)(void *)(b + at) : NULL;
      if (e) {
        e->IsEnabled = 1;
        e->MatchAllKeyword = all[i];
      }
    }
  }
  return at;
}

/* TraceGuidQueryInfo: InBuffer a provider GUID; the answer a
 * TRACE_GUID_INFO, then a TRACE_PROVIDER_INSTANCE_INFO per registration of
 * the provider (one per process that registered it), each followed by a
 * TRACE_ENABLE_INFO per session that enables it, NextOffset from the
 * instance's start to the next, 0 on the last (evntrace.h, TraceGuidQueryInfo:
 * "a GUID with two provider registrations, the first enabled by two loggers
 * and the second by three"; TRACE_PROVIDER_INSTANCE_INFO).  Enabled but not
 * registered: one instance flagged TRACE_PROVIDER_FLAG_PRE_ENABLE ("The
 * provider is not registered; however, one or more sessions have enabled
 * the provider").  A buffer too small gets ERROR_INSUFFICIENT_BUFFER and the
 * size in ReturnLength (EnumerateTraceGuidsEx).  A GUID neither registered
 * nor enabled: ERROR_WMI_GUID_NOT_FOUND, the model's answer (the page lists
 * no code for it). */
static ULONG WINAPI fake_enumerate_trace_guids_ex(TRACE_QUERY_INFO_CLASS cls, PVOID in,
                                                  ULONG in_size, PVOID out, ULONG out_size,
                                                  PULONG returned)
{
  struct fake_advapi_call *c = new_call(FAKE_ENUMERATE_TRACE_GUIDS_EX);
  size_t need;
  ULONG code, instances;
  c->info_class = (int)cls;
  c->info_length = out_size;
  if (F.enumerate_raises) {
    finish(c, ERROR_CALL_NOT_IMPLEMENTED);
    RaiseException(0x80000100, EXCEPTION_NONCONTINUABLE, 0, NULL);
  }
  if (cls != TraceGuidQueryInfo) {
    violation("EnumerateTraceGuidsEx: class %d is not modelled", (int)cls);
    return finish(c, ERROR_NOT_SUPPORTED);
  }
  if (!in || in_size != sizeof(GUID) || !returned) {
    violation("EnumerateTraceGuidsEx(TraceGuidQueryInfo): InBuffer must be one GUID and "
              "ReturnLength given");
    return finish(c, ERROR_INVALID_PARAMETER);
  }
  c->provider = *(const GUID *)in;
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_ENUMERATE_TRACE_GUIDS_EX, NULL, -1, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  load_state();
  need = provider_instances(in, NULL, &instances);
  if (!instances)
    return finish(c, ERROR_WMI_GUID_NOT_FOUND);
  *returned = (ULONG)need;
  if (!out || out_size < need)
    return finish(c, ERROR_INSUFFICIENT_BUFFER);
  memset(out, 0, need);
  provider_instances(in, out, &instances);
  ((TRACE_GUID_INFO *)out)->InstanceCount = instances;
  return finish(c, ERROR_SUCCESS);
}

/* --- QueryAllTracesW ------------------------------------------------------------- */

static ULONG WINAPI fake_query_all_traces(PEVENT_TRACE_PROPERTIES *props, ULONG count,
                                          PULONG found)
{
  struct fake_advapi_call *c = new_call(FAKE_QUERY_ALL_TRACES);
  ULONG code, i, n = 0;
  c->array_count = count;
  if (!props || !found || !count) {
    violation("QueryAllTracesW: NULL array or count");
    return finish(c, ERROR_INVALID_PARAMETER);
  }
  if (count > 64)
    violation("QueryAllTracesW: PropertyArrayCount %lu (at most 64)", (unsigned long)count);
  for (i = 0; i < count; i++) {
    if (!props[i]) {
      violation("QueryAllTracesW: element %lu is NULL", (unsigned long)i);
      return finish(c, ERROR_INVALID_PARAMETER);
    }
    if (i == 0)
      decode_props("QueryAllTracesW", c, props[i], 1);
  }
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_QUERY_ALL_TRACES, NULL, -1, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  load_state();
  for (i = 0; i < F.session_count && n < count; i++)
    fill_props(props[n++], &F.sessions[i]);
  *found = n;
  return finish(c, F.session_count > count ? ERROR_MORE_DATA : ERROR_SUCCESS);
}

/* --- privileges ------------------------------------------------------------------ */

static ULONG fake_enable_privilege(LPCWSTR privilege)
{
  struct fake_advapi_call *c = new_call(FAKE_ENABLE_PRIVILEGE);
  ULONG code;
  utf8_name(privilege, c->name, sizeof(c->name));
  if (F.on_call)
    F.on_call(F.on_call_ctx, c);
  if ((code = scripted(FAKE_ENABLE_PRIVILEGE, NULL, -1, 0)) != ERROR_SUCCESS)
    return finish(c, code);
  return finish(c, ERROR_SUCCESS);
}

static struct controller_advapi fake_table = {
  fake_start_trace,      fake_control_trace,    fake_enable_trace_ex2,
  fake_trace_set_information, fake_query_all_traces, fake_trace_query_information,
  fake_enumerate_trace_guids_ex, fake_enable_privilege,
};

/* --- the test's side ------------------------------------------------------------- */

void fake_advapi32_set_os(unsigned major, unsigned minor, unsigned build)
{
  F.os_major = major;
  F.os_minor = minor;
  F.os_build = build;
  fake_table.trace_query_information = os_at_least(6, 2, 0) ? fake_trace_query_information : NULL;
}

void fake_advapi32_query_raises(int on)
{
  F.query_raises = on;
}

void fake_advapi32_provider_taken(const GUID *provider, unsigned count)
{
  if (F.taken_count < sizeof(F.taken) / sizeof(F.taken[0])) {
    F.taken[F.taken_count].guid = *provider;
    F.taken[F.taken_count++].count = count;
  }
}

void fake_advapi32_provider_keyword(const GUID *provider, ULONGLONG match_all)
{
  fake_advapi32_provider_keyword_in(provider, match_all, 0);
}

void fake_advapi32_provider_keyword_in(const GUID *provider, ULONGLONG match_all,
                                       unsigned process)
{
  if (F.keyword_count < sizeof(F.keywords) / sizeof(F.keywords[0])) {
    F.keywords[F.keyword_count].guid = *provider;
    F.keywords[F.keyword_count].process = process;
    F.keywords[F.keyword_count++].all = match_all;
  }
}

void fake_advapi32_provider_registered(const GUID *provider, unsigned processes)
{
  if (F.registered_count < sizeof(F.registered) / sizeof(F.registered[0])) {
    F.registered[F.registered_count].guid = *provider;
    F.registered[F.registered_count++].count = processes;
  }
}

void fake_advapi32_group_mask_answer(ULONG bytes)
{
  F.group_mask_answer = bytes;
}

void fake_advapi32_enumerate_raises(int on)
{
  F.enumerate_raises = on;
}

void fake_advapi32_drop_groups(const ULONG mask[FAKE_GROUP_WORDS])
{
  memcpy(F.drop_groups, mask, sizeof(F.drop_groups));
}

const ULONG *fake_advapi32_group_mask(const char *name)
{
  struct fake_advapi_session *s;
  load_state();
  s = find(name);
  return s ? s->group_mask : NULL;
}

void fake_advapi32_install(const char *state_file)
{
  etwcap_free(F.history);
  memset(&F, 0, sizeof(F));
  fake_advapi32_set_os(10, 0, 20348);
  fake_advapi32_set_sources(fake_advapi32_default_sources, FAKE_ADVAPI_DEFAULT_SOURCES);
  if (state_file) {
    snprintf(F.state_file, sizeof(F.state_file), "%s", state_file);
    load_state();
  }
  controller_win32_set_advapi(&fake_table);
}

/* A model machine's sources: ids are KPROFILE_SOURCE's (wdm.h:
 * ProfileTime 0, ProfileTotalIssues 2, ProfileBranchInstructions 6,
 * ProfileCacheMisses 10, ProfileBranchMispredictions 11, ProfileTotalCycles
 * 19), names as Windows lists them, the timer's bounds xperf's (1221 to
 * 10000000) and the counters' minimum 4096 ("typically 4K", TraceEvent's
 * ProfileSourceInfo.MinInterval). */
const struct fake_advapi_source fake_advapi32_default_sources[FAKE_ADVAPI_DEFAULT_SOURCES] = {
  { "Timer", 0, 10000, 1221, 10000000 },
  { "TotalIssues", 2, 65536, 4096, 0x7FFFFFFF },
  { "BranchInstructions", 6, 65536, 4096, 0x7FFFFFFF },
  { "CacheMisses", 10, 65536, 4096, 0x7FFFFFFF },
  { "BranchMispredictions", 11, 65536, 4096, 0x7FFFFFFF },
  { "TotalCycles", 19, 65536, 4096, 0x7FFFFFFF },
};

void fake_advapi32_set_sources(const struct fake_advapi_source *list, size_t count)
{
  F.source_count = count < FAKE_ADVAPI_MAX_SOURCES ? count : FAKE_ADVAPI_MAX_SOURCES;
  memcpy(F.sources, list, F.source_count * sizeof(*list));
}

const struct fake_advapi_source *fake_advapi32_source(ULONG id)
{
  return source_of(id);
}

void fake_advapi32_uninstall(void)
{
  controller_win32_set_advapi(NULL);
  etwcap_free(F.history);
  F.history = NULL;
}

void fake_advapi32_fail(enum fake_api api, const char *name, ULONG code, int info_class,
                        ULONG property_mask, int times)
{
  struct script_fail *x = &F.fails[F.fail_count < 16 ? F.fail_count++ : 15];
  memset(x, 0, sizeof(*x));
  x->api = api;
  snprintf(x->name, sizeof(x->name), "%s", name ? name : "");
  x->code = code;
  x->info_class = info_class;
  x->property_mask = property_mask;
  x->times = times;
}

void fake_advapi32_on_call(void (*fn)(void *ctx, const struct fake_advapi_call *call), void *ctx)
{
  F.on_call = fn;
  F.on_call_ctx = ctx;
}

void fake_advapi32_add_foreign(const char *name)
{
  struct fake_advapi_session *s = &F.sessions[F.session_count++];
  memset(s, 0, sizeof(*s));
  snprintf(s->name, sizeof(s->name), "%s", name);
  s->handle = ++F.next_handle + 0x7000;
  s->log_file_mode = EVENT_TRACE_REAL_TIME_MODE;
  s->buffer_size = 64;
  s->minimum_buffers = 64;
  s->maximum_buffers = 90;
  s->client_context = 1;
  s->foreign = 1;
  save_state();
}

size_t fake_advapi32_call_count(void)
{
  return F.call_count;
}

const struct fake_advapi_call *fake_advapi32_call(size_t i)
{
  return i < F.call_count ? &F.calls[i] : NULL;
}

size_t fake_advapi32_violation_count(void)
{
  return F.violation_count;
}

const char *fake_advapi32_violation(size_t i)
{
  return i < F.violation_count ? F.violations[i] : NULL;
}

size_t fake_advapi32_running(void)
{
  size_t i, n = 0;
  load_state();
  for (i = 0; i < F.session_count; i++)
    if (!F.sessions[i].foreign)
      n++;
  return n;
}

int fake_advapi32_is_running(const char *name)
{
  load_state();
  return find(name) != NULL;
}

const char *fake_advapi32_history(void)
{
  char path[1100];
  FILE *f;
  long n;
  if (!F.state_file[0])
    return NULL;
  snprintf(path, sizeof(path), "%s.calls", F.state_file);
  if (!(f = fopen(path, "rb")))
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  etwcap_free(F.history);
  F.history = etwcap_malloc((size_t)n + 1);
  if (F.history) {
    F.history[fread(F.history, 1, (size_t)n, f)] = '\0';
  }
  fclose(f);
  return F.history;
}
