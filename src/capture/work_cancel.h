/* Ctrl+C, Ctrl+Break, SIGTERM or a console close during merge, zip,
 * /ImageIDsOnly or replay /Out: the console seam records the signal, the
 * work sees it through cancel.h, fails with ETWCAP_E_CANCELLED (exit 8)
 * through its ordinary error path (temporaries removed, inputs untouched). */
#ifndef ETWCAP_WORK_CANCEL_H
#define ETWCAP_WORK_CANCEL_H

/* Installs the console's signal handler and makes cancel_requested() see it. */
void work_cancel_begin(void);
/* Stops asking; tells a waiting console-close handler we are done.  The
 * handler stays installed until the process ends (see work_cancel.c). */
void work_cancel_end(void);
/* "Ctrl+C", "console close", ... for the message, or NULL when none came. */
const char *work_cancel_reason(void);

#endif
