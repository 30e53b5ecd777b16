/* etwcap's own provider off Windows (see own_provider.h): there is no ETW
 * to write to. */
#include "src/os/own_provider.h"

#include "src/base/error.h"

#include <stdio.h>

int own_provider_open(struct own_provider **out, char *why, size_t why_size)
{
  *out = NULL;
  snprintf(why, why_size, "writing ETW events needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

int own_provider_listened(const struct own_provider *p)
{
  (void)p;
  return 0;
}

int own_provider_write(struct own_provider *p, const struct tl_encoded *e, char *why,
                       size_t why_size)
{
  (void)p;
  (void)e;
  snprintf(why, why_size, "writing ETW events needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

void own_provider_close(struct own_provider *p)
{
  (void)p;
}
