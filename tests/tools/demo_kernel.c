/* The kernel session of the demo (DEMO.kernel.etl): the rundown of the
 * processes, threads and images already running when the session starts,
 * the service's process, threads and image loads, a svchost thread now and
 * then, 1 kHz sampled profile on every CPU, and the rundown at the end.
 * Payloads follow the kernel MOF classes as TraceEvent decodes them:
 * Process_V4 (hooks 0x0301 Start, 0x0303 DCStart, 0x0304 DCEnd), Thread_V3
 * (0x0501 Start, 0x0502 End, 0x0503 DCStart), Image_V3 (0x140A Load,
 * 0x1403 DCStart, 0x1404 DCEnd), SampledProfile V2 (0x0F2E).  Header forms
 * are the ones a Windows 10 kernel logger writes in the samples: SYSTEM64
 * for starts, loads and thread events, PERFINFO64 for the process and image
 * rundown and the samples. */
#include "tests/tools/demo_script.h"
#include "tests/tools/demo_tables.h"

#include <string.h>

#define HOOK_PROCESS_START 0x0301u
#define HOOK_PROCESS_DCSTART 0x0303u
#define HOOK_PROCESS_DCEND 0x0304u
#define HOOK_THREAD_START 0x0501u
#define HOOK_THREAD_END 0x0502u
#define HOOK_THREAD_DCSTART 0x0503u
#define HOOK_IMAGE_DCSTART 0x1403u
#define HOOK_IMAGE_DCEND 0x1404u
#define HOOK_IMAGE_LOAD 0x140Au
#define HOOK_SAMPLED_PROFILE 0x0F2Eu

#define RID_SYSTEM 18u
#define RID_LOCAL_SERVICE 19u
#define RID_NETWORK_SERVICE 20u

/* Processes running before the capture.  Their thread ids are first_tid,
 * first_tid + 4, ...; their images the exe and the three every Win32
 * process maps (System: kernel images, logged with ProcessId 0). */
struct bg_process {
  uint32_t pid, ppid, session, rid;
  const char *image, *path, *cmdline;
  uint32_t first_tid, threads;
};

static const struct bg_process bg[] = {
  { 4, 0, 0xFFFFFFFFu, RID_SYSTEM, "System", NULL, "", 8, 6 },
  { 352, 4, 0xFFFFFFFFu, RID_SYSTEM, "smss.exe", "\\SystemRoot\\System32\\smss.exe",
    "\\SystemRoot\\System32\\smss.exe", 356, 1 },
  { 560, 548, 0, RID_SYSTEM, "csrss.exe", "C:\\Windows\\System32\\csrss.exe",
    "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768",
    564, 3 },
  { 632, 548, 0, RID_SYSTEM, "wininit.exe", "C:\\Windows\\System32\\wininit.exe", "wininit.exe",
    636, 2 },
  { 712, 632, 0, RID_SYSTEM, "services.exe", "C:\\Windows\\System32\\services.exe",
    "C:\\Windows\\system32\\services.exe", 716, 4 },
  { 724, 632, 0, RID_SYSTEM, "lsass.exe", "C:\\Windows\\System32\\lsass.exe",
    "C:\\Windows\\system32\\lsass.exe", 728, 3 },
  { 1024, 712, 0, RID_NETWORK_SERVICE, "svchost.exe", "C:\\Windows\\System32\\svchost.exe",
    "C:\\Windows\\system32\\svchost.exe -k NetworkService -p", 1028, 4 },
  { 1180, 712, 0, RID_LOCAL_SERVICE, "svchost.exe", "C:\\Windows\\System32\\svchost.exe",
    "C:\\Windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted -p", 1184, 3 },
  { 5120, 4980, 2, RID_SYSTEM, "etwcap.exe", "C:\\Tools\\etwcap.exe",
    "etwcap collect C:\\Traces\\DEMO.etl /StopOnException:HttpRequestException", 5124, 3 },
};
#define BG_COUNT (sizeof(bg) / sizeof(bg[0]))

