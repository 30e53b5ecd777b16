/* Keyword tables and their parser/printer (see keywords.h).  Names and values
 * are PerfView's (KernelTraceEventParser.Keywords, ClrTraceEventParser.Keywords,
 * ClrRundownTraceEventParser.Keywords), so a PerfView command line means the
 * same here. */
#include "etw/event/keywords.h"

#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct keyword_def kernel_bits[] = {
  { "Process", 0x1 },
  { "Thread", 0x2 },
  { "ImageLoad", 0x4 },
  { "ProcessCounters", 0x8 },
  { "ContextSwitch", 0x10 },
  { "DeferedProcedureCalls", 0x20 },
  { "Interrupt", 0x40 },
  { "SystemCall", 0x80 },
  { "DiskIO", 0x100 },
  { "DiskFileIO", 0x200 },
  { "DiskIOInit", 0x400 },
  { "Dispatcher", 0x800 },
  { "Memory", 0x1000 },
  { "MemoryHardFaults", 0x2000 },
  { "VirtualAlloc", 0x4000 },
  { "VAMap", 0x8000 },
  { "NetworkTCPIP", 0x10000 },
  { "Registry", 0x20000 },
  { "AdvancedLocalProcedureCalls", 0x100000 },
  { "SplitIO", 0x200000 },
  { "Handle", 0x400000 },
  { "Driver", 0x800000 },
  { "Profile", 0x1000000 },
  { "FileIO", 0x2000000 },
  { "FileIOInit", 0x4000000 },
  { "IOQueue", 0x10000000 },
  { "ThreadPriority", 0x20000000 },
  { "ReferenceSet", 0x40000000 },
  { "PMCProfile", 0x80000000 },
};

static const struct keyword_def kernel_composites[] = {
  { "None", 0 },
  { "Default", KW_KERNEL_DEFAULT },
  { "ThreadTime", KW_KERNEL_THREADTIME },
  { "Verbose", 0x0703FF1F },
  { "OS", 0x00B00060 },
  { "All", 0x07B3FFFF },
  /* ~(Process|Thread|ImageLoad|Profile|ContextSwitch|ProcessCounters) as a
   * 64-bit value, as the C# enum holds it: meant to be subtracted. */
  { "NonContainer", ~KW_KERNEL_NONCONTAINER_KEEP },
};

static const struct keyword_def clr_bits[] = {
  { "GC", 0x1 },
  { "GCHandle", 0x2 },
  { "Binder", 0x4 },
  { "AssemblyLoader", 0x4 }, /* etwcap: the .NET 5+ manifest's name for 0x4 */
  { "Loader", 0x8 },
  { "Jit", 0x10 },
  { "NGen", 0x20 },
  { "StartEnumeration", 0x40 },
  { "StopEnumeration", 0x80 },
  { "Security", 0x400 },
  { "AppDomainResourceManagement", 0x800 },
  { "JitTracing", 0x1000 },
  { "Interop", 0x2000 },
  { "Contention", 0x4000 },
  { "Exception", 0x8000 },
  { "Threading", 0x10000 },
  { "JittedMethodILToNativeMap", 0x20000 },
  { "SupressNGen", 0x40000 },
  { "OverrideAndSuppressNGenEvents", 0x40000 },
  { "Type", 0x80000 },
  { "GCHeapDump", 0x100000 },
  { "GCSampledObjectAllocationHigh", 0x200000 },
  { "GCHeapSurvivalAndMovement", 0x400000 },
  { "GCHeapCollect", 0x800000 },
  { "GCHeapAndTypeNames", 0x1000000 },
  { "GCSampledObjectAllocationLow", 0x2000000 },
  { "PerfTrack", 0x20000000 },
  { "Stack", 0x40000000 },
  { "ThreadTransfer", 0x80000000 },
  { "Debugger", 0x100000000 },
  { "Monitoring", 0x200000000 },
  { "Codesymbols", 0x400000000 },
  { "Compilation", 0x1000000000 },
  { "CompilationDiagnostic", 0x2000000000 },
  { "MethodDiagnostic", 0x4000000000 },
  { "TypeDiagnostic", 0x8000000000 },
  /* etwcap extension: the runtime manifest's Profiler keyword.  PerfView's
   * enum has no such member, so PerfView rejects Default-Profile; see
   * docs/plan-json.md and the plan's notes. */
  { "Profiler", 0x20000000000 },
  { "Profile", 0x20000000000 },
  { "WaitHandle", 0x40000000000 },
  { "AllocationSampling", 0x80000000000 },
};

