/* Names of the header kinds and extended item types of struct etw_event,
 * spelled as the golden listings spell them. */
#include "etw/event/etw_event.h"

#include <stddef.h>

const char *etw_header_type_name(enum etw_header_type t)
{
  switch (t) {
  case ETW_HDR_SYSTEM32: return "SYSTEM32";
  case ETW_HDR_SYSTEM64: return "SYSTEM64";
  case ETW_HDR_COMPACT32: return "COMPACT32";
  case ETW_HDR_COMPACT64: return "COMPACT64";
  case ETW_HDR_FULL32: return "FULL_HEADER32";
  case ETW_HDR_INSTANCE32: return "INSTANCE32";
  case ETW_HDR_MESSAGE: return "MESSAGE";
  case ETW_HDR_PERFINFO32: return "PERFINFO32";
  case ETW_HDR_PERFINFO64: return "PERFINFO64";
  case ETW_HDR_EVENT_HEADER32: return "EVENT_HEADER32";
  case ETW_HDR_EVENT_HEADER64: return "EVENT_HEADER64";
  case ETW_HDR_FULL64: return "FULL_HEADER64";
  case ETW_HDR_INSTANCE64: return "INSTANCE64";
  }
  return "UNKNOWN";
}

const char *etw_ext_type_name(unsigned type)
{
  static const char *const names[] = {
    NULL, "RELATED_ACTIVITYID", "SID", "TS_ID", "INSTANCE_INFO", "STACK_TRACE32",
    "STACK_TRACE64", "PEBS_INDEX", "PMC_COUNTERS", "PSM_KEY", "EVENT_KEY",
    "EVENT_SCHEMA_TL", "PROV_TRAITS", "PROCESS_START_KEY",
  };
  return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}
