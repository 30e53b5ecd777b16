/* operator_log.h off Windows: there is no Application log; /EventLog
 * belongs to collect, which needs Windows. */
#include "src/os/operator_log.h"

#include "src/base/error.h"

int operator_log_write(enum operator_event id, const char *text)
{
  (void)id, (void)text;
  return ETWCAP_E_NEEDS_WINDOWS;
}
