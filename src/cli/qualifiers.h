/* Qualifier groups shared by several commands.  Each group is defined in its
 * own file (qualifiers_*.c); a command lists the groups it accepts. */
#ifndef ETWCAP_QUALIFIERS_H
#define ETWCAP_QUALIFIERS_H

#include "src/cli/options.h"
#include "src/cli/qualifier_values.h"

extern const struct opt_group opt_group_output;   /* data file, sessions, buffers */
extern const struct opt_group opt_group_events;   /* kernel, CLR, providers, focus */
extern const struct opt_group opt_group_rundown;  /* rundown at stop */
extern const struct opt_group opt_group_merge;    /* merge and zip after stop */
extern const struct opt_group opt_group_triggers; /* StopOn/StartOn */
extern const struct opt_group opt_group_report;   /* the report page after a capture */
extern const struct opt_group opt_group_snapshots; /* stay armed: snapshots of the ring */
extern const struct opt_group opt_group_segments;  /* stay armed: rotating segments */
extern const struct opt_group opt_group_rundown_period; /* rundown into the capture */
extern const struct opt_group opt_group_operators; /* /EventLog */
extern const struct opt_group opt_group_viewer;   /* PerfView's viewer settings: no effect */

#endif