static const struct {
  const char *path;
  uint64_t base;
  uint32_t size;
} kernel_images[] = {
  { "\\SystemRoot\\system32\\ntoskrnl.exe", 0xFFFFF80640000000ull, 0x1046000 },
  { "\\SystemRoot\\system32\\hal.dll", 0xFFFFF80641600000ull, 0x6000 },
  { "\\SystemRoot\\system32\\CI.dll", 0xFFFFF80641A00000ull, 0xE6000 },
  { "\\SystemRoot\\System32\\drivers\\ndis.sys", 0xFFFFF80642100000ull, 0x186000 },
  { "\\SystemRoot\\System32\\drivers\\tcpip.sys", 0xFFFFF80642400000ull, 0x2F6000 },
};
#define KERNEL_IMAGE_COUNT (sizeof(kernel_images) / sizeof(kernel_images[0]))

static const struct {
  const char *path;
  uint64_t base;
  uint32_t size;
} common_images[] = {
  { "C:\\Windows\\System32\\ntdll.dll", 0x7FFB3E4D0000ull, 0x1F8000 },
  { "C:\\Windows\\System32\\kernel32.dll", 0x7FFB3D120000ull, 0xC4000 },
  { "C:\\Windows\\System32\\KernelBase.dll", 0x7FFB3BD00000ull, 0x3A8000 },
};
#define COMMON_IMAGE_COUNT (sizeof(common_images) / sizeof(common_images[0]))

#define SVCHOST_CHURN 12u /* a short-lived svchost worker every 5 s */

/* Where the service's modules sit: the exe at its ASLR base, the rest
 * 16 MB apart (ntdll & co. where every process has them). */
static uint64_t module_base(size_t i)
{
  size_t k;
  if (i == 0)
    return 0x7FF6A1B20000ull;
  for (k = 0; k < COMMON_IMAGE_COUNT; k++)
    if (!strcmp(demo_modules[i].path, common_images[k].path))
      return common_images[k].base;
  return 0x7FFB10000000ull + (uint64_t)i * 0x1000000ull;
}

/* Process_V4 (MOF class Process_V4_TypeGroup1). */
static void process_v4(struct demo_payload *p, uint32_t pid, uint32_t ppid, uint32_t session,
                       int32_t exit_status, uint32_t rid, const char *image, const char *cmdline)
{
  dp_init(p);
  dp_u64(p, 0xFFFF9A8C40000080ull + (uint64_t)pid * 0x340u); /* UniqueProcessKey */
  dp_u32(p, pid);                                             /* ProcessId */
  dp_u32(p, ppid);                                            /* ParentId */
  dp_u32(p, session);                                         /* SessionId */
  dp_u32(p, (uint32_t)exit_status);                           /* ExitStatus */
  dp_u64(p, 0x1AD000ull + (uint64_t)pid * 0x1000u);           /* DirectoryTableBase */
  dp_u32(p, 0);                                               /* Flags */
  dp_sid_nt_authority(p, rid);                                /* UserSID */
  dp_ansiz(p, image);                                         /* ImageFileName */
  dp_utf16z(p, cmdline);                                      /* CommandLine */
  dp_utf16z(p, "");                                           /* PackageFullName */
  dp_utf16z(p, "");                                           /* ApplicationId */
}

