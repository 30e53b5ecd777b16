/* The events etwcap knows by name without a manifest: the CLR runtime
 * provider (Microsoft-Windows-DotNETRuntime, layouts from ClrEtwAll.man),
 * the kernel Process/Thread/Image groups (the MOF layouts TraceEvent
 * decodes), System.Net.Http's EventSource and the two IIS events PerfView's
 * /StopOnRequestOverMsec uses.  Names are TraceEvent's "Task/Opcode" names
 * (GC/Start, Exception/Start, Process/DCStart ...); EventSource events also
 * answer to their method names (RequestStart).  Pure tables. */
#ifndef ETWCAP_BUILTIN_EVENTS_H
#define ETWCAP_BUILTIN_EVENTS_H

#include "etw/event/etw_event.h"
#include "etw/event/payload_layout.h"

#include <stddef.h>
#include <stdint.h>

enum bi_provider { BI_NONE, BI_CLR, BI_KERNEL, BI_HTTP, BI_IIS };

struct bi_event {
  enum bi_provider prov;
  uint16_t id;        /* event id; kernel: the opcode */
  uint8_t group;      /* kernel group (hook id >> 8), else 0 */
  uint8_t version;    /* first event version this layout describes */
  const char *task;   /* TraceEvent task name */
  const char *opcode; /* opcode name, NULL for an Info event ("Task" alone) */
  const char *method; /* EventSource method name, or NULL */
  struct tf_layout layout;
};

/* CLR event ids and values the built-in triggers use. */
#define CLR_ID_GC_START 1
#define CLR_ID_GC_STOP 2
#define CLR_ID_GC_RESTART_EE_STOP 3
#define CLR_ID_GC_RESTART_EE_START 7
#define CLR_ID_GC_SUSPEND_EE_STOP 8
#define CLR_ID_GC_SUSPEND_EE_START 9
#define CLR_ID_EXCEPTION_START 80
#define CLR_ID_RUNTIME_INFORMATION 187
#define CLR_KEYWORD_GC 0x1ull
#define CLR_KEYWORD_EXCEPTION 0x8000ull
#define CLR_GC_TYPE_BACKGROUND 1u
#define CLR_SUSPEND_FOR_GC_PREP 6u
#define KERNEL_GROUP_PROCESS 3
#define KERNEL_GROUP_THREAD 5
#define KERNEL_GROUP_IMAGE 20
#define HTTP_ID_REQUEST_STOP 2
#define HTTP_ID_RESPONSE_HEADERS_STOP 12

extern const struct etw_guid bi_guid_clr;
extern const struct etw_guid bi_guid_clr_rundown;
extern const struct etw_guid bi_guid_kernel;  /* SystemTraceControlGuid */
extern const struct etw_guid bi_guid_http;    /* EventSource hash of System.Net.Http */
extern const struct etw_guid bi_guid_iis;

/* Which table an event belongs to (kernel events by their group, whether
 * they came with a SYSTEM/PERFINFO header or with the group's task GUID). */
enum bi_provider bi_provider_of_event(const struct etw_event *ev);
/* Which table a provider GUID has (the kernel's SystemTraceControlGuid
 * included); BI_NONE when etwcap has no table for it. */
enum bi_provider bi_provider_of_guid(const struct etw_guid *g);

/* The kernel group of an event (0 when it is not a kernel event). */
unsigned bi_kernel_group(const struct etw_event *ev);

/* The layout for an event: the row with its id (kernel: group and opcode)
 * and the highest version not above the event's.  NULL when unknown. */
const struct bi_event *bi_lookup(enum bi_provider p, const struct etw_event *ev);
/* By name ("GC/Start", "Process/DCStart", "RequestStop", "Request/Start";
 * ASCII case-insensitive).  Returns the first (oldest) row, or NULL. */
const struct bi_event *bi_find_name(enum bi_provider p, const char *name);
/* The first row with this event id (not for the kernel), or NULL. */
const struct bi_event *bi_find_id(enum bi_provider p, uint16_t id);
/* The newest layout of row's event. */
const struct bi_event *bi_latest(const struct bi_event *row);
/* Does any version of row's event have a field of this name? */
int bi_has_field(const struct bi_event *row, const char *field);
/* Does `e` (any version) describe the same event as `row`? */
int bi_same_event(const struct bi_event *row, const struct etw_event *ev);
/* "GC/Start" into buf. */
char *bi_event_name(const struct bi_event *e, char *buf, size_t cap);
/* A few names of provider p, comma-separated, for error messages. */
char *bi_some_names(enum bi_provider p, char *buf, size_t cap);
const char *bi_provider_name(enum bi_provider p);

#endif
