/* Not Windows: there is no running Windows version to plan for. */
#include "src/base/os/os_version.h"

#include "src/base/error.h"

int os_windows_version(struct os_version *out)
{
  (void)out;
  return ETWCAP_E_UNSUPPORTED;
}
