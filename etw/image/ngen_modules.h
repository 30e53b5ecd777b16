/* Which .NET Framework native images (NGEN, `*.ni.*`) of a trace need a
 * PDB: those loaded in the trace with at least one sampled or stacked
 * address inside them, as PerfView's merge chooses the images it runs
 * `ngen createPDB` for (ETWTraceEventSource.GetModulesNeedingSymbols).
 *
 * A streaming observer: feed it every event of the merged trace, in time
 * order, and ask for the answer at the end.  It keeps the candidate images
 * and a set of 64 KB pages (per process) that addresses fell in, never the
 * events (a sample waiting for its thread is kept as one thread-page
 * pair).  The addresses it reads, with PerfView's payload offsets
 * (KernelTraceEventParser.cs, ClrTraceEventParser.cs):
 *   - kernel PerfInfo SampledProfile (0x0F2E): InstructionPointer, the
 *     process from the ThreadId through the trace's Thread Start/DCStart
 *     events (the PERFINFO header has no process), as TraceEvent's thread
 *     tracking; a thread named only later, or only by its End/DCEnd (a
 *     circular file keeps the end rundown, not the start), is joined at
 *     the end, where PerfView's one pass would drop the sample;
 *   - kernel StackWalk Stack (0x1820): the frames, the process from the
 *     payload's StackProcess;
 *   - compressed stacks: StackKeyUser references (0x1826) joined with the
 *     KeyDelete / KeyRundown definitions (0x1823, 0x1824) of the same key,
 *     in either order (PerfView only joins a reference to a definition
 *     seen before it, so this can choose more, never fewer);
 *   - CLR ClrStackWalk (Microsoft-Windows-DotNETRuntime event 82).
 * Process 0 is skipped, as PerfView skips it.  Address and image are
 * compared as PerfView does: the 64 KB page plus the low 16 bits of the
 * process id.
 *
 * ReadyToRun images, which PerfView also lists, are left out: its PDB
 * generator runs no ngen for them (its folder rules only know the native
 * image caches, SymbolReader.GetClrDirectoryForNGenImage); it only zips a
 * PDB of theirs that its own symbol cache already holds, and etwcap has no
 * symbol cache.
 *
 * No I/O, no printing.  Lifetime: ngen_modules_new .. ngen_modules_free;
 * the paths ngen_modules_finish returns belong to the object. */
#ifndef ETWCAP_NGEN_MODULES_H
#define ETWCAP_NGEN_MODULES_H

#include "etw/event/etw_event.h"

#include <stddef.h>
#include <stdint.h>

struct ngen_modules;

struct ngen_modules_counts {
  uint64_t native_image_loads; /* image events of *.ni.* files */
  uint64_t addresses;          /* sampled and stacked user-mode addresses read */
  uint64_t pages;              /* distinct (page, process) keys they fell in */
};

int ngen_modules_new(struct ngen_modules **out);
void ngen_modules_free(struct ngen_modules *m);

/* Takes what it needs from one event.  0 or ETWCAP_E_NOMEM; a payload too
 * short for its kind is skipped. */
int ngen_modules_observe(struct ngen_modules *m, const struct etw_event *ev);

/* After the last event: the chosen images' paths as logged (UTF-8, the
 * trace's NT or DOS form), each once, in first-load order.  0 or
 * ETWCAP_E_NOMEM. */
int ngen_modules_finish(struct ngen_modules *m, const char *const **paths, size_t *count);

void ngen_modules_counts(const struct ngen_modules *m, struct ngen_modules_counts *c);

#endif
