/* Names of the header kinds and extended item types of struct etw_event,
 * spelled as the golden listings spell them, and the one extended item
 * read here: the container ID. */
#include "etw/event/etw_event.h"

#include <stddef.h>
#include <ctype.h>
#include <string.h>

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
    "EVENT_SCHEMA_TL", "PROV_TRAITS", "PROCESS_START_KEY", "CONTROL_GUID", "QPC_DELTA",
    "CONTAINER_ID", "STACK_KEY32", "STACK_KEY64",
  };
  return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

/* The item is 36 ASCII characters without braces or NUL: TraceEvent reads
 * it as an ANSI string of DataSize bytes (TraceEvent.cs, GetContainerID),
 * krabsetw expects CONTAINER_ID_DATA_LENGTH_IN_BYTES = 36
 * (EventRecordMetadata.hpp).  A 16-byte item is taken as a binary GUID, the
 * form one other reader (ferrisetw) assumes (docs/etl.md section 4.4). */
int etw_event_container_id(const struct etw_event *ev, char out[ETW_CONTAINER_ID_SIZE])
{
  struct etw_guid g;
  unsigned i;
  out[0] = '\0';
  for (i = 0; i < ev->ext_count; i++) {
    const struct etw_ext_item *x = &ev->ext[i];
    if (x->type != ETW_EXT_CONTAINER_ID)
      continue;
    if (x->size == 36 && guid_parse_n((const char *)x->data, 36, &g) == 0) {
      memcpy(out, x->data, 36);
      out[36] = '\0';
      return 1;
    }
    if (x->size != 16)
      return -1;
    g = guid_from_bytes(x->data);
    guid_format(&g, out);
    for (i = 0; out[i]; i++)
      out[i] = (char)toupper((unsigned char)out[i]);
    return 1;
  }
  return 0;
}
