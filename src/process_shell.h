/* (Not "process.h": that name is the C runtime's, and src/ is on the
 * include path.)  Running a command line and waiting for it, for /StopCommand: on Windows
 * `%SystemRoot%\SysNative\cmd.exe /c LINE` (the 64-bit cmd even from a
 * 32-bit process; System32 when SysNative does not exist), as PerfView
 * does (perfview-collect.md §3.4).  Off Windows it answers "needs
 * Windows": collect, its only user, needs Windows. */
#ifndef ETWCAP_PROCESS_SHELL_H
#define ETWCAP_PROCESS_SHELL_H

#define PROCESS_STOP_COMMAND_TIMEOUT_MS 60000u /* PerfView waits 60 s */

/* Runs `line` through cmd.exe /c and waits up to timeout_ms.  0 with
 * *exit_code, ETWCAP_E_TIMEOUT (the command is left running), or an
 * ETWCAP_E_* with the failing API and raw code in `why`. */
int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size);

#endif
