/* How a system logger's classic kernel flags reach Windows, by build (see
 * enum plan_kernel_route in plan.h): the flag -> PERFINFO_GROUPMASK word
 * translation and the flag -> System Provider keyword translation.  Pure
 * tables; the sources are cited at each table. */
#include "etw/plan/plan.h"
#include "etw/plan/plan_internal.h"

#include "src/base/error.h"
#include "src/base/strutil.h"

#include <stdio.h>
#include <string.h>

/* EVENT_TRACE_FLAG_* (evntrace.h), the bits of plan_session.enable_flags. */
#define F_PROCESS 0x00000001u
#define F_THREAD 0x00000002u
#define F_IMAGE_LOAD 0x00000004u
#define F_PROCESS_COUNTERS 0x00000008u
#define F_CSWITCH 0x00000010u
#define F_DPC 0x00000020u
#define F_INTERRUPT 0x00000040u
#define F_SYSTEMCALL 0x00000080u
#define F_DISK_IO 0x00000100u
#define F_DISK_FILE_IO 0x00000200u
#define F_DISK_IO_INIT 0x00000400u
#define F_DISPATCHER 0x00000800u
#define F_MEMORY_PAGE_FAULTS 0x00001000u
#define F_MEMORY_HARD_FAULTS 0x00002000u
#define F_VIRTUAL_ALLOC 0x00004000u
#define F_VAMAP 0x00008000u
#define F_NETWORK_TCPIP 0x00010000u
#define F_REGISTRY 0x00020000u
#define F_DBGPRINT 0x00040000u
#define F_JOB 0x00080000u
#define F_ALPC 0x00100000u
#define F_SPLIT_IO 0x00200000u
#define F_DEBUG_EVENTS 0x00400000u
#define F_DRIVER 0x00800000u
#define F_PROFILE 0x01000000u
#define F_FILE_IO 0x02000000u
#define F_FILE_IO_INIT 0x04000000u

/* A group: Masks[word] bit, its PERF_* name, and the classic flag that
 * turns it on.  krabsetw krabs/krabs/perfinfo_groupmask.hpp: "Masks[0]"
 * groups are the EVENT_TRACE_FLAG_* values themselves; PERF_PROFILE
 * 0x20000002, PERF_CONTEXT_SWITCH 0x20000004, PERF_DRIVERS 0x20000010,
 * PERF_DPC 0x20000080, PERF_DISPATCHER 0x20000200, PERF_INTERRUPT
 * 0x20004000, PERF_VIRTUAL_ALLOC 0x20008000 (Masks[1], top three bits = word
 * 1) and PERF_SYSCALL 0x40000040 (Masks[2]), each marked "equivalent to
 * EVENT_TRACE_FLAG_..."; Microsoft's "System Providers" page pairs the same
 * PERF_* groups with the same flags. */
struct group {
  uint32_t flag;
  unsigned word;
  uint32_t bit;
  const char *name;
};

