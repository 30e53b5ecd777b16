/* The parts of the controller seam every implementation shares: the last
 * error and its text (see controller.h). */
#include "controller.h"

#include "error.h"

#include "log.h"

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

static int is_provider_data(uint32_t type)
{
  return type == PLAN_FILTER_PROVIDER_DATA || type == PLAN_FILTER_SEND_MANIFEST;
}

static int has_scope_filters(const struct plan_provider *p)
{
  size_t i;
  for (i = 0; i < p->filter_count; i++)
    if (!is_provider_data(p->filters[i].type))
      return 1;
  return 0;
}

/* Leaves only the provider-data descriptor (EventSource arguments), which
 * every Windows since Vista takes. */
static void strip_scope_filters(struct plan_provider *q)
{
  size_t i, n = 0;
  for (i = 0; i < q->filter_count; i++)
    if (is_provider_data(q->filters[i].type))
      q->filters[n++] = q->filters[i];
  q->filter_count = n;
}

#define CONTAINER_BITS \
  (PLAN_ENABLE_PROPERTY_ENABLE_SILOS | PLAN_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING)

int controller_enable_adapting(struct controller *c, uint64_t handle,
                               const struct plan_provider *p, unsigned params_version,
                               unsigned *dropped, controller_warn_fn warn, void *warn_ctx)
{
  struct plan_provider q = *p; /* a shallow copy: the plan stays as it is */
  char detail[160], text[1024];
  int rc;

  if (*dropped & CONTROLLER_DROP_CONTAINERS)
    q.enable_property &= ~CONTAINER_BITS;
  if (*dropped & CONTROLLER_DROP_FILTERS)
    strip_scope_filters(&q);
  for (;;) {
    rc = c->ops->enable_provider(c, handle, &q, params_version);
    if (rc != ETWCAP_E_UNSUPPORTED)
      return rc;
    if (q.enable_property & CONTAINER_BITS) {
      snprintf(text, sizeof(text),
               "Windows refused the container enable flags (ENABLE_SILOS, "
               "SOURCE_CONTAINER_TRACKING) for %s (%s): /EnableEventsInContainers and "
               "/EnableSourceContainerTracking are dropped, so events from inside containers "
               "are not collected",
               q.name, controller_error_text(c, detail, sizeof(detail)));
      *dropped |= CONTROLLER_DROP_CONTAINERS;
      q.enable_property &= ~CONTAINER_BITS;
    } else if (has_scope_filters(&q)) {
      snprintf(text, sizeof(text),
               "Windows refused the provider filters for %s (%s): /FocusProcess and the "
               "@ProcessIDFilter, @ProcessNameFilter, @EventIDsToEnable and stack filters are "
               "dropped, so those providers' events come from every process",
               q.name, controller_error_text(c, detail, sizeof(detail)));
      *dropped |= CONTROLLER_DROP_FILTERS;
      strip_scope_filters(&q);
    } else {
      return rc;
    }
    if (warn)
      warn(warn_ctx, *dropped, text);
    else
      log_warn("%s", text);
  }
}
