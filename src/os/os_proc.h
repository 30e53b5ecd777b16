/* Process-level OS services: UTF-8 argv, elevation, the OS name for logs.
 * Implemented by os_proc_posix.c and os_proc_win32.c. */
#ifndef ETWCAP_OS_PROC_H
#define ETWCAP_OS_PROC_H

/* Replaces *argv with UTF-8 arguments (on Windows, from GetCommandLineW; the
 * C runtime's argv is in the ANSI code page and loses characters).  The
 * result lives until os_free_utf8_argv.  Returns 0 or ETWCAP_E_*. */
int os_get_utf8_argv(int *argc, char ***argv);
/* Process-wide settings made once, first thing in main.  Windows: no
 * critical-error box (SetErrorMode SEM_FAILCRITICALERRORS, "Error Mode"
 * page), so that a file named on a drive with no disk in it fails at once
 * instead of waiting for a click nobody may be there to give (a trace
 * names the files the merge opens).  POSIX: nothing. */
void os_process_setup(void);
void os_free_utf8_argv(int argc, char **argv);

/* 1 when the process runs with Administrator rights (Windows) or as root. */
int os_is_elevated(void);
/* 1 on Windows. */
int os_is_windows(void);
/* "Windows 10.0 build 20348", "Linux 6.1.0" ... for logs and manifests. */
const char *os_describe(char *buf, unsigned size);

/* This machine's name (DNS host name where there is one). */
const char *os_hostname(char *buf, unsigned size);
/* This program's own path (UTF-8) into buf; 0, or an ETWCAP_E_*. */
int os_exe_path(char *buf, unsigned size);
/* The current folder (UTF-8, absolute) into buf; 0, or an ETWCAP_E_*. */
int os_current_dir(char *buf, unsigned size);
/* 1 when standard error is an interactive console: progress goes there as
 * one updating line; otherwise progress becomes periodic log lines. */
int os_stderr_is_terminal(void);

#endif