/* Thread_V3 (MOF class Thread_V3_TypeGroup1). */
static void thread_v3(struct demo_payload *p, uint32_t pid, uint32_t tid, uint64_t start)
{
  uint64_t stack = 0xFFFFF58A10000000ull + (uint64_t)tid * 0x8000u;
  dp_init(p);
  dp_u32(p, pid);                                       /* ProcessId */
  dp_u32(p, tid);                                       /* TThreadId */
  dp_u64(p, stack);                                     /* StackBase */
  dp_u64(p, stack - 0x6000);                            /* StackLimit */
  dp_u64(p, pid > 4 ? 0xB0C0000000ull + (uint64_t)tid * 0x100000u : 0); /* UserStackBase */
  dp_u64(p, pid > 4 ? 0xB0BFFF0000ull + (uint64_t)tid * 0x100000u : 0); /* UserStackLimit */
  dp_u64(p, 0xF);                                       /* Affinity */
  dp_u64(p, start);                                     /* Win32StartAddr */
  dp_u64(p, pid > 4 ? 0xB0A0000000ull + (uint64_t)tid * 0x2000u : 0); /* TebBase */
  dp_u32(p, 0);                                         /* SubProcessTag */
  dp_u8(p, 8);                                          /* BasePriority */
  dp_u8(p, 5);                                          /* PagePriority */
  dp_u8(p, 2);                                          /* IoPriority */
  dp_u8(p, 0);                                          /* ThreadFlags */
}

/* Image_V3 (MOF class Image_Load). */
static void image_v3(struct demo_payload *p, uint64_t base, uint32_t size, uint32_t pid,
                     const char *path)
{
  uint32_t h = 2166136261u;
  const char *c;
  for (c = path; *c; c++)
    h = (h ^ (uint8_t)*c) * 16777619u; /* a stable checksum and link time per file */
  dp_init(p);
  dp_u64(p, base);                  /* ImageBase */
  dp_u64(p, size);                  /* ImageSize */
  dp_u32(p, pid);                   /* ProcessId */
  dp_u32(p, (h & 0xFFFFF) + size);  /* ImageChecksum */
  dp_u32(p, 0x5F000000u + (h >> 8)); /* TimeDateStamp */
  dp_u8(p, 12);                     /* SignatureLevel */
  dp_u8(p, 1);                      /* SignatureType */
  dp_u16(p, 0);                     /* Reserved0 */
  dp_u64(p, base);                  /* DefaultBase */
  dp_u32(p, 0);                     /* Reserved1 */
  dp_u32(p, 0);                     /* Reserved2 */
  dp_u32(p, 0);                     /* Reserved3 */
  dp_u32(p, 0);                     /* Reserved4 */
  dp_utf16z(p, path);               /* FileName */
}

static uint64_t thread_start_address(uint32_t pid, uint32_t tid)
{
  if (pid <= 4) /* System's threads run kernel code */
    return 0xFFFFF806403A2F10ull + (tid % 7u) * 0x1F0u;
  return 0x7FFB3E52A2E0ull + (tid % 5u) * 0x60u; /* ntdll!TppWorkerThread & co. */
}

static int rundown_start(struct demo_session *s)
{
  struct demo_payload p;
  uint32_t t = 1000; /* 1 ms in: the logger's own rundown */
  size_t i, k;
  int rc = 0;
  for (i = 0; i < BG_COUNT && !rc; i++) {
    const struct bg_process *b = &bg[i];
    process_v4(&p, b->pid, b->ppid, b->session, 259 /* STILL_ACTIVE */, b->rid, b->image,
               b->cmdline);
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_PROCESS_DCSTART, 4, &p);
    t += 40;
    for (k = 0; k < b->threads && !rc; k++) {
      uint32_t tid = b->first_tid + 4u * (uint32_t)k;
      thread_v3(&p, b->pid, tid, thread_start_address(b->pid, tid));
      rc = demo_add_system(s, 0, DEMO_RAW(t), HOOK_THREAD_DCSTART, 3, b->pid, tid, &p);
      t += 15;
    }
  }
  for (i = 0; i < BG_COUNT && !rc; i++) {
    const struct bg_process *b = &bg[i];
    if (b->pid == 4) {
      for (k = 0; k < KERNEL_IMAGE_COUNT && !rc; k++) {
        image_v3(&p, kernel_images[k].base, kernel_images[k].size, 0, kernel_images[k].path);
        rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_IMAGE_DCSTART, 3, &p);
        t += 20;
      }
      continue;
    }
    image_v3(&p, 0x7FF600000000ull + (uint64_t)b->pid * 0x10000u, 0x20000, b->pid, b->path);
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_IMAGE_DCSTART, 3, &p);
    t += 20;
    for (k = 0; k < COMMON_IMAGE_COUNT && !rc; k++) {
      image_v3(&p, common_images[k].base, common_images[k].size, b->pid, common_images[k].path);
      rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_IMAGE_DCSTART, 3, &p);
      t += 20;
    }
  }
  return rc;
}

