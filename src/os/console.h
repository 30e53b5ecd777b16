/* The console seam: what a user at the console (or the OS) asks of a
 * running capture.  Keys S (stop) and A (abort) are read without waiting;
 * Ctrl+C, Ctrl+Break, closing the console window, logoff and shutdown
 * arrive through the OS's handler (SetConsoleCtrlHandler on Windows,
 * signals elsewhere), which only records them: the capture's wait loop
 * sees them and takes its one stop path.  console_win32.c and
 * console_posix.c implement it.
 *
 * The state is per process, as the OS handler is.  Tests deliver a signal
 * or a key by calling console_deliver / console_push_key, the same entry
 * the OS handler uses. */
#ifndef ETWCAP_CONSOLE_H
#define ETWCAP_CONSOLE_H

enum console_signal {
  CONSOLE_SIGNAL_NONE = 0,
  CONSOLE_CTRL_C,
  CONSOLE_CTRL_BREAK,
  CONSOLE_CLOSE,    /* the console window is being closed */
  CONSOLE_LOGOFF,   /* the interactive user logs off */
  CONSOLE_SHUTDOWN  /* the machine shuts down */
};

/* Installs the handler and forgets earlier signals and keys.  Returns 0 or
 * ETWCAP_E_SYSTEM. */
int console_open(void);
/* Removes the handler; releases a handler waiting in console_deliver. */
void console_close(void);

/* The next key typed, without waiting: its character, or 0. */
int console_read_key(void);

/* The first signal received since console_open, or CONSOLE_SIGNAL_NONE. */
enum console_signal console_signal_pending(void);
/* How many signals arrived since console_open (a second Ctrl+C cuts the
 * rundown wait short). */
unsigned console_signal_count(void);

/* What the OS handler calls, and tests: records the signal.  Returns 1 when
 * it counts, 0 when it is ignored (a logoff seen by a process in session 0,
 * i.e. a service or a SYSTEM task: some user's logoff, not ours).  For
 * CONSOLE_CLOSE, LOGOFF and SHUTDOWN Windows ends the process when its
 * handler returns, so the OS handler (not this function) then waits a few
 * seconds at most for console_stop_done, giving the stop path time to stop
 * the sessions. */
int console_deliver(enum console_signal sig);
/* Tells a waiting handler the sessions are stopped. */
void console_stop_done(void);
/* Queues a key as if it was typed (tests). */
void console_push_key(int key);

/* 1 for the signals after which Windows ends the process whatever the
 * handler does (close, logoff, shutdown): the stop path then starts no new
 * session (the CLR rundown is skipped) and releases the handler only once
 * every session is stopped (docs/win32-contract.md §11.3). */
static inline int console_signal_ends_process(enum console_signal sig)
{
  return sig == CONSOLE_CLOSE || sig == CONSOLE_LOGOFF || sig == CONSOLE_SHUTDOWN;
}

/* "Ctrl+C", "console close", ... */
const char *console_signal_name(enum console_signal sig);

#endif