static const struct group groups[] = {
  { F_PROCESS, 0, F_PROCESS, "PERF_PROCESS" },
  { F_THREAD, 0, F_THREAD, "PERF_THREAD" },
  { F_IMAGE_LOAD, 0, F_IMAGE_LOAD, "PERF_LOADER" },
  { F_PROCESS_COUNTERS, 0, F_PROCESS_COUNTERS, "PERF_PERF_COUNTER" },
  { F_DISK_IO, 0, F_DISK_IO, "PERF_DISK_IO" },
  { F_DISK_FILE_IO, 0, F_DISK_FILE_IO, "PERF_FILENAME" },
  { F_DISK_IO_INIT, 0, F_DISK_IO_INIT, "PERF_DISK_IO_INIT" },
  { F_MEMORY_PAGE_FAULTS, 0, F_MEMORY_PAGE_FAULTS, "PERF_ALL_FAULTS" },
  { F_MEMORY_HARD_FAULTS, 0, F_MEMORY_HARD_FAULTS, "PERF_HARD_FAULTS" },
  { F_VAMAP, 0, F_VAMAP, "PERF_VAMAP" },
  { F_NETWORK_TCPIP, 0, F_NETWORK_TCPIP, "PERF_NETWORK" },
  { F_REGISTRY, 0, F_REGISTRY, "PERF_REGISTRY" },
  { F_DBGPRINT, 0, F_DBGPRINT, "PERF_DBGPRINT" },
  { F_JOB, 0, F_JOB, "PERF_JOB" },
  { F_ALPC, 0, F_ALPC, "PERF_ALPC" },
  { F_SPLIT_IO, 0, F_SPLIT_IO, "PERF_SPLIT_IO" },
  { F_DEBUG_EVENTS, 0, F_DEBUG_EVENTS, "PERF_DEBUG_EVENTS" },
  { F_FILE_IO, 0, F_FILE_IO, "PERF_FILE_IO" },
  { F_FILE_IO_INIT, 0, F_FILE_IO_INIT, "PERF_FILE_IO_INIT" },
  { F_PROFILE, 1, 0x00000002u, "PERF_PROFILE" },
  { F_CSWITCH, 1, 0x00000004u, "PERF_CONTEXT_SWITCH" },
  { F_DRIVER, 1, 0x00000010u, "PERF_DRIVERS" },
  { F_DPC, 1, 0x00000080u, "PERF_DPC" },
  { F_DISPATCHER, 1, 0x00000200u, "PERF_DISPATCHER" },
  { F_INTERRUPT, 1, 0x00004000u, "PERF_INTERRUPT" },
  { F_VIRTUAL_ALLOC, 1, 0x00008000u, "PERF_VIRTUAL_ALLOC" },
  { F_SYSTEMCALL, 2, 0x00000040u, "PERF_SYSCALL" },
  /* No classic flag: /CpuCounters' PMCProfile (plan_session.pmc_profile). */
  { 0, 1, PLAN_PMC_PROFILE_GROUP_BIT, "PERF_PMC_PROFILE" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

void plan_group_mask_of_flags(uint32_t flags, uint32_t mask[PLAN_GROUP_MASK_WORDS])
{
  size_t i;
  memset(mask, 0, PLAN_GROUP_MASK_WORDS * sizeof(mask[0]));
  for (i = 0; i < COUNT(groups); i++)
    if (flags & groups[i].flag)
      mask[groups[i].word] |= groups[i].bit;
}

size_t plan_group_mask_names(const uint32_t mask[PLAN_GROUP_MASK_WORDS], char *buf, size_t size)
{
  uint32_t left[PLAN_GROUP_MASK_WORDS];
  size_t i, n = 0;
  unsigned w;
  memcpy(left, mask, sizeof(left));
  if (size)
    buf[0] = '\0';
  for (i = 0; i < COUNT(groups); i++) {
    if (!(left[groups[i].word] & groups[i].bit))
      continue;
    left[groups[i].word] &= ~groups[i].bit;
    n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "%s%s",
                          n ? "|" : "", groups[i].name);
  }
  for (w = 0; w < PLAN_GROUP_MASK_WORDS; w++)
    if (left[w])
      n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
                            "%sMasks[%u]:0x%X", n ? "|" : "", w, (unsigned)left[w]);
  return n;
}

/* The System Providers (Microsoft, "System Providers", learn.microsoft.com
 * windows/win32/etw/system-providers: GUIDs and the keyword <-> legacy flag
 * table; keyword values from evntrace.h of SDK 10.0.20348, as the windows-sys
 * crate mirrors them, e.g. SYSTEM_SCHEDULER_KW_CONTEXT_SWITCH = 0x200). */
struct sysprov {
  const char *name;
  struct etw_guid guid;
};

enum { SP_PROCESS, SP_SCHEDULER, SP_PROFILE, SP_INTERRUPT, SP_SYSCALL, SP_IO, SP_MEMORY,
       SP_REGISTRY, SP_ALPC, SP_COUNT };