static int service(struct demo_session *s)
{
  struct demo_payload p;
  size_t i;
  int rc;
  /* services.exe starts the service (it runs as NetworkService). */
  process_v4(&p, DEMO_SERVICE_PID, 712, 0, 259, RID_NETWORK_SERVICE, "OrderService.exe",
             "\"C:\\Services\\OrderService\\OrderService.exe\"");
  rc = demo_add_system(s, demo_cpu_of(716), DEMO_RAW(1000000 - 100), HOOK_PROCESS_START, 4, 712,
                       716, &p);
  for (i = 0; i < demo_thread_count && !rc; i++) {
    const struct demo_thread *th = &demo_threads[i];
    uint32_t creator_pid = th->creator_tid == 716 ? 712 : DEMO_SERVICE_PID;
    thread_v3(&p, DEMO_SERVICE_PID, th->tid, thread_start_address(DEMO_SERVICE_PID, th->tid));
    rc = demo_add_system(s, demo_cpu_of(th->creator_tid), DEMO_RAW(th->created_us - 20),
                         HOOK_THREAD_START, 3, creator_pid, th->creator_tid, &p);
  }
  for (i = 0; i < demo_module_count && !rc; i++) {
    image_v3(&p, module_base(i), demo_modules[i].size, DEMO_SERVICE_PID, demo_modules[i].path);
    rc = demo_add_system(s, demo_cpu_of(DEMO_MAIN_TID), DEMO_RAW(demo_modules[i].at_us),
                         HOOK_IMAGE_LOAD, 3, DEMO_SERVICE_PID, DEMO_MAIN_TID, &p);
  }
  return rc;
}

static int svchost_churn(struct demo_session *s)
{
  struct demo_payload p;
  uint32_t k;
  int rc = 0;
  for (k = 0; k < SVCHOST_CHURN && !rc; k++) {
    uint32_t tid = 7000 + 4 * k, at = 2500000 + 5000000 * k;
    thread_v3(&p, 1180, tid, thread_start_address(1180, tid));
    rc = demo_add_system(s, demo_cpu_of(1184), DEMO_RAW(at), HOOK_THREAD_START, 3, 1180, 1184, &p);
    if (!rc)
      rc = demo_add_system(s, demo_cpu_of(tid), DEMO_RAW(at + 40000), HOOK_THREAD_END, 3, 1180,
                           tid, &p);
  }
  return rc;
}

/* Which thread the CPU runs at `t`, and where. */
static void who_runs(struct demo_rng *r, uint16_t cpu, uint32_t t, uint32_t *tid, uint64_t *ip)
{
  uint32_t candidates[8], n = 0, busy;
  size_t i;
  *tid = 0;
  *ip = 0xFFFFF8064041A3B0ull + demo_rng_below(r, 0x40); /* the idle loop */
  if (t >= DEMO_LONG_GC_SUSPEND_US && t < DEMO_LONG_GC_RESTARTED_US) {
    /* The runtime is suspended: the GC thread works (first waiting for the
     * one thread still spinning in a loop), everyone else waits. */
    if (cpu == demo_cpu_of(DEMO_LONG_GC_TID)) {
      *tid = DEMO_LONG_GC_TID;
      *ip = 0x7FFB1B052000ull + demo_rng_below(r, 0x3A0000); /* coreclr.dll */
    } else if (cpu == demo_cpu_of(DEMO_STUCK_TID) && t < DEMO_LONG_GC_SUSPENDED_US) {
      *tid = DEMO_STUCK_TID;
      *ip = 0x7FFA1C5F3A40ull + demo_rng_below(r, 0x80); /* a jitted loop */
    }
    return;
  }
  busy = t < 1000000 ? 8 : t < 4000000 ? 90 : demo_in_surge(t) ? 80 : 30;
  if (demo_rng_below(r, 100) >= busy)
    return;
  for (i = 0; i < demo_thread_count && n < 8; i++)
    if (demo_threads[i].created_us <= t && demo_cpu_of(demo_threads[i].tid) == cpu)
      candidates[n++] = demo_threads[i].tid;
  if (!n || demo_rng_below(r, 100) < 15) {
    *tid = 1028; /* svchost (NetworkService) */
    *ip = 0x7FFB3E52F000ull + demo_rng_below(r, 0x100000);
    return;
  }
  *tid = candidates[demo_rng_below(r, n)];
  switch (demo_rng_below(r, 10)) {
  case 0: case 1: case 2:
    *ip = 0x7FFB1B052000ull + demo_rng_below(r, 0x3A0000); /* coreclr.dll */
    break;
  case 3: case 4:
    *ip = 0x7FFB1F010000ull + demo_rng_below(r, 0xE00000); /* System.Private.CoreLib */
    break;
  default:
    *ip = 0x7FFA1C500000ull + demo_rng_below(r, 0x400000); /* jitted code */
  }
}

