/* No Host Compute Service off Windows (hcs.h). */
#include "src/containers/hcs.h"

#include "src/base/error.h"

#include <stdio.h>

int hcs_systems_json(char **json, char *why, size_t why_size)
{
  *json = NULL;
  snprintf(why, why_size, "not Windows: no Host Compute Service to ask");
  return ETWCAP_E_UNSUPPORTED;
}

int hcs_processes_json(const char *id, char **json, char *why, size_t why_size)
{
  (void)id;
  return hcs_systems_json(json, why, why_size);
}
