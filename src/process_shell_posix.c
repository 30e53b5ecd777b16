/* process.h off Windows: /StopCommand belongs to collect, which needs
 * Windows; the portable tests script the runner (collection_env). */
#include "process_shell.h"

#include "error.h"

#include <stdio.h>

int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size)
{
  (void)line, (void)timeout_ms;
  *exit_code = -1;
  snprintf(why, why_size, "cmd.exe: running a command needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}
