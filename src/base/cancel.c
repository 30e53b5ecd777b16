/* See cancel.h. */
#include "src/base/cancel.h"

#include <stddef.h>

static cancel_poll_fn poll_fn;

void cancel_set_poll(cancel_poll_fn fn)
{
  poll_fn = fn;
}

int cancel_requested(void)
{
  return poll_fn != NULL && poll_fn() != 0;
}