static const struct keyword_def clr_composites[] = {
  { "None", 0 },
  { "All", ~0x40ull }, /* everything but StartEnumeration */
  { "Default", KW_CLR_DEFAULT },
  { "JITSymbols", 0x60098 },
  { "GCHeapSnapshot", 0x1980001 },
  { "GCAllObjectAllocation", 0x2200000 },
};

static const struct keyword_def rundown_bits[] = {
  { "GC", 0x1 },
  { "Loader", 0x8 },
  { "Jit", 0x10 },
  { "NGen", 0x20 },
  { "StartEnumeration", 0x40 },
  { "StopEnumeration", 0x80 },
  { "ForceEndRundown", 0x100 },
  { "JittedMethodILToNativeMap", 0x20000 },
  { "SupressNGen", 0x40000 },
  { "CodeSymbolsRundown", 0x80000000 },
  { "Compilation", 0x1000000000 },
};

static const struct keyword_def rundown_composites[] = {
  { "None", 0 },
  { "Default", KW_RUNDOWN_DEFAULT },
};

/* TplEventSource (System.Threading.Tasks.TplEventSource) manifest keywords. */
static const struct keyword_def tpl_bits[] = {
  { "TaskTransfer", 0x1 },
  { "Tasks", 0x2 },
  { "Parallel", 0x4 },
  { "AsyncCausalityOperation", 0x8 },
  { "AsyncCausalityRelation", 0x10 },
  { "AsyncCausalitySynchronousWork", 0x20 },
  { "TaskStops", 0x40 },
  { "TasksFlowActivityIds", 0x80 },
  { "TasksSetActivityIds", 0x10000 },
  { "Debug", 0x20000 },
  { "DebugActivityId", 0x40000 },
};

static const struct keyword_def tpl_composites[] = {
  { "None", 0 },
};

const struct keyword_set keywords_kernel = { "KernelEvents", kernel_bits, COUNT(kernel_bits),
                                             kernel_composites, COUNT(kernel_composites) };
const struct keyword_set keywords_clr = { "ClrEvents", clr_bits, COUNT(clr_bits), clr_composites,
                                          COUNT(clr_composites) };
const struct keyword_set keywords_clr_rundown = { "ClrRundown", rundown_bits, COUNT(rundown_bits),
                                                  rundown_composites,
                                                  COUNT(rundown_composites) };
const struct keyword_set keywords_tpl = { "TplEvents", tpl_bits, COUNT(tpl_bits), tpl_composites,
                                          COUNT(tpl_composites) };

static int find(const struct keyword_def *defs, size_t n, const char *name, size_t len,
                uint64_t *out)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (strlen(defs[i].name) == len && str_ncaseeq(defs[i].name, name, len)) {
      *out = defs[i].value;
      return 0;
    }
  return -1;
}

int keywords_lookup(const struct keyword_set *set, const char *name, size_t len, uint64_t *out)
{
  if (find(set->composites, set->composite_count, name, len, out) == 0)
    return 0;
  return find(set->bits, set->bit_count, name, len, out);
}

/* One token: a name, 0xHEX, or decimal (C#'s Enum.Parse takes numbers too). */
static int parse_token(const struct keyword_set *set, const char *tok, size_t len, uint64_t *out)
{
  char buf[64];
  if (len == 0 || len >= sizeof(buf))
    return -1;
  memcpy(buf, tok, len);
  buf[len] = '\0';
  if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
    return str_parse_hex_uint64(buf, out);
  if (buf[0] >= '0' && buf[0] <= '9')
    return str_parse_uint64(buf, out);
  return keywords_lookup(set, buf, len, out);
}

