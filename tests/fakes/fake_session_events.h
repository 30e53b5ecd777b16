/* The events a session of the fake controller writes into its file, by the
 * state the fake models (tests/fakes/README.md, "fake_controller"): the
 * kernel's CSwitch and SampledProfile while their groups are on, its
 * Process and Image DCStart after a start with those flags and their DCEnd
 * at a stop, the CLR rundown's ModuleDCEnd and MethodDCEndVerbose after a
 * rundown request; with stack caching on, each SampledProfile's kernel
 * stack as a StackKeyKernel reference, and at a stop the key's KeyRundown
 * definition.  Each is written with the header and identity Windows
 * gives it (docs/etl.md §4.2), so the merge, `etwcap dump` and the tests
 * read them as they read a real trace; and fake_event_census counts them
 * back from an ETL or a zip by that identity alone. */
#ifndef ETWCAP_FAKE_SESSION_EVENTS_H
#define ETWCAP_FAKE_SESSION_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum fake_event_kind {
  FAKE_EVENT_CSWITCH = 1 << 0,             /* Thread/CSwitch, hook 0x0524 */
  FAKE_EVENT_SAMPLED_PROFILE = 1 << 1,     /* PerfInfo/SampledProfile, hook 0x0F2E */
  FAKE_EVENT_PROCESS_DCSTART = 1 << 2,     /* hook 0x0303 */
  FAKE_EVENT_IMAGE_DCSTART = 1 << 3,       /* hook 0x1403 */
  FAKE_EVENT_PROCESS_DCEND = 1 << 4,       /* hook 0x0304 */
  FAKE_EVENT_IMAGE_DCEND = 1 << 5,         /* hook 0x1404 */
  FAKE_EVENT_MODULE_DCEND = 1 << 6,        /* CLR rundown, event 154 */
  FAKE_EVENT_METHOD_DCEND_VERBOSE = 1 << 7, /* CLR rundown, event 144 */
  FAKE_EVENT_STACK_KEY_KERNEL = 1 << 8,    /* StackWalk/StackKeyKernel, hook 0x1825 */
  FAKE_EVENT_STACK_KEY_RUNDOWN = 1 << 9    /* StackWalk/KeyRundown, hook 0x1824 */
};
#define FAKE_EVENT_KINDS 10

/* What the stack-caching kinds say: the SampledProfile of the idle thread
 * (thread 0, process 0, named "Idle" by its Process DCStart) at
 * FAKE_STACK_IP, its stack key, and the key's two kernel frames. */
#define FAKE_STACK_IP 0xFFFFF80000101010ull
#define FAKE_STACK_KEY 0xFFFFA00000000040ull
#define FAKE_STACK_CALLER 0xFFFFF80000202020ull

/* A small valid ETL (the header as fake_etl_write writes it), `events`
 * filler events, then one record of each kind in `kinds`.  0 or
 * ETWCAP_E_*. */
int fake_etl_write_kinds(const char *path, const char *logger, unsigned events, unsigned seed,
                         unsigned kinds);

/* Counts the records of each kind in every ETL of `path` (an .etl, or each
 * .etl member of a zip): counts[i] for kind 1 << i.  0, or the reader's
 * error with its message in err. */
int fake_event_census(const char *path, unsigned counts[FAKE_EVENT_KINDS], char *err,
                      size_t err_size);

/* The kinds a kernel session writes while these groups are on
 * (PERFINFO_GROUPMASK words): CSwitch for PERF_CONTEXT_SWITCH, SampledProfile
 * for PERF_PROFILE; at a stop also DCEnd for PERF_PROCESS and PERF_LOADER. */
unsigned fake_kernel_kinds(const uint32_t mask[8], int at_stop);

/* The kinds a CLR rundown request with `keywords` brings (0 without the
 * EndRundown keyword 0x100): ModuleDCEnd for Loader 0x8, MethodDCEndVerbose
 * for Jit 0x10 or NGen 0x20. */
unsigned fake_clr_rundown_kinds(uint64_t keywords);

#endif
