/* Registering the task of `etwcap schedule` with Windows: the system
 * folder's schtasks.exe (process_shell.h), its output on etwcap's console.  schedule_os_win32.c; elsewhere "needs Windows". */
#ifndef ETWCAP_SCHEDULE_OS_H
#define ETWCAP_SCHEDULE_OS_H

/* schtasks /Create /TN \etwcap\NAME /XML FILE /F with `xml` written to a
 * temporary file as UTF-16 LE with its byte-order mark (what schtasks
 * reads).  0, or an ETWCAP_E_* with the reason in why. */
int schedule_os_create(const char *name, const char *xml, char *why, unsigned why_size);
/* schtasks /Delete /TN \etwcap\NAME /F. */
int schedule_os_delete(const char *name, char *why, unsigned why_size);
/* schtasks /Query /TN \etwcap\ : etwcap's tasks, printed by schtasks. */
int schedule_os_list(char *why, unsigned why_size);

#endif
