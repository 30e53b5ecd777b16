/* The parts of the controller seam every implementation shares: the last
 * error and its text (see controller.h). */
#include "controller.h"

#include "error.h"

#include <stdio.h>

int controller_fail(struct controller *c, int code, const char *api, unsigned long os_code,
                    const char *os_name)
{
  c->last_error.api = api;
  c->last_error.os_code = os_code;
  snprintf(c->last_error.os_name, sizeof(c->last_error.os_name), "%s", os_name ? os_name : "");
  return code;
}

const char *controller_error_text(const struct controller *c, char *buf, size_t size)
{
  const struct controller_error *e = &c->last_error;
  if (!e->api)
    snprintf(buf, size, "no system call failed");
  else if (e->os_name[0])
    snprintf(buf, size, "%s: %s (%lu)", e->api, e->os_name, e->os_code);
  else
    snprintf(buf, size, "%s: error %lu (0x%lX)", e->api, e->os_code, e->os_code);
  return buf;
}
