/* The parts of the controller seam every implementation shares: the
 * controller of this OS set up around its table, the last error and its
 * text, a failed enable in words, and switching a kernel session's events
 * on by its route (see controller.h). */
#include "etw/session/controller.h"

#include "src/base/error.h"

#include <stdio.h>
#include <string.h>

void controller_system(struct controller *c)
{
  c->ops = &controller_system_ops;
  c->impl = NULL;
  c->last_error.api = NULL;
  c->last_error.os_code = 0;
  c->last_error.os_name[0] = '\0';
}

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

/* The GROUP_MASK route's second step.  TraceSetInformation(
 * TraceSystemTraceEnableFlagsInfo) "Sets the Group Mask state" (evntrace.h's
 * comment on the class, "Input Format: PERFINFO_GROUPMASK"): it replaces the
 * whole mask Windows built from the EnableFlags at start, groups it couples
 * to them included (krabsetw perfinfo_groupmask.hpp: PERF_DISK_IO =
 * DISK_FILE_IO|DISK_IO).  So read first (TraceQueryInformation, "Return
 * Format: PERFINFO_GROUPMASK") and only add what is missing, as krabsetw's
 * kt::enable_providers does with the native NtQuerySystemInformation /
 * NtSetSystemInformation calls (docs/win32-contract.md §3.2 rule 4); without
 * a query, Set the plan's mask as before. */
static int group_mask_on(struct controller *c, uint64_t handle, const struct plan_session *s)
{
  uint32_t applied[PLAN_GROUP_MASK_WORDS], missing = 0;
  size_t w;
  if (c->ops->query_group_mask(c, handle, applied) != 0)
    return c->ops->set_group_mask(c, handle, s->group_mask);
  for (w = 0; w < PLAN_GROUP_MASK_WORDS; w++) {
    missing |= s->group_mask[w] & ~applied[w];
    applied[w] |= s->group_mask[w];
  }
  return missing ? c->ops->set_group_mask(c, handle, applied) : 0;
}

/* One EnableTraceEx2 per System Provider of `s`, with `control_code`. */
static int system_providers(struct controller *c, uint64_t handle, const struct plan_session *s,
                            unsigned params_version, uint32_t control_code)
{
  size_t i;
  int rc;
  for (i = 0; i < s->system_provider_count; i++) {
    const struct plan_system_provider *sp = &s->system_providers[i];
    struct plan_provider p;
    memset(&p, 0, sizeof(p));
    p.guid = sp->guid;
    snprintf(p.name, sizeof(p.name), "%s", sp->name);
    p.origin = "kernel";
    p.level = 5; /* TRACE_LEVEL_VERBOSE: every event of the keywords */
    p.match_any = sp->keywords;
    p.control_code = control_code;
    if ((rc = c->ops->enable_provider(c, handle, &p, params_version)) != 0)
      return rc;
  }
  return 0;
}

int controller_kernel_on(struct controller *c, uint64_t handle, const struct plan_session *s,
                         unsigned params_version)
{
  if (s->route == PLAN_ROUTE_GROUP_MASK)
    return group_mask_on(c, handle, s);
  if (s->route != PLAN_ROUTE_SYSTEM_PROVIDERS)
    return 0;
  return system_providers(c, handle, s, params_version, PLAN_CONTROL_ENABLE_PROVIDER);
}

int controller_kernel_capture_state(struct controller *c, uint64_t handle,
                                    const struct plan_session *s, unsigned params_version)
{
  if (s->route != PLAN_ROUTE_SYSTEM_PROVIDERS)
    return ETWCAP_E_UNSUPPORTED;
  return system_providers(c, handle, s, params_version, PLAN_CONTROL_CAPTURE_STATE);
}

/* The filters of an enable, by kind: "pid+exe+eventId". */
static void filter_kinds(const struct plan_provider *p, char *buf, size_t size)
{
  size_t i, n = 0;
  buf[0] = '\0';
  for (i = 0; i < p->filter_count && n < size; i++) {
    const char *k;
    switch (p->filters[i].type) {
    case PLAN_FILTER_PROVIDER_DATA:
      k = "EventSource arguments";
      break;
    case PLAN_FILTER_SEND_MANIFEST:
      k = "SendManifest";
      break;
    case PLAN_FILTER_PID:
      k = "process ids";
      break;
    case PLAN_FILTER_EXECUTABLE_NAME:
      k = "exe names";
      break;
    case PLAN_FILTER_EVENT_ID:
      k = "event ids";
      break;
    default:
      k = "stack event ids";
    }
    n += (size_t)snprintf(buf + n, size - n, "%s%s (%u bytes)", n ? ", " : "", k,
                          (unsigned)p->filters[i].size);
  }
}

const char *controller_enable_failure(const struct controller *c, const struct plan_provider *p,
                                      int rc, char *buf, size_t size)
{
  char g[GUID_STRING_SIZE], detail[160], filters[400];
  const char *meaning;
  guid_format(&p->guid, g);
  controller_error_text(c, detail, sizeof(detail));
  filter_kinds(p, filters, sizeof(filters));
  switch (rc) {
  case ETWCAP_E_SESSION_LIMIT:
    /* EnableTraceEx2: "ERROR_NO_SYSTEM_RESOURCES: Exceeded the number of
     * trace sessions that can enable the provider." */
    meaning = "the provider is already enabled by as many trace sessions as Windows allows "
              "(8; EDR agents and autologgers often hold them): 'logman query providers "
              "<name>' shows which";
    break;
  case ETWCAP_E_RANGE:
    /* EnableTraceEx2: ERROR_INVALID_PARAMETER, e.g. a filter over its
     * documented limits (8 process ids, 64 event ids, 1024-byte names). */
    meaning = "Windows rejected a parameter of this enable: check the filters against their "
              "limits (at most 8 process ids, 64 event ids, exe names under 1024 bytes) and "
              "the enable properties";
    break;
  case ETWCAP_E_ACCES:
    meaning = "access denied: run etwcap elevated";
    break;
  default:
    meaning = etwcap_strerror(rc);
  }
  snprintf(buf, size, "%s {%s} (level %u, keywords 0x%llX, properties 0x%X%s%s): %s: %s",
           p->name, g, (unsigned)p->level, (unsigned long long)p->match_any,
           (unsigned)p->enable_property, filters[0] ? ", filters " : "", filters, detail,
           meaning);
  return buf;
}
