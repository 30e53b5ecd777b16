/* See work_cancel.h. */
#include "src/capture/work_cancel.h"

#include "src/base/cancel.h"
#include "src/os/console.h"

#include <stddef.h>

static int signalled(void)
{
  return console_signal_pending() != CONSOLE_SIGNAL_NONE;
}

void work_cancel_begin(void)
{
  /* Without the handler a signal ends the process as before: nothing
   * better to do than carry on. */
  if (console_open() == 0)
    cancel_set_poll(signalled);
}

void work_cancel_end(void)
{
  /* The handler stays: a signal after the work is done (the output is
   * complete, the inputs are gone) must not kill the process and turn a
   * success into a death by signal.  The command ends soon after. */
  cancel_set_poll(NULL);
  console_stop_done();
}

const char *work_cancel_reason(void)
{
  enum console_signal sig = console_signal_pending();
  return sig == CONSOLE_SIGNAL_NONE ? NULL : console_signal_name(sig);
}
