/* No registered ETW providers outside Windows: every lookup is "not found",
 * so only GUIDs, *Name and the built-in table resolve there. */
#include "etw/event/providers_os.h"

#include "src/base/error.h"

int providers_os_lookup(const char *name, size_t len, struct etw_guid *out)
{
  (void)name;
  (void)len;
  (void)out;
  return ETWCAP_E_NOENT;
}
