/* The Windows console handler's logic, callable by tests (the handler that
 * SetConsoleCtrlHandler installs only forwards to it).  No <windows.h>
 * here: the event is CTRL_C_EVENT .. CTRL_SHUTDOWN_EVENT as an unsigned
 * long. */
#ifndef ETWCAP_CONSOLE_WIN32_H
#define ETWCAP_CONSOLE_WIN32_H

/* What the handler does for a console control event: records it
 * (console_deliver) and returns non-zero (TRUE: handled) for every event
 * etwcap knows, so Windows' default handler never ends a capture; for
 * close, logoff and shutdown it first waits, a few seconds at most, for
 * console_stop_done.  0 (FALSE) for events it does not know. */
int console_win32_handler(unsigned long ctrl_type);

#endif