static int sampled_profile(struct demo_session *s)
{
  struct demo_rng r;
  struct demo_payload p;
  uint16_t cpu;
  uint32_t ms, tid;
  uint64_t ip;
  int rc = 0;
  demo_rng_init(&r, 0x5EEDC0DEull);
  for (cpu = 0; cpu < DEMO_CPUS && !rc; cpu++)
    for (ms = 1; ms < DEMO_RUN_US / 1000u && !rc; ms++) {
      uint32_t t = ms * 1000u + cpu * 37u;
      who_runs(&r, cpu, t, &tid, &ip);
      /* SampledProfile: InstructionPointer, ThreadId, Count, Reserved. */
      dp_init(&p);
      dp_u64(&p, ip);
      dp_u32(&p, tid);
      dp_u16(&p, 1);
      dp_u16(&p, 0);
      rc = demo_add_perfinfo(s, cpu, DEMO_RAW(t), HOOK_SAMPLED_PROFILE, 2, &p);
    }
  return rc;
}

static int rundown_end(struct demo_session *s)
{
  struct demo_payload p;
  uint32_t t = DEMO_RUN_US - 9000;
  size_t i, k;
  int rc = 0;
  for (i = 0; i < BG_COUNT && !rc; i++) {
    process_v4(&p, bg[i].pid, bg[i].ppid, bg[i].session, 259, bg[i].rid, bg[i].image,
               bg[i].cmdline);
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_PROCESS_DCEND, 4, &p);
    t += 30;
  }
  if (!rc) {
    process_v4(&p, DEMO_SERVICE_PID, 712, 0, 259, RID_NETWORK_SERVICE, "OrderService.exe",
               "\"C:\\Services\\OrderService\\OrderService.exe\"");
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_PROCESS_DCEND, 4, &p);
    t += 30;
  }
  for (k = 0; k < KERNEL_IMAGE_COUNT && !rc; k++) {
    image_v3(&p, kernel_images[k].base, kernel_images[k].size, 0, kernel_images[k].path);
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_IMAGE_DCEND, 3, &p);
    t += 20;
  }
  for (i = 0; i < demo_module_count && !rc; i++) {
    image_v3(&p, module_base(i), demo_modules[i].size, DEMO_SERVICE_PID, demo_modules[i].path);
    rc = demo_add_perfinfo(s, 0, DEMO_RAW(t), HOOK_IMAGE_DCEND, 3, &p);
    t += 20;
  }
  return rc;
}

int demo_script_kernel(struct demo_session *s)
{
  int rc = rundown_start(s);
  if (!rc)
    rc = service(s);
  if (!rc)
    rc = svchost_churn(s);
  if (!rc)
    rc = sampled_profile(s);
  if (!rc)
    rc = rundown_end(s);
  return rc;
}
