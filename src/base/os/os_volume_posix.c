/* No Windows volumes off Windows (os_volume.h). */
#include "src/base/os/os_volume.h"

#include "src/base/alloc.h"
#include "src/base/error.h"

#include <string.h>

int os_volume_list_take(struct os_volume_list *out)
{
  memset(out, 0, sizeof(*out));
  return ETWCAP_E_UNSUPPORTED;
}

/* Frees a list, whoever filled it (a test's fake host does, here too). */
void os_volume_list_release(struct os_volume_list *l)
{
  etwcap_free(l->v);
  memset(l, 0, sizeof(*l));
}
