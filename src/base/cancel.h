/* Whether the user asked long work (merge, zip, extraction, replay /Out) to
 * stop.  The program says how to tell (its console seam records Ctrl+C,
 * SIGTERM, a console close); the work asks between steps and, when told
 * to stop, fails with ETWCAP_E_CANCELLED through its ordinary error path,
 * which removes its temporaries and leaves the inputs alone.
 *
 * Per process, like the signals it reflects. */
#ifndef ETWCAP_CANCEL_H
#define ETWCAP_CANCEL_H

typedef int (*cancel_poll_fn)(void);

/* fn returns non-zero once a stop was asked; NULL: never. */
void cancel_set_poll(cancel_poll_fn fn);
/* 1 when a stop was asked. */
int cancel_requested(void);

#endif
