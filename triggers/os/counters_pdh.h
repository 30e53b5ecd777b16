/* Performance counters for /StopOnPerfCounter and /StartOnPerfCounter from
 * PDH (counters_pdh_win32.c: pdh.dll loaded at run time, English counter
 * paths, instance wildcards, counters whose instance appears later), as a
 * trigger_counter_source.  Off Windows (counters_pdh_posix.c) opening a
 * counter answers "needs Windows". */
#ifndef ETWCAP_COUNTERS_PDH_H
#define ETWCAP_COUNTERS_PDH_H

#include "triggers/trigger_engine.h"

/* The system's counters.  The source holds a PDH query once a counter is
 * opened; counters_pdh_release frees it (safe on a source never used). */
struct trigger_counter_source counters_pdh_system(void);
void counters_pdh_release(struct trigger_counter_source *src);

#endif
