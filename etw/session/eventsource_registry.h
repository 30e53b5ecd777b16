/* The EventSource provider-data hand-off.  Filter data given to
 * EnableTraceEx2 reaches only providers registered at that moment, so
 * TraceEvent also stores it where .NET's EventSource looks when it
 * registers later (TraceEventSession.cs, EnableProvider and
 * SetFilterDataForEtwSession / GetEventSourceRegistryBaseLocation;
 * EventSource's TryReadRegistryFilterData reads it):
 *   HKLM\Software\Wow6432Node\Microsoft\Windows\CurrentVersion\Winevt\
 *     Publishers\{guid}        (the 64-bit writer's base, as TraceEvent)
 *   value ControllerData_Session_<session id>, REG_BINARY: the provider
 *   data as sent ("EtwSessionName\0<session>\0EtwSessionKeyword\0<bit>\0"
 *   then the key\0value\0 pairs), for the Update command only.
 * TraceEvent removes the values at stop; so does etwcap, by the session
 * name inside the data, which also finds what a killed capture left. */
#ifndef ETWCAP_EVENTSOURCE_REGISTRY_H
#define ETWCAP_EVENTSOURCE_REGISTRY_H

#include "etw/plan/plan.h"
#include "src/base/os/registry.h"

#include <stddef.h>
#include <stdint.h>

/* TraceEvent's base key for a 64-bit process. */
#define EVENTSOURCE_REGISTRY_BASE \
  "Software\\Wow6432Node\\Microsoft\\Windows\\CurrentVersion\\Winevt\\Publishers"

/* The provider-data descriptor of `p` that goes to the registry, or NULL
 * (no arguments, or TraceEvent's SendManifest, which it never stores). */
const struct plan_filter *eventsource_registry_data(const struct plan_provider *p);

/* "<base>\{guid}" (lower-case GUID, as .NET's Guid.ToString()) and
 * "ControllerData_Session_<id>", where id is TraceEvent's m_SessionId:
 * (int)Wnode.HistoricalContext, the session handle StartTrace returned. */
void eventsource_registry_names(const struct etw_guid *provider, uint64_t session_handle,
                                char *key, size_t key_size, char *value, size_t value_size);

/* Stores p's provider data for the session.  0 when there is none to
 * store; the registry's error otherwise. */
int eventsource_registry_put(const struct registry *r, const struct plan_provider *p,
                             uint64_t session_handle);

/* Removes what eventsource_registry_put stored for p and the session (an
 * enable that failed after the put), and the provider key if now empty.  0
 * when there was nothing to store; the registry's error otherwise. */
int eventsource_registry_drop(const struct registry *r, const struct plan_provider *p,
                              uint64_t session_handle);

/* Removes, in one walk of the Publishers key, every ControllerData_Session_*
 * value whose data names one of the `count` sessions `names` (exactly) or,
 * with `prefix`, a session whose name starts with one of them; a provider
 * key left empty is removed too (TraceEvent's "hygiene").  *removed counts
 * the values.  0, or the registry's error (ETWCAP_E_NOENT when there is no
 * Publishers key counts as 0). */
int eventsource_registry_remove(const struct registry *r, const char *const *names, size_t count,
                                int prefix, size_t *removed);

#endif
