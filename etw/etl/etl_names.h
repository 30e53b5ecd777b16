/* Names for people: kernel event groups and well-known provider GUIDs, for
 * `etwcap dump` and `etwcap info`.  Pure lookup tables. */
#ifndef ETWCAP_ETL_NAMES_H
#define ETWCAP_ETL_NAMES_H

#include "etw/event/guid.h"

/* "Process", "StackWalk", ... for a hook id's group; NULL when unknown. */
const char *etl_kernel_group_name(unsigned group);
/* "Microsoft-Windows-DotNETRuntime", ...; NULL when unknown. */
const char *etl_provider_name(const struct etw_guid *g);

#endif
