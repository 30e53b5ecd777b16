/* (Not "process.h": that name is the C runtime's, and src/ is on the
 * include path.)  Running a command line: for /StopCommand, waiting for it,
 * on Windows `%SystemRoot%\SysNative\cmd.exe /c LINE` (the 64-bit cmd even
 * from a 32-bit process; System32 when SysNative does not exist), as
 * PerfView does (docs/perfview-collection.md §3.4); for `run`, started and left
 * running while the capture watches it; for schedule, a tool of the system
 * folder run directly; for NGEN PDBs, ngen.exe by its full path.  Off
 * Windows all answer "needs Windows": collect, run, schedule and ngen,
 * their only users, need Windows. */
#ifndef ETWCAP_PROCESS_SHELL_H
#define ETWCAP_PROCESS_SHELL_H

#include <stddef.h>

#define PROCESS_STOP_COMMAND_TIMEOUT_MS 60000u /* PerfView waits 60 s */

/* Runs `line` through cmd.exe /c and waits up to timeout_ms.  0 with
 * *exit_code, ETWCAP_E_TIMEOUT (the command is left running), or an
 * ETWCAP_E_* with the failing API and raw code in `why`. */
int process_run_shell(const char *line, unsigned timeout_ms, int *exit_code, char *why,
                      unsigned why_size);

/* Runs NAME.exe from the system folder (GetSystemDirectoryW) with the
 * command line `args` and waits as process_run_shell does.  Never a NAME
 * found on the PATH or in the current folder, as cmd.exe would look first:
 * schedule runs schtasks elevated, from whatever folder it was typed in. */
int process_run_system_tool(const char *name, const char *args, unsigned timeout_ms,
                            int *exit_code, char *why, unsigned why_size);

/* Runs the program at the full path `app` (UTF-8) with the arguments
 * `args` and waits as process_run_shell does.  ETWCAP_E_NOENT when no file
 * is there. */
int process_run_program(const char *app, const char *args, unsigned timeout_ms, int *exit_code,
                        char *why, unsigned why_size);
/* The same with the tool's output and errors caught rather than shown:
 * their first output_size - 1 bytes in `output` (NUL-terminated, bytes as
 * the tool wrote them), and no console window.  For netsh, whose output
 * is the only account of why it failed.  `output` is filled only when the
 * tool ran to its end. */
int process_run_system_tool_output(const char *name, const char *args, unsigned timeout_ms,
                                   int *exit_code, char *output, size_t output_size, char *why,
                                   unsigned why_size);

/* A command `run` started: the program itself when `line` names an .exe
 * and holds no redirection (< > &), else `cmd.exe /c call LINE` (PerfView's
 * Run, CommandProcessor.cs).  It shares etwcap's console. */
struct process_child;
/* 0 with *out, or an ETWCAP_E_* with the failing API and raw code in `why`. */
int process_child_start(const char *line, struct process_child **out, char *why,
                        unsigned why_size);
/* 1 when it has exited (*exit_code set), 0 while it runs, < 0 on error. */
int process_child_exited(struct process_child *c, int *exit_code);
/* Ends it first when `kill` and it still runs; frees it. */
void process_child_close(struct process_child *c, int kill);

#endif
