/* Registered-provider lookup on Windows.  Not implemented yet: it needs
 * TdhEnumerateProviders loaded at run time (tdh.dll is missing on Nano
 * Server, and TDH kills the process under Wine, so it must never be called
 * unconditionally).  Until then names outside the built-in table are
 * reported as unknown, with the hint to give a GUID or *Name. */
#include "etw/event/providers_os.h"

#include "src/base/error.h"

int providers_os_lookup(const char *name, size_t len, struct etw_guid *out)
{
  (void)name;
  (void)len;
  (void)out;
  return ETWCAP_E_NOENT;
}
