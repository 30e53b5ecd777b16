/* Names of plan values for the text and JSON forms. */
#include "etw/plan/plan_describe.h"

#include "etw/event/providers.h"
#include "src/base/strutil.h"

#include <stdio.h>

/* One table for both directions: the session record stores the name. */
static const struct {
  enum plan_role role;
  const char *name;
} role_names[] = {
  { PLAN_ROLE_KERNEL, "kernel" },   { PLAN_ROLE_USER, "user" },
  { PLAN_ROLE_RUNDOWN, "rundown" }, { PLAN_ROLE_TRIGGER, "trigger" },
  { PLAN_ROLE_KERNEL_RUNDOWN, "kernelRundown" }, { PLAN_ROLE_HEAP, "heap" },
};

const char *plan_role_name(enum plan_role role)
{
  size_t i;
  for (i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++)
    if (role_names[i].role == role)
      return role_names[i].name;
  return "unknown";
}

enum plan_role plan_role_from_name(const char *name)
{
  size_t i;
  for (i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++)
    if (str_caseeq(role_names[i].name, name))
      return role_names[i].role;
  return PLAN_ROLE_USER;
}

const char *plan_filter_kind(uint32_t type)
{
  switch (type) {
  case PLAN_FILTER_PROVIDER_DATA:
    return "providerData";
  case PLAN_FILTER_SEND_MANIFEST:
    return "providerDataSendManifest";
  case PLAN_FILTER_PID:
    return "pid";
  case PLAN_FILTER_EXECUTABLE_NAME:
    return "executableName";
  case PLAN_FILTER_EVENT_ID:
    return "eventId";
  case PLAN_FILTER_STACKWALK:
    return "stackWalkEventId";
  }
  return "unknown";
}

struct bit_name {
  uint32_t bit;
  const char *name;
};

static size_t names(const struct bit_name *t, size_t n, uint32_t v, char *buf, size_t size)
{
  size_t used = 0, i;
  if (size)
    buf[0] = '\0';
  for (i = 0; i < n; i++)
    if (v & t[i].bit) {
      int k = snprintf(used < size ? buf + used : NULL, used < size ? size - used : 0, "%s%s",
                       used ? "|" : "", t[i].name);
      used += (size_t)k;
      v &= ~t[i].bit;
    }
  if (v)
    used += (size_t)snprintf(used < size ? buf + used : NULL, used < size ? size - used : 0,
                             "%s0x%X", used ? "|" : "", (unsigned)v);
  return used;
}

size_t plan_log_file_mode_names(uint32_t mode, char *buf, size_t size)
{
  static const struct bit_name t[] = {
    { PLAN_FILE_MODE_SEQUENTIAL, "FILE_MODE_SEQUENTIAL" },
    { PLAN_FILE_MODE_CIRCULAR, "FILE_MODE_CIRCULAR" },
    { PLAN_REAL_TIME_MODE, "REAL_TIME_MODE" },
    { PLAN_BUFFERING_MODE, "BUFFERING_MODE" },
    { PLAN_SYSTEM_LOGGER_MODE, "SYSTEM_LOGGER_MODE" },
    { PLAN_INDEPENDENT_SESSION_MODE, "INDEPENDENT_SESSION_MODE" },
  };
  return names(t, sizeof(t) / sizeof(t[0]), mode, buf, size);
}

size_t plan_enable_property_names(uint32_t props, char *buf, size_t size)
{
  static const struct bit_name t[] = {
    { PLAN_ENABLE_PROPERTY_STACK_TRACE, "STACK_TRACE" },
    { PLAN_ENABLE_PROPERTY_ENABLE_SILOS, "ENABLE_SILOS" },
    { PLAN_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING, "SOURCE_CONTAINER_TRACKING" },
  };
  return names(t, sizeof(t) / sizeof(t[0]), props, buf, size);
}

const struct keyword_set *plan_provider_keywords(const struct plan_provider *p)
{
  const struct provider_entry *info = providers_find_guid(&p->guid);
  return info ? info->keywords : NULL;
}