static const struct sysprov sysprovs[SP_COUNT] = {
  { "SystemProcessProvider", { 0x151f55dc, 0x467d, 0x471f, { 0x83, 0xb5, 0x5f, 0x88, 0x9d, 0x46, 0xff, 0x66 } } },
  { "SystemSchedulerProvider", { 0x599a2a76, 0x4d91, 0x4910, { 0x9a, 0xc7, 0x7d, 0x33, 0xf2, 0xe9, 0x7a, 0x6c } } },
  { "SystemProfileProvider", { 0xbfeb0324, 0x1cee, 0x496f, { 0xa4, 0x09, 0x2a, 0xc2, 0xb4, 0x8a, 0x63, 0x22 } } },
  { "SystemInterruptProvider", { 0xd4bbee17, 0xb545, 0x4888, { 0x85, 0x8b, 0x74, 0x41, 0x69, 0x01, 0x5b, 0x25 } } },
  { "SystemSyscallProvider", { 0x434286f7, 0x6f1b, 0x45bb, { 0xb3, 0x7e, 0x95, 0xf6, 0x23, 0x04, 0x6c, 0x7c } } },
  { "SystemIoProvider", { 0x3d5c43e3, 0x0f1c, 0x4202, { 0xb8, 0x17, 0x17, 0x4c, 0x00, 0x70, 0xdc, 0x79 } } },
  { "SystemMemoryProvider", { 0x82958ca9, 0xb6cd, 0x47f8, { 0xa3, 0xa8, 0x03, 0xae, 0x85, 0xa4, 0xbc, 0x24 } } },
  { "SystemRegistryProvider", { 0x16156bd9, 0xfab4, 0x4cfa, { 0xa2, 0x32, 0x89, 0xd1, 0x09, 0x90, 0x58, 0xe3 } } },
  { "SystemAlpcProvider", { 0xfcb9baaf, 0xe529, 0x4980, { 0x92, 0xe9, 0xce, 0xd1, 0xa6, 0xaa, 0xdf, 0xdf } } },
};

/* flag -> (provider, keyword), one row per line of the page's tables that
 * names an EVENT_TRACE_FLAG_*.  One row of the page is self-contradictory:
 * it pairs EVENT_TRACE_FLAG_FILE_IO_INIT with SYSTEM_IO_KW_OPTICAL and
 * PERF_OPTICAL_IO (0x80000001, optical-disk I/O in Masks[4]), while
 * FILE_IO_INIT is PERF_FILE_IO_INIT in Masks[0] (krabsetw
 * perfinfo_groupmask.hpp).  evntrace.h (Windows SDK; a public copy in the
 * code corpus defines "SYSTEM_IO_KW_FILE_INIT 0x0000000000000400" next to
 * SYSTEM_IO_KW_TIMER 0x800; its ports agree: windows-sys
 * SYSTEM_IO_KW_FILE_INIT: u32 = 1024, holy-tao/AhkWin32Projection Apis.ahk
 * SYSTEM_IO_KW_FILE_INIT := 1024) has the keyword for it, so FILE_IO_INIT
 * maps there (docs/win32-contract.md §3.3 rule 4; tests/live/live_contract.ps1
 * counts FileIo Create events on a build >= 20348). */
