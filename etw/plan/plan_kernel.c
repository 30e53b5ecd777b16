/* Kernel stack-walk event ids: which kernel events get a stack for a set of
 * keywords.  Same choices and order as TraceEvent's SetStackTraceIds
 * (docs/perfview-collection.md §4.2), so traces look the same to analysis
 * tools. */
#include "etw/event/keywords.h"
#include "etw/plan/plan.h"

/* Kernel event-class (task) GUIDs. */
static const struct etw_guid perfinfo = { 0xce1dbfb4, 0x137e, 0x4da6, { 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };
static const struct etw_guid thread = { 0x3d6fa8d1, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const struct etw_guid process = { 0x3d6fa8d0, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const struct etw_guid diskio = { 0x3d6fa8d4, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const struct etw_guid pagefault = { 0x3d6fa8d3, 0xfe05, 0x11d0, { 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const struct etw_guid fileio = { 0x90cbdc39, 0x4a3e, 0x11d1, { 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };
static const struct etw_guid registry = { 0xae53722e, 0xc863, 0x11d2, { 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 } };
static const struct etw_guid object = { 0x89497f50, 0xeffe, 0x4440, { 0x8c, 0xf2, 0xce, 0x6b, 0x1c, 0xdc, 0xac, 0xa7 } };
static const struct etw_guid alpc = { 0x45d8cccd, 0x539f, 0x4b72, { 0xa8, 0xb7, 0x5c, 0x68, 0x31, 0x42, 0x60, 0x9a } };

struct rule {
  uint64_t keywords; /* any of these */
  const struct etw_guid *task;
  uint8_t types[16];
  unsigned count;
};

static const struct rule rules[] = {
  { 0x1000000, &perfinfo, { 0x2E }, 1 },                       /* Profile: SampledProfile */
  { 0x80000000, &perfinfo, { 0x2F }, 1 },                      /* PMCProfile */
  { 0x80, &perfinfo, { 0x34 }, 1 },                            /* SystemCall: exit */
  { 0x2, &thread, { 0x01 }, 1 },                               /* Thread: create */
  { 0x10, &thread, { 0x24 }, 1 },                              /* ContextSwitch */
  { 0x20000000, &thread, { 0x30, 0x31 }, 2 },                  /* ThreadPriority */
  { 0x800, &thread, { 0x32 }, 1 },                             /* Dispatcher: ReadyThread */
  { 0x10000000, &thread, { 0x3E, 0x3F }, 2 },                  /* IOQueue */
  { 0x400000, &object, { 0x20, 0x21, 0x22 }, 3 },              /* Handle */
  { 0x4, &process, { 0x0A }, 1 },                              /* ImageLoad (TraceEvent uses the Process task) */
  { 0x1, &process, { 0x0B }, 1 },                              /* Process: terminate only */
  { 0x400, &diskio, { 0x0C, 0x0D, 0x0F }, 3 },                 /* DiskIOInit */
  { 0x4000 | 0x40000000, &pagefault, { 0x62 }, 1 },            /* VirtualAlloc, ReferenceSet */
  { 0x8000, &fileio, { 0x25 }, 1 },                            /* VAMap */
  { 0x2000, &pagefault, { 0x20 }, 1 },                         /* MemoryHardFaults */
  { 0x1000, &pagefault, { 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F }, 6 }, /* Memory */
  { 0x40000000, &pagefault, { 0x49, 0x4F, 0x76, 0x77, 0x78, 0x79, 0x82, 0x83 }, 8 }, /* ReferenceSet */
  { 0x4000000, &fileio, { 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4A, 0x4B, 0x4D }, 12 }, /* FileIOInit */
  { 0x20000, &registry, { 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x1A }, 15 }, /* Registry */
  { 0x100000, &alpc, { 33, 34, 35, 36, 37 }, 5 },              /* AdvancedLocalProcedureCalls */
};

size_t plan_kernel_stack_ids(uint64_t stack_keywords, struct plan_stack_id *out, size_t max)
{
  size_t n = 0, r;
  unsigned i;
  for (r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
    if (!(stack_keywords & rules[r].keywords))
      continue;
    for (i = 0; i < rules[r].count && n < max; i++) {
      out[n].task = *rules[r].task;
      out[n].type = rules[r].types[i];
      n++;
    }
  }
  return n;
}
