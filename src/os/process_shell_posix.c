/* process_shell.h off Windows: /StopCommand and run's command belong to
 * collect and run, which need Windows; the portable tests script the
 * runner and the child (collection_env). */
#include "src/os/process_shell.h"

#include "src/base/error.h"

#include <stdio.h>

int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size)
{
  (void)line, (void)timeout_ms;
  *exit_code = -1;
  snprintf(why, why_size, "cmd.exe: running a command needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

int process_run_system_tool(const char *name, const char *args, unsigned timeout_ms,
                            int *exit_code, char *why, unsigned why_size)
{
  (void)args, (void)timeout_ms;
  *exit_code = -1;
  snprintf(why, why_size, "%s.exe: running a Windows tool needs Windows", name);
  return ETWCAP_E_NEEDS_WINDOWS;
}

int process_run_program(const char *app, const char *args, unsigned timeout_ms, int *exit_code,
                        char *why, unsigned why_size)
{
  (void)args, (void)timeout_ms;
  *exit_code = -1;
  snprintf(why, why_size, "%s: running a Windows program needs Windows", app);
  return ETWCAP_E_NEEDS_WINDOWS;
}

int process_run_system_tool_output(const char *name, const char *args, unsigned timeout_ms,
                                   int *exit_code, char *output, size_t output_size, char *why,
                                   unsigned why_size)
{
  if (output_size)
    output[0] = '\0';
  return process_run_system_tool(name, args, timeout_ms, exit_code, why, why_size);
}

int process_child_start(const char *line, struct process_child **out, char *why,
                        unsigned why_size)
{
  (void)line;
  *out = NULL;
  snprintf(why, why_size, "running a command needs Windows");
  return ETWCAP_E_NEEDS_WINDOWS;
}

int process_child_exited(struct process_child *c, int *exit_code)
{
  (void)c;
  *exit_code = -1;
  return ETWCAP_E_NEEDS_WINDOWS;
}

void process_child_close(struct process_child *c, int kill)
{
  (void)c, (void)kill;
}
