/* The OS side of provider-name resolution: providers registered with the
 * running Windows (manifest and MOF).  providers_os_posix.c has none.
 * providers_os_win32.c must resolve TDH/EnumerateTraceGuidsEx at run time and
 * only when asked: those calls kill the process under Wine. */
#ifndef ETWCAP_PROVIDERS_OS_H
#define ETWCAP_PROVIDERS_OS_H

#include "etw/event/guid.h"

#include <stddef.h>

/* Looks `name` (UTF-8, len bytes) up among registered providers.  Returns 0
 * and the GUID, ETWCAP_E_NOENT when there is no such provider (always on
 * POSIX), or another ETWCAP_E_* when the lookup itself failed. */
int providers_os_lookup(const char *name, size_t len, struct etw_guid *out);

#endif