int keywords_parse(const struct keyword_set *set, const char *text, uint64_t *out, char *err,
                   size_t err_size)
{
  uint64_t value = 0;
  const char *p = text;
  int negate = 0;
  if (!text || !*text) {
    snprintf(err, err_size, "/%s needs a value (names or 0xHEX)", set->qualifier);
    return ETWCAP_E_USAGE;
  }
  for (;;) {
    size_t len = strcspn(p, ",+|-");
    uint64_t v;
    if (parse_token(set, p, len, &v) != 0) {
      if (len == 0)
        snprintf(err, err_size, "/%s:%s: an empty name at offset %u (names are joined with "
                 "'+', ',' or '|', and '-' removes one)", set->qualifier, text,
                 (unsigned)(p - text));
      else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        snprintf(err, err_size, "/%s: '%.*s' is not a valid hex number", set->qualifier,
                 (int)len, p);
      else
        snprintf(err, err_size, "/%s: '%.*s' is not a %s keyword name. 'etwcap plan /?' prints "
                 "the names (at its end)", set->qualifier, (int)len, p, set->qualifier);
      return ETWCAP_E_USAGE;
    }
    if (negate)
      value &= ~v;
    else
      value |= v;
    if (!p[len])
      break;
    negate = p[len] == '-';
    p += len + 1;
  }
  *out = value;
  return 0;
}

const char *keywords_bit_name(const struct keyword_set *set, uint64_t bit)
{
  size_t i;
  for (i = 0; i < set->bit_count; i++)
    if (set->bits[i].value == bit)
      return set->bits[i].name;
  return NULL;
}

size_t keywords_format(const struct keyword_set *set, uint64_t value, char *buf, size_t size)
{
  size_t used = 0;
  uint64_t rest = 0;
  int bit;
  if (size)
    buf[0] = '\0';
  if (!value)
    return (size_t)snprintf(buf, size, "0");
  for (bit = 0; bit < 64; bit++) {
    uint64_t b = 1ull << bit;
    const char *name;
    int n;
    if (!(value & b))
      continue;
    name = set ? keywords_bit_name(set, b) : NULL;
    if (!name) {
      rest |= b;
      continue;
    }
    n = snprintf(used < size ? buf + used : NULL, used < size ? size - used : 0, "%s%s",
                 used ? "|" : "", name);
    used += (size_t)n;
  }
  if (rest)
    used += (size_t)snprintf(used < size ? buf + used : NULL, used < size ? size - used : 0,
                             "%s0x%llX", used ? "|" : "", (unsigned long long)rest);
  return used;
}

static const char *const level_names[] = { "Always", "Critical", "Error", "Warning",
                                           "Informational", "Verbose" };

int level_parse(const char *text, size_t len, uint8_t *out)
{
  char buf[32];
  uint64_t v;
  size_t i;
  if (len == 0 || len >= sizeof(buf))
    return -1;
  memcpy(buf, text, len);
  buf[len] = '\0';
  if (buf[0] >= '0' && buf[0] <= '9') {
    if (str_parse_uint64(buf, &v) != 0 || v > 255)
      return -1;
    *out = (uint8_t)v;
    return 0;
  }
  for (i = 0; i < COUNT(level_names); i++)
    if (str_caseeq(buf, level_names[i])) {
      *out = (uint8_t)i;
      return 0;
    }
  if (str_caseeq(buf, "LogAlways")) {
    *out = LEVEL_ALWAYS;
    return 0;
  }
  if (str_caseeq(buf, "Info")) {
    *out = LEVEL_INFORMATIONAL;
    return 0;
  }
  return -1;
}

const char *level_name(uint8_t level)
{
  return level < COUNT(level_names) ? level_names[level] : NULL;
}