static const struct {
  uint32_t flag;
  int provider;
  uint64_t keyword;
} sysmap[] = {
  { F_PROCESS, SP_PROCESS, 0x0001 },          /* SYSTEM_PROCESS_KW_GENERAL */
  { F_PROCESS_COUNTERS, SP_PROCESS, 0x0008 }, /* SYSTEM_PROCESS_KW_PERF_COUNTER */
  { F_DEBUG_EVENTS, SP_PROCESS, 0x0080 },     /* SYSTEM_PROCESS_KW_DEBUG_EVENTS */
  { F_DBGPRINT, SP_PROCESS, 0x0100 },         /* SYSTEM_PROCESS_KW_DBGPRINT */
  { F_JOB, SP_PROCESS, 0x0200 },              /* SYSTEM_PROCESS_KW_JOB */
  { F_THREAD, SP_PROCESS, 0x0800 },           /* SYSTEM_PROCESS_KW_THREAD */
  { F_IMAGE_LOAD, SP_PROCESS, 0x1000 },       /* SYSTEM_PROCESS_KW_LOADER */
  { F_DISPATCHER, SP_SCHEDULER, 0x0002 },     /* SYSTEM_SCHEDULER_KW_DISPATCHER */
  { F_CSWITCH, SP_SCHEDULER, 0x0200 },        /* SYSTEM_SCHEDULER_KW_CONTEXT_SWITCH */
  { F_PROFILE, SP_PROFILE, 0x0001 },          /* SYSTEM_PROFILE_KW_GENERAL */
  { F_INTERRUPT, SP_INTERRUPT, 0x0001 },      /* SYSTEM_INTERRUPT_KW_GENERAL */
  { F_DPC, SP_INTERRUPT, 0x0004 },            /* SYSTEM_INTERRUPT_KW_DPC */
  { F_SYSTEMCALL, SP_SYSCALL, 0x0001 },       /* SYSTEM_SYSCALL_KW_GENERAL */
  { F_DISK_IO, SP_IO, 0x0001 },               /* SYSTEM_IO_KW_DISK */
  { F_DISK_IO_INIT, SP_IO, 0x0002 },          /* SYSTEM_IO_KW_DISK_INIT */
  { F_DISK_FILE_IO, SP_IO, 0x0004 },          /* SYSTEM_IO_KW_FILENAME */
  { F_SPLIT_IO, SP_IO, 0x0008 },              /* SYSTEM_IO_KW_SPLIT */
  { F_FILE_IO, SP_IO, 0x0010 },               /* SYSTEM_IO_KW_FILE */
  { F_FILE_IO_INIT, SP_IO, 0x0400 },          /* SYSTEM_IO_KW_FILE_INIT (see above) */
  { F_DRIVER, SP_IO, 0x0080 },                /* SYSTEM_IO_KW_DRIVERS */
  { F_NETWORK_TCPIP, SP_IO, 0x0200 },         /* SYSTEM_IO_KW_NETWORK */
  { F_MEMORY_HARD_FAULTS, SP_MEMORY, 0x0002 },/* SYSTEM_MEMORY_KW_HARD_FAULTS */
  { F_MEMORY_PAGE_FAULTS, SP_MEMORY, 0x0004 },/* SYSTEM_MEMORY_KW_ALL_FAULTS */
  { F_VIRTUAL_ALLOC, SP_MEMORY, 0x0400 },     /* SYSTEM_MEMORY_KW_VIRTUAL_ALLOC */
  { F_VAMAP, SP_MEMORY, 0x4000 },             /* SYSTEM_MEMORY_KW_VAMAP */
  { F_REGISTRY, SP_REGISTRY, 0x0001 },        /* SYSTEM_REGISTRY_KW_GENERAL */
  { F_ALPC, SP_ALPC, 0x0001 },                /* SYSTEM_ALPC_KW_GENERAL */
};

static void system_providers_of(struct plan_session *s)
{
  uint64_t kw[SP_COUNT];
  size_t i;
  memset(kw, 0, sizeof(kw));
  for (i = 0; i < COUNT(sysmap); i++)
    if (s->enable_flags & sysmap[i].flag)
      kw[sysmap[i].provider] |= sysmap[i].keyword;
  /* SYSTEM_PROFILE_KW_PMC_PROFILE 0x2, "PERF_PMC_PROFILE" in the page's
   * table (evntrace.h, SDK 10.0.20348). */
  if (s->pmc_profile)
    kw[SP_PROFILE] |= 0x0002;
  s->system_provider_count = 0;
  for (i = 0; i < SP_COUNT; i++) {
    struct plan_system_provider *p;
    if (!kw[i])
      continue;
    p = &s->system_providers[s->system_provider_count++];
    p->name = sysprovs[i].name;
    p->guid = sysprovs[i].guid;
    p->keywords = kw[i];
    p->stacks = 0; /* stacks come from TraceStackTracingInfo, on every route */
  }
}

