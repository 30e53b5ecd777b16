/* The OS heap session of /OSHeapProcess and /OSHeapExe, as PerfView makes
 * it (CommandProcessor Start, TraceEventSession.EnableWindowsHeapProvider,
 * ETWKernelControl.StartWindowsHeapSession), and the extension block that
 * carries its process and stacks to StartTraceW.  Pure: the IFEO value of
 * /OSHeapExe is set by the collection (heap_tracing_flag.h). */
#include "etw/plan/plan_internal.h"

#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

/* 222962ab-6180-4b88-a825-346b75f2a24a (TraceEvent
 * HeapTraceProviderTraceEventParser.ProviderGuid). */
const struct etw_guid plan_heap_provider_guid = {
  0x222962abu, 0x6180u, 0x4b88u, { 0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a }
};

/* A file name, not a path, that names an .exe (PerfView: "only filename
 * WITH extension"; the IFEO key is the image's file name).  A name without
 * an extension gets ".exe", as PerfView's Path.ChangeExtension gives it. */
static int heap_exe_name(struct plan *plan, const char *given, char *out, size_t size)
{
  const char *dot = strrchr(given, '.');
  size_t n = strlen(given);
  size_t i;
  for (i = 0; i < n && (unsigned char)given[i] >= 0x20; i++)
    ;
  if (!n || i < n || strpbrk(given, "\\/:*?\"<>|") || given[0] == '.' || given[n - 1] == ' ')
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/OSHeapExe: '%s' is not a program's file name; give the name alone, "
                     "without a folder, such as /OSHeapExe:notepad.exe",
                     given);
  if (dot && !str_caseeq(dot, ".exe"))
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/OSHeapExe: '%s' does not end in .exe; Windows traces the heap of a "
                     "program by its .exe name (such as /OSHeapExe:notepad.exe)",
                     given);
  if (n + (dot ? 0 : 4) >= size)
    return plan_fail(plan, ETWCAP_E_USAGE, "/OSHeapExe: '%s' is longer than %u characters",
                     given, (unsigned)size - 1);
  snprintf(out, size, "%s%s", given, dot ? "" : ".exe");
  return 0;
}

int plan_heap_wanted(const struct plan_options *o)
{
  return o->os_heap_pid != 0 || o->os_heap_exe != NULL;
}

int plan_heap_session(struct plan *plan, struct plan_state *st)
{
  const struct plan_options *o = st->opt;
  char name[PLAN_NAME_MAX];
  struct plan_session *s;
  int rc;

  if (!plan_heap_wanted(o)) {
    if (o->os_heap_max_mb)
      return plan_note(plan, "/OSHeapMaxMB has no effect without /OSHeapProcess or /OSHeapExe.");
    return 0;
  }
  if (o->os_heap_pid && o->os_heap_exe)
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/OSHeapProcess and /OSHeapExe cannot both be given (as in PerfView): one "
                     "heap session traces either a running process or the program started "
                     "by name");
  if (o->os_heap_pid < 0 || o->os_heap_pid > 0xFFFFFFFFll)
    return plan_fail(plan, ETWCAP_E_USAGE,
                     "/OSHeapProcess: %lld is not a process id (a positive whole number, as "
                     "Task Manager shows it)",
                     (long long)o->os_heap_pid);
  if (o->os_heap_max_mb < 0)
    return plan_fail(plan, ETWCAP_E_USAGE, "/OSHeapMaxMB: %lld is not a size in MB",
                     (long long)o->os_heap_max_mb);
  snprintf(name, sizeof(name), "%sHeap", st->base);
  s = plan_new_session(plan, PLAN_ROLE_HEAP, name);
  s->when = PLAN_AT_START;
  if (o->os_heap_exe && (rc = heap_exe_name(plan, o->os_heap_exe, s->heap_exe,
                                            sizeof(s->heap_exe))) != 0)
    return rc;
  s->heap_pid = (uint32_t)o->os_heap_pid;
  /* "Default is 256Meg and twice whatever the others are" (PerfView). */
  plan_set_buffers(s, o->buffer_size_mb * 2 > 256 ? o->buffer_size_mb * 2 : 256);
  /* Never circular, in memory or not: a sequential file, capped only by
   * /OSHeapMaxMB (TraceEventSession.MaximumFileMB). */
  s->log_file_mode |= PLAN_FILE_MODE_SEQUENTIAL;
  s->maximum_file_size_mb = (uint32_t)o->os_heap_max_mb;
  if (!(s->file = plan_change_extension(plan->data_file, ".userheap.etl")))
    return ETWCAP_E_NOMEM;
  s->heap_stack_hooks[0] = PLAN_HEAP_HOOK_ALLOC;
  s->heap_stack_hooks[1] = PLAN_HEAP_HOOK_REALLOC;
  s->heap_stack_hook_count = 2;
  if ((st->circular_mb || o->in_memory) && !o->os_heap_max_mb &&
      (rc = plan_note(plan, "The OS heap session does not use circular buffering (as in "
                            "PerfView): %s grows for as long as the capture runs. /OSHeapMaxMB "
                            "limits it.",
                      s->file)) != 0)
    return rc;
  if (s->heap_exe[0])
    return plan_note(plan, "/OSHeapExe sets the TracingFlags value of HKLM\\%s\\%s while the "
                           "capture runs, so that %s started from now on is traced; stop, "
                           "abort and the end of collect put it back.",
                     PLAN_IFEO_KEY, s->heap_exe, s->heap_exe);
  return 0;
}

static size_t put(uint32_t *words, size_t max, size_t at, uint32_t value)
{
  if (at < max)
    words[at] = value;
  return at + 1;
}

size_t plan_heap_extension(const struct plan_session *s, uint32_t *words, size_t max)
{
  size_t n = 1, i, total;
  /* ETW_EXT_PIDS: one process (0 with /OSHeapExe, as TraceEvent passes). */
  n = put(words, max, n, 2u | (PLAN_EXT_PIDS << 16));
  n = put(words, max, n, s->heap_pid);
  /* ETW_EXT_STACKWALK_FILTER: the hooks that get a stack. */
  n = put(words, max, n,
          (uint32_t)(s->heap_stack_hook_count + 1) | (PLAN_EXT_STACKWALK_FILTER << 16));
  for (i = 0; i < s->heap_stack_hook_count; i++)
    n = put(words, max, n, s->heap_stack_hooks[i]);
  total = n;
  put(words, max, 0, (uint32_t)total | (2u << 16));
  return total;
}