int plan_choose_kernel_route(struct plan *plan, const char *text)
{
  plan->kernel_route_asked = PLAN_ROUTE_NONE;
  if (!text || str_caseeq(text, "auto"))
    return 0;
  if (str_caseeq(text, "groupMask")) {
    /* Private system loggers, and so the group mask, start with Windows 8
     * (EVENT_TRACE_SYSTEM_LOGGER_MODE, "Logging Mode Constants"). */
    if (!plan_at_least(plan, 6, 2, 0))
      return plan_fail(plan, ETWCAP_E_UNSUPPORTED,
                       "/KernelRoute:groupMask needs Windows 8 / Server 2012 (6.2) or later: "
                       "older Windows has only the NT Kernel Logger");
    plan->kernel_route_asked = PLAN_ROUTE_GROUP_MASK;
    return 0;
  }
  if (str_caseeq(text, "systemProviders")) {
    if (!plan_at_least(plan, 10, 0, PLAN_SYSTEM_PROVIDERS_BUILD))
      return plan_fail(plan, ETWCAP_E_UNSUPPORTED,
                       "/KernelRoute:systemProviders needs Windows build %u (Windows 11, "
                       "Server 2022) or later: the System Providers do not exist before it",
                       PLAN_SYSTEM_PROVIDERS_BUILD);
    plan->kernel_route_asked = PLAN_ROUTE_SYSTEM_PROVIDERS;
    return 0;
  }
  return plan_fail(plan, ETWCAP_E_USAGE,
                   "/KernelRoute: '%s' is not auto, systemProviders or groupMask", text);
}

int plan_note_kernel_route(struct plan *plan)
{
  size_t i;
  for (i = 0; i < plan->session_count; i++)
    if (plan->sessions[i].route == PLAN_ROUTE_SYSTEM_PROVIDERS)
      return plan_note(plan,
                       "/KernelRoute:systemProviders: the kernel events go by the System "
                       "Providers (build %u and later), with EnableFlags 0 at start. Not yet "
                       "proven on a real Windows: that a system logger started this way still "
                       "writes the Process/Thread/Image DCStart rundown that names the processes "
                       "and images already running, and the SystemConfig events (CPU, disks). "
                       "PerfView, krabsetw and tracelog put EnableFlags at start, as the default "
                       "groupMask route does. tests/live/live_contract.ps1 compares the two "
                       "routes on a host.",
                       PLAN_SYSTEM_PROVIDERS_BUILD);
  return 0;
}

void plan_kernel_route(enum plan_kernel_route asked, struct plan_session *s)
{
  memset(s->group_mask, 0, sizeof(s->group_mask));
  s->system_provider_count = 0;
  s->enable_flags_at_start = 0;
  if (!(s->log_file_mode & PLAN_SYSTEM_LOGGER_MODE)) {
    /* Only the kernel session of Windows 7 is a kernel session without
     * SYSTEM_LOGGER_MODE: the "NT Kernel Logger". */
    s->route = (s->role == PLAN_ROLE_KERNEL || s->role == PLAN_ROLE_KERNEL_RUNDOWN)
                   ? PLAN_ROUTE_NT_KERNEL_LOGGER
                   : PLAN_ROUTE_NONE;
    if (s->route)
      s->enable_flags_at_start = s->enable_flags;
    return;
  }
  /* The group mask on every build from 6.2 unless the System Providers
   * are asked for (docs/win32-contract.md §3.4): it is what TraceEvent,
   * krabsetw and tracelog do, and Microsoft deprecates neither. */
  if (asked == PLAN_ROUTE_SYSTEM_PROVIDERS) {
    s->route = PLAN_ROUTE_SYSTEM_PROVIDERS;
    system_providers_of(s);
    return;
  }
  s->route = PLAN_ROUTE_GROUP_MASK;
  s->enable_flags_at_start = s->enable_flags;
  plan_group_mask_of_flags(s->enable_flags, s->group_mask);
  if (s->pmc_profile)
    s->group_mask[1] |= PLAN_PMC_PROFILE_GROUP_BIT;
}

const char *plan_route_name(enum plan_kernel_route route)
{
  switch (route) {
  case PLAN_ROUTE_SYSTEM_PROVIDERS:
    return "systemProviders";
  case PLAN_ROUTE_GROUP_MASK:
    return "groupMask";
  case PLAN_ROUTE_NT_KERNEL_LOGGER:
    return "ntKernelLogger";
  default:
    return "none";
  }
}
